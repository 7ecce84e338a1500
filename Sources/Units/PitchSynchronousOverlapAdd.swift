// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#endif

/// Pitch changed and duration kept by time-domain pitch-synchronous overlap-add (TD-PSOLA) on a recording's pitch
/// marks: each voiced period is taken as a grain (a Hann window from the mark before it to the mark after it, centred
/// on its own mark) and laid down again at the spacing the new F0 asks for, each grain from the period nearest in
/// time, so that periods are repeated or left out and the length stays. Unvoiced stretches (no marks) are copied as
/// they are.
///
/// Per segment, on the marks stored at import, with any F0 at each period: what libsonic cannot do (its pitch is one
/// factor for a whole stream, found by its own period search). Written in Swift rather than taken from aubio's
/// phase vocoder so that the speaking executables load no FFT library.
///
/// ```swift
/// let higher = PitchSynchronousOverlapAdd.shift(samples, marks: marks) { _ in 1.122 }   // +2 semitones
/// ```
public enum PitchSynchronousOverlapAdd {
    /// Two marks further apart than this (in frames, a period of 50 Hz at 22050 Hz) belong to different voiced
    /// stretches.
    public static let longestPeriod = 441

    /// `samples` with F0 multiplied by `ratio(k)` around mark `k` of `marks` (frames of `samples`, increasing), as
    /// long as they were. A ratio of 1 everywhere gives the samples back (but for the last bits of Float).
    public static func shift(_ samples: [Float], marks: [Int], ratio: (Int) -> Double) -> [Float] {
        var output = samples
        for stretch in stretches(marks) where stretch.count >= 2 {
            resynthesize(samples, marks: marks, stretch: stretch, ratio: ratio, into: &output)
        }
        return output
    }

    /// Where the periods of `shift(_:marks:ratio:)`'s output are: the marks of its grains as laid down again.
    public static func shiftedMarks(_ marks: [Int], ratio: (Int) -> Double) -> [Int] {
        stretches(marks).flatMap { stretch in
            stretch.count >= 2
                ? placements(marks, stretch: stretch, ratio: ratio).map { Int($0.time.rounded()) }
                : Array(marks[stretch])
        }
    }

    /// The voiced stretches of `marks`: runs of marks no further apart than `longestPeriod`.
    static func stretches(_ marks: [Int]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for index in marks.indices {
            let ends = index + 1 == marks.count || marks[index + 1] - marks[index] > longestPeriod
            guard ends else { continue }
            result.append(start..<index + 1)
            start = index + 1
        }
        return result
    }

    /// Lays the grains of one voiced stretch down at the new spacing, over what `output` held there; the first
    /// grain's rising half and the last's falling half are crossfaded with the samples around the stretch. A grain
    /// reaching past the samples' ends (a period at a word's edge) reads silence there.
    private static func resynthesize(
        _ samples: [Float], marks: [Int], stretch: Range<Int>, ratio: (Int) -> Double, into output: inout [Float]
    ) {
        let first = stretch.lowerBound
        let last = stretch.upperBound - 1
        func left(_ k: Int) -> Int { k > first ? marks[k] - marks[k - 1] : marks[k + 1] - marks[k] }
        func right(_ k: Int) -> Int { k < last ? marks[k + 1] - marks[k] : marks[k] - marks[k - 1] }
        let placed = placements(marks, stretch: stretch, ratio: ratio)
        func sample(_ frame: Int) -> Float { frame >= 0 && frame < samples.count ? samples[frame] : 0 }
        let start = max(0, marks[first] - left(first))
        let lastAt = Int(placed.last!.time.rounded())
        let end = min(output.count, lastAt + right(placed.last!.grain))
        for frame in start..<end { output[frame] = 0 }
        // A grain goes where its new period puts it, between frames too: its samples are read a fraction of a frame
        // off (linearly between two), so that periods do not alternate by a frame where the new one is fractional.
        for (time, grain) in placed {
            let at = Int(time.rounded())
            let fraction = time - Double(at)
            let before = left(grain)
            let after = right(grain)
            for offset in -before..<after {
                let target = at + offset
                guard target >= 0, target < output.count else { continue }
                let position = Double(offset) - fraction
                let lower = Int(position.rounded(.down))
                let share = Float(position - Double(lower))
                let value =
                    share == 0
                    ? sample(marks[grain] + lower)
                    : sample(marks[grain] + lower) * (1 - share) + sample(marks[grain] + lower + 1) * share
                output[target] += value * window(position, before: before, after: after)
            }
        }
        // Around the stretch, the recording fades in under the first grain's rise and out under the last's fall.
        let firstBefore = left(first)
        for offset in -firstBefore..<0 where marks[first] + offset >= 0 {
            output[marks[first] + offset] +=
                samples[marks[first] + offset]
                * (1 - window(Double(offset), before: firstBefore, after: 1))
        }
        let lastAfter = right(placed.last!.grain)
        for offset in 0..<lastAfter where lastAt + offset < output.count {
            output[lastAt + offset] +=
                samples[lastAt + offset] * (1 - window(Double(offset), before: 1, after: lastAfter))
        }
    }

    /// The synthesis marks of a voiced stretch (of at least two marks): from its first mark on, each the new period
    /// after the one before, with the grain of the analysis mark nearest it.
    static func placements(_ marks: [Int], stretch: Range<Int>, ratio: (Int) -> Double) -> [(time: Double, grain: Int)]
    {
        let last = stretch.upperBound - 1
        var placed: [(time: Double, grain: Int)] = []
        var time = Double(marks[stretch.lowerBound])
        var nearest = stretch.lowerBound
        while time <= Double(marks[last]) {
            while nearest < last, abs(Double(marks[nearest + 1]) - time) < abs(Double(marks[nearest]) - time) {
                nearest += 1
            }
            placed.append((time, nearest))
            let period = nearest < last ? marks[nearest + 1] - marks[nearest] : marks[nearest] - marks[nearest - 1]
            time += Double(period) / min(max(ratio(nearest), 0.25), 4)
        }
        return placed
    }

    /// A Hann window rising over `before` frames to 1 at offset 0 and falling over `after`, nothing outside them:
    /// two neighbouring grains' halves add up to 1 over the period between their marks.
    @inline(__always)
    static func window(_ offset: Double, before: Int, after: Int) -> Float {
        let share = offset < 0 ? (offset + Double(before)) / Double(before) : (Double(after) - offset) / Double(after)
        return Float(0.5 - 0.5 * cos(Double.pi * min(max(share, 0), 1)))
    }
}
