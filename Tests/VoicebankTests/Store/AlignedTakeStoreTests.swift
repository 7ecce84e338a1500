// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// The aligned takes a clip index reads for the unit index: aligned takes only, with their words and phones in order.
@Suite struct AlignedTakeStoreTests {
    let directory = TemporaryDirectory("aligned-takes")

    @Test("reads each aligned take's words and phones; failed, unaligned and fallback takes give none")
    func alignedTakes() throws {
        let path = directory.file("pack.sqlite")
        let pack = try VoicePack(path: path, access: .create)
        try pack.addVoice(Voice(identifier: "com.example.a", name: "A", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in ["good night", "hello", "not aligned", ""].enumerated() {
            let file = try Fixture.write(
                Signal.sine(frequency: 200, amplitude: 0.1, sampleRate: 22_050, frameCount: 22_050),
                to: directory.file("\(index).wav"), format: .init(.wav, .float32), sampleRate: 22_050)
            requests.append(
                ImportRequest(path: file, phrase: phrase.isEmpty ? nil : phrase, isFallback: phrase.isEmpty))
        }
        _ = try pack.importFiles(requests, into: nil)
        try execute(
            """
            INSERT INTO alignment VALUES (1, 'test', -10, NULL), (2, 'test', NULL, 'does not match'), (4, 'test', -9, NULL);
            INSERT INTO aligned_word VALUES (1, 1, 'night', 6000, 9000), (1, 0, 'good', 1000, 5000), (4, 0, 'beep', 0, 100);
            INSERT INTO aligned_phone VALUES (1, 0, 0, 'G', 1000, 2000), (1, 2, 0, 'D', 3000, 5000),
                (1, 1, 0, 'UH', 2000, 3000), (1, 3, 1, 'N', 6000, 7000), (4, 0, 0, 'B', 0, 100);
            """, on: path)

        let takes = try pack.clipIndex(voice: nil).alignedTakes()

        try #require(takes.count == 1)
        #expect(takes[0].clipID == 1)
        let played = try #require(try pack.clipIndex(voice: nil).takes(forPhraseKey: "good night").first)
        #expect(
            try pack.clipIndex(voice: nil).audio(clipID: 1)
                == AlignedTake.Audio(
                    levelDecibels: 0, wholeFrameCount: 22_050,
                    playedFrames: played.firstFrame..<played.firstFrame + played.frameCount))
        #expect(takes[0].words.map(\.label) == ["good", "night"])
        #expect(takes[0].words[1].frames == 6_000..<9_000)
        #expect(takes[0].phones.map(\.label) == ["G", "UH", "D", "N"])
        #expect(takes[0].phones.map(\.word) == [0, 0, 0, 1])
    }
}
