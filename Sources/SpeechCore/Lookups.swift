// SPDX-License-Identifier: GPL-3.0-or-later
/// What the matcher needs to know of a voice: the phrase keys in order, and the takes of a phrase key.
///
/// `ClipIndex` answers from the voice pack's index; tests answer from a dictionary.
public protocol PhraseLookup {
    /// The first phrase key, in the order of their UTF-8 bytes, that is `key` or sorts after it; `nil` past the
    /// last. Every key that starts with the tokens of `key` sorts right after it, so one look-up tells whether
    /// a phrase goes on from there.
    func firstPhraseKey(atOrAfter key: String) throws -> String?
    /// The takes whose phrase key is `key`, in a fixed order (a pack: first imported first).
    func takes(forPhraseKey key: String) throws -> [ClipTake]
    /// A number that names what the look-ups read now: answers given under one version hold for every plan under
    /// the same one, so a planner keeps them from one request to the next. `nil` when the lookup cannot tell, and
    /// then answers are kept for one plan only.
    var phrasesVersion: UInt64? { get }
}

extension PhraseLookup {
    public var phrasesVersion: UInt64? { nil }
}

/// Where the renderer gets a clip's samples: a clip index reads them from the voice pack.
public protocol ClipAudioSource: AnyObject {
    /// Copies frames `start…` of what `take` plays into `buffer`, as many as fit; returns the frames copied
    /// (fewer where the take ends).
    func readRenderReadyPCM(_ take: ClipTake, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>) throws
        -> Int
    /// A number that changes whenever what a take reads may have changed; `nil` when the source cannot tell, and
    /// then nothing made from its samples is kept from one request to the next.
    var samplesVersion: UInt64? { get }
}

extension ClipAudioSource {
    public var samplesVersion: UInt64? { nil }
}
