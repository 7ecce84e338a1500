// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Units

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct PitchSynchronousOverlapAddTests {
    /// A pulse train: a short damped pulse every `period` frames from `first` to `end`, silence around; and its marks.
    static func pulses(period: Int, first: Int = 1_000, end: Int = 21_000, count: Int = 22_050) -> ([Float], [Int]) {
        var samples = [Float](repeating: 0, count: count)
        var marks: [Int] = []
        for mark in stride(from: first, to: end, by: period) {
            marks.append(mark)
            for offset in 0..<12 {
                samples[mark + offset] = Float(0.8 * exp(-Double(offset) / 3) * cos(Double(offset)))
            }
        }
        return (samples, marks)
    }

    /// Frames where a pulse peaks: samples above half the largest that are larger than both neighbours.
    static func peaks(_ samples: [Float]) -> [Int] {
        let threshold = (samples.max() ?? 0) / 2
        return samples.indices.dropFirst().dropLast().filter {
            samples[$0] > threshold && samples[$0] > samples[$0 - 1] && samples[$0] >= samples[$0 + 1]
        }
    }

    @Test("shifted by +2 semitones, a pulse train's period shrinks by 2 semitones and its length stays")
    func twoSemitones() throws {
        let (samples, marks) = Self.pulses(period: 200)
        let ratio = pow(2, 2.0 / 12)
        let shifted = PitchSynchronousOverlapAdd.shift(samples, marks: marks) { _ in ratio }
        #expect(shifted.count == samples.count)
        let peaks = Self.peaks(shifted)
        try #require(peaks.count > 50)
        // Each new period is placed to the nearest frame, half a frame off at most, and the errors do not add up: over
        // the whole train the mean period is within a frame's share of the train (about 0.1 %, 2 cents); 5 cents
        // leaves room for the edges' first and last grains.
        let period = Double(peaks.last! - peaks.first!) / Double(peaks.count - 1)
        let semitones = 12 * log2(200 / period)
        #expect(abs(semitones - 2) < 0.05, "measured \(semitones) st")
        // The pulses keep their height: a grain carries its period's pulse at its middle, where the window is 1.
        #expect(abs((shifted.max() ?? 0) - (samples.max() ?? 0)) < 0.01)
        // Outside the voiced stretch the samples are untouched.
        #expect(Array(shifted[0..<790]) == Array(samples[0..<790]))
    }

    @Test("at no shift the samples come back, but for the last bits")
    func identity() {
        let (pulses, marks) = Self.pulses(period: 173)
        let samples = pulses.enumerated().map { $0.element + Float(0.1 * sin(Double($0.offset) * 0.05)) }
        let same = PitchSynchronousOverlapAdd.shift(samples, marks: marks) { _ in 1 }
        #expect(same.count == samples.count)
        #expect(zip(same, samples).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test("marks further apart than the longest period are separate voiced stretches")
    func stretches() {
        let marks = [300, 500, 700, 2_000, 2_200, 5_000]
        #expect(
            PitchSynchronousOverlapAdd.stretches(marks) == [0..<3, 3..<5, 5..<6])
    }
}
