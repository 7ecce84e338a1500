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

    /// The take as it plays: its clip, its level and features. A slice of it plays at the same level.
    public var take: ClipTake
    /// Frames of the clip's whole render-ready samples, trimmed silence and all: no slice reaches past them.
    public var wholeFrameCount: Int
    public var words: [Segment]
    public var phones: [Segment]

    public init(take: ClipTake, wholeFrameCount: Int, words: [Segment], phones: [Segment]) {
        self.take = take
        self.wholeFrameCount = wholeFrameCount
        self.words = words
        self.phones = phones
    }

    /// The part of the take between two of its frames, at its level: a slice the renderer plays like a clip.
    public func slice(_ frames: Range<Int>) -> ClipTake {
        var slice = ClipTake(clipID: take.clipID, frameCount: frames.count, firstFrame: frames.lowerBound)
        slice.levelDecibels = take.levelDecibels
        return slice
    }
}

/// What the units fallback needs of a voice: its aligned takes. A clip index reads them from the voice pack's
/// alignments; tests answer from arrays.
public protocol UnitLookup: AnyObject {
    /// The voice's takes that were aligned (not those whose alignment failed, nor fallback clips), first imported
    /// first.
    func alignedTakes() throws -> [AlignedTake]
}
