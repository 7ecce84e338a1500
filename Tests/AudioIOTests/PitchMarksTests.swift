// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import Foundation
import TestSupport
import Testing

/// Pitch marks of synthetic takes whose periods and peaks are known.
@Suite struct PitchMarksTests {
    /// `silence` seconds of silence, then `voiced` seconds of ten harmonics of a period of `period` frames in cosine
    /// phase (so every period peaks at its first frame, `polarity` up or down), then silence again.
    static func take(period: Int, voiced: Double, silence: Double = 0.3, polarity: Float = 1) -> (
        samples: [Float], voicedFrames: Range<Int>
    ) {
        let rate = 22_050
        let lead = Int(silence * Double(rate))
        let count = Int(voiced * Double(rate))
        var samples = [Float](repeating: 0, count: lead)
        for frame in 0..<count {
            let phase = 2 * Double.pi * Double(frame) / Double(period)
            let value = (1...10).reduce(0.0) { $0 + cos(Double($1) * phase) / Double($1) }
            samples.append(polarity * Float(0.15 * value))
        }
        samples += [Float](repeating: 0, count: lead)
        return (samples, lead..<(lead + count))
    }

    @Test("a voiced stretch of a known period is marked once a period, at each period's peak", arguments: [150, 100])
    func knownPeriod(period: Int) throws {
        let (samples, voiced) = Self.take(period: period, voiced: 1)

        let marks = try PitchMarks.measure(samples)

        #expect(marks.allSatisfy { voiced.contains($0) }, "a mark in the silence: \(marks.prefix(3))")
        let periods = voiced.count / period
        #expect(marks.count >= periods * 9 / 10 && marks.count <= periods + 1, "\(marks.count) of \(periods)")
        for (mark, next) in zip(marks, marks.dropFirst()) { #expect(next - mark == period, "\(mark) to \(next)") }
        // Each peak is at a whole number of periods into the stretch.
        #expect(marks.allSatisfy { ($0 - voiced.lowerBound) % period == 0 })
    }

    @Test("a voice whose pulses point down is marked at its lowest samples")
    func downwardPulses() throws {
        let (samples, voiced) = Self.take(period: 120, voiced: 0.5, polarity: -1)

        let marks = try PitchMarks.measure(samples)

        #expect(marks.count >= 80)
        #expect(marks.allSatisfy { ($0 - voiced.lowerBound) % 120 == 0 })
    }

    @Test("silence and noise have no marks")
    func unvoiced() throws {
        var generator = SeededGenerator(seed: 7)
        let noise = (0..<22_050).map { _ in Float.random(in: -0.1...0.1, using: &generator) }

        #expect(try PitchMarks.measure([Float](repeating: 0, count: 22_050)) == [])
        #expect(try PitchMarks.measure(noise).count < 10)
        #expect(try PitchMarks.measure([]) == [])
    }
}
