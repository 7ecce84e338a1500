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
        #expect(limited.allSatisfy { $0.magnitude <= 0.5 })
        #expect(limited[11_025] == 0.5)
        // Eased back within a few time constants of the release on either side.
        #expect(limited[..<5_000].elementsEqual(Self.spiked[..<5_000].map { $0 * gain }))
        #expect(limited[17_000...].elementsEqual(Self.spiked[17_000...].map { $0 * gain }))
        // The reduction comes before the peak as well as after it.
        #expect(limited[11_000].magnitude < (Self.spiked[11_000] * gain).magnitude)
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
