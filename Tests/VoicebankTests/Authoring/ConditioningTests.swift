// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct ConditioningTests {
    /// Silence, a tone, a soft stretch below the threshold, the tone again, silence.
    static let framed: [Float] = {
        let tone = Signal.sine(frequency: 300, amplitude: 0.5, sampleRate: 22_050, frameCount: 2_205)
        let soft = [Float](repeating: 0.0001, count: 1_000)
        let silence = [Float](repeating: 0, count: 11_025)
        return silence + tone + soft + tone + silence
    }()

    @Test("trimming cuts the silent ends, keeps the pad, and never cuts audio above the threshold")
    func trims() {
        let trimming = Trimming(thresholdDecibels: -50, padFrames: 661)
        let threshold = Float(0.003_162_277_7)
        let played = ClipConditioning.playedRange(Self.framed, trimming: trimming)
        let loud = Self.framed.indices.filter { abs(Self.framed[$0]) >= threshold }

        #expect(played.lowerBound == loud.first! - 661)
        #expect(played.upperBound == loud.last! + 1 + 661)
        #expect(loud.allSatisfy(played.contains))
        // The soft stretch between the tones stays: only the ends are trimmed.
        #expect(played.contains(11_025 + 2_205 + 500))
    }

    @Test("a clip with nothing above the threshold, or no trimming, plays whole")
    func whole() {
        let quiet = [Float](repeating: 0.0001, count: 500)
        #expect(ClipConditioning.playedRange(quiet, trimming: .standard) == 0..<500)
        #expect(ClipConditioning.playedRange(Self.framed, trimming: nil) == 0..<Self.framed.count)
        #expect(
            ClipConditioning.playedRange([0, 1, 0], trimming: Trimming(thresholdDecibels: -6, padFrames: 100)) == 0..<3)
    }

    @Test("DC offset is removed")
    func dc() {
        var samples = Signal.sine(frequency: 441, sampleRate: 22_050, frameCount: 22_050).map { $0 + 0.25 }
        ClipConditioning.removeDC(&samples)
        #expect(abs(samples.reduce(0, +) / Float(samples.count)) < 1e-6)
    }

    @Test("import trims by the voice's setting, and a new setting re-trims every clip without importing again")
    func retrim() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.write(
            Self.framed, to: temporary.directory.file("framed.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        let clip = try #require(try temporary.pack.importFiles([ImportRequest(path: path)], into: nil).imported.first)
        var conditioned = Self.framed
        ClipConditioning.removeDC(&conditioned)
        let loud = ClipConditioning.playedRange(conditioned, trimming: Trimming(thresholdDecibels: -50, padFrames: 0))
        #expect(abs(loud.count - (2_205 + 1_000 + 2_205)) <= 2)
        #expect(clip.frameCount == loud.count + 2 * 661)

        try temporary.pack.setTrimming(Trimming(thresholdDecibels: -50, padFrames: 100), voice: "com.example.ann")
        #expect(try temporary.pack.clip(id: clip.id).frameCount == loud.count + 200)
        #expect(
            try temporary.pack.renderReadyPCM(clipID: clip.id)
                == Array(conditioned[(loud.lowerBound - 100)..<(loud.upperBound + 100)]))
        #expect(try temporary.pack.voices().first?.trimming == Trimming(thresholdDecibels: -50, padFrames: 100))

        try temporary.pack.setTrimming(nil, voice: "com.example.ann")
        #expect(try temporary.pack.clip(id: clip.id).frameCount == Self.framed.count)
        #expect(try temporary.pack.renderReadyPCM(clipID: clip.id).count == Self.framed.count)
    }

    @Test("parallel import stores the same pack as serial import, and reports progress file by file")
    func parallel() throws {
        let serial = try TemporaryPack()
        let parallel = try TemporaryPack()
        let directory = TemporaryDirectory()
        let paths = try (0..<13).map { index in
            try Fixture.write(
                Signal.sine(frequency: 200 + 37 * Double(index), sampleRate: 48_000, frameCount: 4_800 + 100 * index),
                to: directory.file("clip\(index).wav"), format: .init(.wav, .pcm16), sampleRate: 48_000)
        }
        let requests = paths.map { ImportRequest(path: $0) } + [ImportRequest(path: paths[0])]

        var progress: [Int] = []
        let one = try serial.pack.importFiles(requests, into: nil, parallelism: 1)
        let many = try parallel.pack.importFiles(requests, into: nil, parallelism: 4) { progress.append($0.completed) }

        #expect(one.imported.map(\.phrase) == many.imported.map(\.phrase))
        #expect(many.skipped.count == 1)
        #expect(progress == Array(1...14))
        for (a, b) in zip(try serial.pack.clips(), try parallel.pack.clips()) {
            #expect(a == b)
            #expect(try serial.pack.renderReadyPCM(clipID: a.id) == parallel.pack.renderReadyPCM(clipID: b.id))
            #expect(try serial.pack.originalPCM(clipID: a.id) == parallel.pack.originalPCM(clipID: b.id))
        }
    }
}
