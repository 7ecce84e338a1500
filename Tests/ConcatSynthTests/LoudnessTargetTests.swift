// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechTestSupport
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

@Suite struct LoudnessTargetTests {
    /// A pack whose clips are the same tone at very different levels, one of them shorter than 400 ms.
    static func pack(in directory: TemporaryDirectory) throws -> VoicePack {
        let pack = try VoicePack(path: directory.file("loud.sqlite"), access: .create)
        try pack.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en"]))
        let levels: [(String, Double, Int)] = [
            ("quiet", 0.02, 22_050), ("middle", 0.1, 22_050), ("loud", 0.5, 22_050), ("short", 0.05, 4_000),
        ]
        var requests: [ImportRequest] = []
        for (name, amplitude, frames) in levels {
            let path = try Fixture.write(
                Signal.sine(frequency: 500, amplitude: amplitude, sampleRate: 22_050, frameCount: frames),
                to: directory.file("\(name).wav"), format: .init(.wav, .float32), sampleRate: 22_050)
            requests.append(ImportRequest(path: path))
        }
        _ = try pack.importFiles(requests, into: nil)
        return pack
    }

    func rendered(_ word: String, with pack: VoicePack) throws -> Loudness {
        let synthesizer = try Synthesizer(pack: pack)
        return try Loudness(pullAll(synthesizer.renderer(for: synthesizer.plan(word)), blockSize: 4_096).samples)
    }

    @Test("every clip renders within 0.5 LU of the voice's target, short clips too")
    func target() throws {
        let directory = TemporaryDirectory()
        let pack = try Self.pack(in: directory)
        let before = try ["quiet", "loud"].map { try #require(try rendered($0, with: pack).clipLUFS) }
        #expect(before[1] - before[0] > 25)

        try pack.setLoudnessTarget(LoudnessTarget(targetLUFS: -20), voice: "com.example.ann")

        for word in ["quiet", "middle", "loud", "short"] {
            let loudness = try #require(try rendered(word, with: pack).clipLUFS)
            #expect(abs(loudness - -20) < 0.5, "\(word): \(loudness) LUFS")
        }
    }

    @Test("the true-peak ceiling holds a clip back from a target it could only reach by clipping")
    func ceiling() throws {
        let directory = TemporaryDirectory()
        let pack = try Self.pack(in: directory)
        try pack.setLoudnessTarget(LoudnessTarget(targetLUFS: -3, truePeakCeilingDBTP: -6), voice: "com.example.ann")

        let loud = try rendered("loud", with: pack)
        let peak = try #require(loud.truePeakDBTP)
        #expect(peak <= -6 + 0.1)
        #expect(peak > -6 - 0.5)
        #expect(try #require(loud.clipLUFS) < -3)
    }

    @Test("clips never measured (packs from before loudness) are measured when a target is set; none plays as recorded")
    func backfill() throws {
        let directory = TemporaryDirectory()
        let pack = try Self.pack(in: directory)
        try execute(
            "UPDATE clip SET loudness_lufs = NULL, true_peak_dbtp = NULL, is_loudness_measured = 0", on: pack.path)
        #expect(try pack.clipLoudness(voice: "com.example.ann").isEmpty)

        let measured = try pack.setLoudnessTarget(LoudnessTarget(targetLUFS: -20), voice: "com.example.ann")

        #expect(measured.count == 4)
        #expect(measured.allSatisfy { abs(($0.playedLUFS ?? 0) - -20) < 0.01 })
        try pack.setLoudnessTarget(nil, voice: "com.example.ann")
        #expect(try pack.clipLoudness(voice: "com.example.ann").allSatisfy { $0.gainDecibels == 0 })
        #expect(throws: VoicebankError.invalidLoudnessTarget(LoudnessTarget(targetLUFS: 3))) {
            try pack.setLoudnessTarget(LoudnessTarget(targetLUFS: 3), voice: "com.example.ann")
        }
    }
}
