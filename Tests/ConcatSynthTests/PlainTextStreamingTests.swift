// SPDX-License-Identifier: GPL-3.0-or-later
import Planning
import SpeechCore
import SpeechTestSupport
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth
@testable import SSML

/// Plain text read as it is spoken sounds exactly like the same text given whole.
@Suite struct PlainTextStreamingTests {
    @Test("streamed plain text renders the samples and markers of the whole text")
    func sameAsWhole() throws {
        let temporary = TemporaryDirectory("streamed-text")
        let pack = try VoicePack(path: temporary.file("pack.sqlite"), access: .create)
        try pack.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in ["good morning", "good", "morning", "everyone", "nice to meet you", "sorry"].enumerated()
        {
            let path = temporary.file("\(phrase.replacingOccurrences(of: " ", with: "_")).aiff")
            try Fixture.seedClip(at: path, seconds: 0.05 + 0.01 * Double(index), frequency: 200 + 60 * Double(index))
            requests.append(ImportRequest(path: path, isFallback: phrase == "sorry"))
        }
        _ = try pack.importFiles(requests, into: nil)
        let synthesizer = try Synthesizer(pack: pack)

        let sentence = "Good morning everyone, nice to meet you. Good morning, Bob! 42 good\nmorning everyone. "
        let text = String(repeating: sentence, count: 40)
        let whole = try render(synthesizer, SpeechRequest(text, prosody: Prosody(rate: 1.5)))
        // Small pieces put phrases ("good morning everyone") across the cuts.
        var remaining = Array(text.utf8)[...]
        let pieces = PlainTextStream(source: "test", start: [], pieceBytes: 11) {
            defer { remaining = remaining.dropFirst(5) }
            return Array(remaining.prefix(5))
        }
        let streamed = try render(
            synthesizer, SpeechRequest(.textStream(StreamedText(pieces)), prosody: Prosody(rate: 1.5)))
        // Per repetition, three sentences and their phrases: good morning, everyone, nice to meet you; good morning,
        // bob (a fallback); forty two (a fallback: no clip covers the number's words either), good morning, everyone.
        #expect(streamed.markers.count == 40 * (3 + 8))
        #expect(streamed.markers.filter { $0.hasPrefix(#"{"kind":"sentence""#) }.count == 40 * 3)
        #expect(streamed.markers == whole.markers)
        #expect(streamed.samples == whole.samples)
    }

    func render(_ synthesizer: Synthesizer, _ request: SpeechRequest) throws -> (samples: [Float], markers: [String]) {
        let renderer = try synthesizer.renderer(for: request)
        var samples: [Float] = []
        var markers = MarkerSequence()
        var block = [Float](repeating: 0, count: 1_000)
        while true {
            let pulled = try block.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += block[..<pulled.frameCount]
            for marker in renderer.reachedMarkers { markers.add(marker) }
            if pulled.isComplete { break }
        }
        return (samples, markers.takeReady().map(\.jsonLine))
    }
}
