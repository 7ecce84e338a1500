// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import SpeechCore
import TestSupport
import Testing

/// Plain text renders in the sentences its punctuation gives, with the default pack's real clips: the same samples
/// and markers as the sentences written as `<s>`, however the text reaches the engine.
@Suite struct InferredSentenceRenderTests {
    static let defaultPack = ScreenReaderPack.path

    /// The samples of `request` and its markers but for their places in the request.
    func render(_ request: SpeechRequest) throws -> (samples: [Float], markers: [String]) {
        let renderer = try Synthesizer(bank: Self.defaultPack, voice: "org.concatsynth.en").renderer(for: request)
        var buffer = [Float](repeating: 0, count: 1_000)
        var samples: [Float] = []
        var markers: [String] = []
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            samples += buffer[..<pulled.frameCount]
            markers += renderer.reachedMarkers.map {
                "\($0.marker.kind) \($0.marker.text.debugDescription) @\($0.marker.frame)+\($0.marker.frameCount)"
            }
            if pulled.isComplete { return (samples, markers) }
        }
    }

    @Test("\"Good morning. Double tap to open.\" as text, SSML-or-text, a stream and explicit <s>: the same render")
    func sameRender() throws {
        let text = "Good morning. Double tap to open."
        let explicit = try render(
            SpeechRequest(.ssml("<speak><s>Good morning.</s> <s>Double tap to open.</s></speak>")))
        var remaining = Array(text.utf8)[...]
        let stream = StreamedText(source: "test input") {
            defer { remaining = remaining.dropFirst(3) }
            return Array(remaining.prefix(3))
        }
        for request in [SpeechRequest(.text(text)), SpeechRequest(.ssml(text)), SpeechRequest(.textStream(stream))] {
            let rendered = try render(request)
            #expect(rendered.samples == explicit.samples)
            #expect(rendered.markers == explicit.markers)
        }
        let sentences = explicit.markers.filter { $0.hasPrefix("sentence") }
        #expect(sentences.count == 2)
        // The pause between them: the first sentence ends 750 ms (16,538 frames) before the second starts.
        let frames = sentences.map { line in
            line.split(separator: "@")[1].split(separator: "+").map { Int($0)! }
        }
        #expect(frames[1][0] - (frames[0][0] + frames[0][1]) == 16_538)
        #expect(explicit.samples[(frames[0][0] + frames[0][1])..<frames[1][0]].allSatisfy { $0 == 0 })
    }
}
