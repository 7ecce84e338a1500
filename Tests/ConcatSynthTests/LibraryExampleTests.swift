// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import TestSupport
import Testing

/// The library's own example (docs/library.md), written with `import ConcatSynth` alone: the facade is all a
/// program needs.
@Suite struct LibraryExampleTests {
    /// The repository's default pack, found as the tools find it from a build folder.
    static let defaultPack = ScreenReaderPack.path

    @Test("a request rendered by pull gives its audio, markers and notes")
    func speak() throws {
        let synthesizer = try Synthesizer(bank: Self.defaultPack, voice: "org.concatsynth.en")
        let request = SpeechRequest(
            .ssml(#"<speak>Hello <break time="250ms"/> world</speak>"#), prosody: Prosody(rate: 2))
        var notes: [String] = []
        let renderer = try synthesizer.renderer(for: request) { note in notes.append("\(note)") }
        var buffer = [Float](repeating: 0, count: 1024)
        var frames = 0
        var markers: [Marker] = []
        while true {
            let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
            frames += pulled.frameCount
            markers += renderer.reachedMarkers.map(\.marker)
            if pulled.isComplete { break }
        }
        let plan = try synthesizer.plan(request)
        #expect(frames == plan.frameCount)
        #expect(frames > 5_513)
        // The sentence inferred around the text is reported when the audio reaches its end.
        #expect(markers.map(\.text) == ["hello", "world", "hello world"])
        #expect(notes == ["fallback: no clip for \"world\" in voice org.concatsynth.en"])
    }

    @Test("a pool lends each thread a synthesizer of its own")
    func pool() throws {
        let pool = SynthesizerPool(bank: Self.defaultPack)
        let frameCounts = try (0..<4).map { _ in
            try pool.borrow { synthesizer in try synthesizer.plan(SpeechRequest(.text("Good morning"))).frameCount }
        }
        #expect(Set(frameCounts).count == 1)
        let voices: [VoiceSettings] = try Synthesizer.voices(bank: Self.defaultPack)
        #expect(voices.contains { $0.identifier == "org.concatsynth.ja" })
    }
}
