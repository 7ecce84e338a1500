// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import TestSupport
import Testing

@Suite struct PeakLimiterTests {
    /// A 220 Hz sine at 0.1 for a second, with one sample at 0.9 in the middle.
    static let spiked: [Float] = {
        var samples = Signal.sine(frequency: 220, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050)
        samples[11_025] = 0.9
        return samples
    }()

    @Test("no sample passes the ceiling; far from the peak the samples are the gain's, exactly")
    func limits() {
        let limited = PeakLimiter.limit(Self.spiked, gainDecibels: 6, ceiling: 0.5)
        let gain = Float(Decibels.amplitude(6))
        #expect(limited.count == Self.spiked.count)
        #expect(limited.allSatisfy { $0.magnitude <= 0.5 })
        #expect(limited[11_025] > 0.49)
        // Eased back within a few time constants of the release after it; untouched before the look-ahead.
        #expect(limited[..<10_900].elementsEqual(Self.spiked[..<10_900].map { $0 * gain }))
        #expect(limited[17_000...].elementsEqual(Self.spiked[17_000...].map { $0 * gain }))
        // The reduction comes before the peak as well as after it.
        #expect(limited[11_000].magnitude < (Self.spiked[11_000] * gain).magnitude)
    }

    @Test("a run limited as its pieces arrive is the run limited whole, however it is cut")
    func pieces() {
        var samples = Signal.sine(frequency: 180, amplitude: 0.3, sampleRate: 22_050, frameCount: 30_000)
        for index in stride(from: 1_000, to: 30_000, by: 3_001) { samples[index] = index % 2 == 0 ? 0.95 : -0.9 }
        let whole = PeakLimiter.limit(samples, gainDecibels: 4, ceiling: 0.6)
        for size in [1, 7, 110, 111, 1_102, 40_000] {
            var limiter = PeakLimiter(gainDecibels: 4, ceiling: 0.6)
            var limited: [Float] = []
            for start in stride(from: 0, to: samples.count, by: size) {
                let piece = limiter.process(Array(samples[start..<min(samples.count, start + size)]))
                // Each piece out trails what came in by at most the look-ahead.
                #expect(limited.count + piece.count >= min(samples.count, start + size) - 110)
                limited += piece
            }
            limited += limiter.finish()
            #expect(limited == whole, "pieces of \(size)")
        }
    }

    @Test("a run trimmed as its pieces arrive is the run trimmed whole, however it is cut")
    func trimmedPieces() {
        let quiet: [Float] = Array(repeating: 0.001, count: 2_000)
        let loud = Signal.sine(frequency: 200, amplitude: 0.5, sampleRate: 22_050, frameCount: 3_000)
        let runs: [[Float]] = [
            quiet + loud + quiet + loud + quiet, loud, quiet, quiet + loud, loud + quiet, [],
        ]
        for samples in runs {
            let whole = Array(samples[ClipConditioning.playedRange(samples, trimming: .standard)])
            for size in [1, 500, 661, 4_096] {
                var trimmer = ClipConditioning.Trimmer(.standard)
                var trimmed: [Float] = []
                for start in stride(from: 0, to: samples.count, by: size) {
                    trimmed += trimmer.process(Array(samples[start..<min(samples.count, start + size)]))
                }
                trimmed += trimmer.finish()
                #expect(trimmed == whole, "\(samples.count) samples in pieces of \(size)")
            }
        }
    }

    @Test("a run that needs no reduction is the gain alone; one that does reaches its loudness under the ceiling")
    func match() throws {
        let quiet = Self.spiked.map { $0 * 0.1 }
        let plain = try PeakLimiter.match(quiet, loudnessLUFS: -30, ceilingDBTP: -1)
        #expect(plain.samples == quiet)
        let target = -14.0
        let matched = try PeakLimiter.match(Self.spiked, loudnessLUFS: target, ceilingDBTP: -1)
        let played = matched.samples.map { $0 * Float(Decibels.amplitude(matched.levelDecibels)) }
        let loudness = try Loudness(played)
        #expect(abs(try #require(loudness.clipLUFS) - target) < 0.5)
        #expect(try #require(loudness.truePeakDBTP) <= -1 + 0.01)
    }
}
