// SPDX-License-Identifier: GPL-3.0-or-later
/// A take of a voice with its words and phones as the aligner found them: what the units fallback cuts words and
/// phone-pairs from.
public struct AlignedTake: Equatable, Sendable {
    /// A word or phone of the take: its label (a word in lower case, a phone in ARPAbet without stress) and its frames
    /// in the clip's whole render-ready samples (`ClipTake.firstFrame` counts in the same).
    public struct Segment: Equatable, Sendable {
        public var label: String
        public var frames: Range<Int>
        /// For a phone, the index of its word in `words`; for a word, its own index.
        public var word: Int

        public init(label: String, frames: Range<Int>, word: Int) {
            self.label = label
            self.frames = frames
            self.word = word
        }
    }

    /// What playing a take's slices needs of its clip, asked only of the takes units are cut from.
    public struct Audio: Equatable, Sendable {
        /// The gain in dB that plays the clip at its voice's loudness (`ClipTake.levelDecibels`).
        public var levelDecibels: Double
        /// Frames of the clip's whole render-ready samples, trimmed silence and all: no read reaches past them.
        public var wholeFrameCount: Int
        /// The frames the clip plays, past the silence its import trimmed (`ClipTake.firstFrame` and `frameCount`):
        /// a slice of its first or last words ends there, as the aligner counts that silence in them.
        public var playedFrames: Range<Int>

        public init(levelDecibels: Double, wholeFrameCount: Int, playedFrames: Range<Int>? = nil) {
            self.levelDecibels = levelDecibels
            self.wholeFrameCount = wholeFrameCount
            self.playedFrames = playedFrames ?? 0..<wholeFrameCount
        }
    }

    public var clipID: Int
    public var words: [Segment]
    public var phones: [Segment]
    /// What a join compares at the middle of each phone, as measured when the take was aligned; `nil` where the look-up
    /// has none (a pack from before they were kept, read as it is), and the units fallback measures them from the
    /// take's audio.
    public var joinFeatures: JoinFeatures?
    /// The gain in dB the take plays at (`Audio.levelDecibels`), where the look-up reads it with the alignment; `nil`
    /// where it does not, and the units fallback asks `UnitLookup.audio(clipID:)`.
    public var levelDecibels: Double?

    public init(
        clipID: Int, words: [Segment], phones: [Segment], joinFeatures: JoinFeatures? = nil,
        levelDecibels: Double? = nil
    ) {
        self.clipID = clipID
        self.words = words
        self.phones = phones
        self.joinFeatures = joinFeatures
        self.levelDecibels = levelDecibels
    }

    /// The part of the take between two of its frames, at the take's level: a slice the renderer plays like a clip.
    public func slice(_ frames: Range<Int>, levelDecibels: Double) -> ClipTake {
        ClipTake(clipID: clipID, frameCount: frames.count, firstFrame: frames.lowerBound, levelDecibels: levelDecibels)
    }
}

/// What the units fallback needs of a voice: its aligned takes, and what playing one needs of its clip. A clip index
/// reads them from the voice pack; tests answer from arrays.
public protocol UnitLookup: AnyObject {
    /// The voice's takes that were aligned (not those whose alignment failed, nor fallback clips), first imported
    /// first, with their join features and level where the look-up keeps them.
    func alignedTakes() throws -> [AlignedTake]
    /// A clip's level and length, asked only of the takes units are cut from: reading them walks the clip's audio in
    /// the store, which the index, built from the alignments alone, never does.
    func audio(clipID: Int) throws -> AlignedTake.Audio
    /// A take's pitch marks (frames of its whole samples, one a period of its voiced stretches, increasing), asked
    /// only of the takes units are cut from: where their joins are cut and their F0 is changed. Empty when none are
    /// stored.
    func pitchMarks(clipID: Int) throws -> [Int]
}

extension UnitLookup {
    /// No pitch marks: joins are cut where the alignment cuts them, and F0 stays as the takes said it.
    public func pitchMarks(clipID: Int) throws -> [Int] { [] }
}
