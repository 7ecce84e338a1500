// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#endif

/// Aligned takes written by hand, for the units' tests: words with their phones, each phone `phoneFrames` long and
/// every word right after the one before, unless a pause is asked for after it; and audio for them, each phone a tone
/// of its own frequency.
public enum AlignedTakes {
    public static func take(
        _ clipID: Int, _ words: [(String, [String])], phoneFrames: Int = 1_000, leadFrames: Int = 2_000,
        pausesAfter: Set<Int> = []
    ) -> AlignedTake {
        var frame = leadFrames
        var alignedWords: [AlignedTake.Segment] = []
        var phones: [AlignedTake.Segment] = []
        for (index, (word, wordPhones)) in words.enumerated() {
            let start = frame
            for phone in wordPhones {
                phones.append(.init(label: phone, frames: frame..<frame + phoneFrames, word: index))
                frame += phoneFrames
            }
            alignedWords.append(.init(label: word, frames: start..<frame, word: index))
            if pausesAfter.contains(index) { frame += 4 * phoneFrames }
        }
        return AlignedTake(clipID: clipID, words: alignedWords, phones: phones)
    }

    /// A tone for each phone of `take` at its frequency in `frequencies` (its symbol's), silence between: the take's
    /// whole samples.
    public static func samples(of take: AlignedTake, frequencies: [String: Double]) -> [Float] {
        var samples = [Float](repeating: 0, count: wholeFrameCount(of: take))
        for phone in take.phones {
            let frequency = frequencies[phone.label] ?? 100
            for frame in phone.frames {
                samples[frame] = Float(0.3 * sin(2 * Double.pi * frequency * Double(frame) / 22_050))
            }
        }
        return samples
    }

    /// The length of a take's whole samples: its last phone's end and as long again as before its first.
    public static func wholeFrameCount(of take: AlignedTake) -> Int {
        (take.phones.last?.frames.upperBound ?? 0) + (take.phones.first?.frames.lowerBound ?? 0)
    }

    /// A frequency for each ARPAbet phone: 150 Hz up in steps of 40 Hz, in the order given.
    public static func frequencies(_ symbols: [String]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: symbols.enumerated().map { ($0.element, 150 + 40 * Double($0.offset)) })
    }
}
