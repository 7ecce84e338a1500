// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import Foundation
import SpeechCore
import TestSupport
import Testing

/// The take features import measures (`TakeAnalyzer`), on voices whose F0 the test knows: a buzz of harmonics, as a
/// voiced sound is, whose fundamental follows a given path.
@Suite struct TakeAnalyzerTests {
    static let sampleRate = 22_050

    /// `seconds` of a voice-like buzz (ten harmonics falling off as 1/k) whose F0 moves from `startHz` to `endHz` on a
    /// logarithmic path (a steady semitone rate), at 0.3 peak.
    static func voice(from startHz: Double, to endHz: Double, seconds: Double) -> [Float] {
        let count = Int(seconds * Double(sampleRate))
        var phase = 0.0
        return (0..<count).map { frame in
            let progress = Double(frame) / Double(count)
            phase += 2 * .pi * startHz * pow(endHz / startHz, progress) / Double(sampleRate)
            let buzz = (1...10).reduce(0.0) { $0 + sin(Double($1) * phase) / Double($1) }
            return Float(0.15 * buzz)
        }
    }

    @Test("a steady 220 Hz voice: F0 at both edges within 1 %, a level contour, 13 finite cepstral coefficients")
    func steadyVoice() throws {
        let measurement = try TakeAnalyzer.measure(Self.voice(from: 220, to: 220, seconds: 0.8))

        let first = try #require(measurement.edges.firstF0Hz)
        let last = try #require(measurement.edges.lastF0Hz)
        #expect(abs(first - 220) / 220 < 0.01, "first F0 \(first) Hz")
        #expect(abs(last - 220) / 220 < 0.01, "last F0 \(last) Hz")
        #expect(abs(try #require(measurement.medianF0Hz) - 220) / 220 < 0.01)
        #expect(measurement.contour == .level)
        for cepstrum in [measurement.edges.firstCepstrum, measurement.edges.lastCepstrum] {
            #expect(cepstrum.count == TakeEdges.cepstrumCount)
            #expect(cepstrum.allSatisfy { $0.isFinite })
        }
        // The same steady sound at both ends: the same spectrum, so (nearly) the same cepstrum.
        let distance = zip(measurement.edges.firstCepstrum, measurement.edges.lastCepstrum).map { abs($0 - $1) }.max()
        #expect(try #require(distance) < 1, "\(measurement.edges)")
    }

    @Test(
        "a glide gets its direction: rising and falling by 4 semitones over its last 200 ms, level at 0.5",
        arguments: [(220.0, 277.2, PitchContour.rising), (277.2, 220, .falling), (220, 226.4, .level)])
    func glides(startHz: Double, endHz: Double, contour: PitchContour) throws {
        // A steady start, then the glide over the last 300 ms: the contour looks at the end only.
        let samples =
            Self.voice(from: startHz, to: startHz, seconds: 0.4) + Self.voice(from: startHz, to: endHz, seconds: 0.3)

        let measurement = try TakeAnalyzer.measure(samples)

        #expect(measurement.contour == contour, "\(startHz) → \(endHz) Hz")
        #expect(abs(try #require(measurement.edges.firstF0Hz) - startHz) / startHz < 0.01)
        // The last voiced hops' windows end within the glide's last 35 ms and reach 46 ms back: a fraction of a
        // semitone behind its end.
        let lastF0 = try #require(measurement.edges.lastF0Hz)
        #expect(abs(12 * log2(lastF0 / endHz)) < 0.75, "last F0 \(lastF0) Hz")
    }

    @Test("silence has no F0 and no contour, and edges at the silence level")
    func silence() throws {
        let measurement = try TakeAnalyzer.measure([Float](repeating: 0, count: 11_025))

        #expect(measurement.edges.firstF0Hz == nil)
        #expect(measurement.edges.lastF0Hz == nil)
        #expect(measurement.medianF0Hz == nil)
        #expect(measurement.contour == nil)
        #expect(measurement.edges.firstEnergyDecibels == TakeEdges.silenceDecibels)
        #expect(measurement.edges.lastEnergyDecibels == TakeEdges.silenceDecibels)
    }

    @Test("the edge levels are the RMS of the first and last sounding 512 frames, whatever lies between")
    func edgeLevels() throws {
        // Loud at the start (-10 dBFS RMS), soft at the end (-30 dBFS, within the 30 dB that count as sounding), silent
        // between, and 768 frames of silence at each end, three half steps of the analysis frame.
        let loud = Signal.sine(frequency: 500, amplitude: 0.316 * 2.0.squareRoot(), sampleRate: 22_050, frameCount: 512)
        let soft = Signal.sine(
            frequency: 500, amplitude: 0.0316 * 2.0.squareRoot(), sampleRate: 22_050, frameCount: 512)
        let pad = [Float](repeating: 0, count: 768)
        let samples = pad + loud + [Float](repeating: 0, count: 4_000) + soft + pad

        let edges = try TakeAnalyzer.measure(samples).edges

        #expect(abs(edges.firstEnergyDecibels - -10) < 0.2, "\(edges.firstEnergyDecibels)")
        #expect(abs(edges.lastEnergyDecibels - -30) < 0.2, "\(edges.lastEnergyDecibels)")
    }

    @Test("a take shorter than an analysis frame is measured over what it has")
    func shortTake() throws {
        let samples = Signal.sine(frequency: 300, amplitude: 0.5, sampleRate: 22_050, frameCount: 200)

        let measurement = try TakeAnalyzer.measure(samples)

        #expect(measurement.edges.firstF0Hz == nil)
        #expect(abs(measurement.edges.firstEnergyDecibels - 20 * log10(0.5 / 2.0.squareRoot())) < 0.5)
        #expect(measurement.edges.firstCepstrum.count == TakeEdges.cepstrumCount)
        #expect(measurement.edges.firstCepstrum.allSatisfy { $0.isFinite })
    }

    @Test(
        "the contour classes a movement at 1.5 semitones either way",
        arguments: [
            (-3.0, PitchContour.falling), (-1.5, .falling), (-1.4, .level), (0, .level), (1.4, .level),
            (1.5, .rising), (6, .rising),
        ])
    func contourThresholds(semitones: Double, contour: PitchContour) {
        #expect(TakeAnalyzer.contour(semitones) == contour)
    }
}
