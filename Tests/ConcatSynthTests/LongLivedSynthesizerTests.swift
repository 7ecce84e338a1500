import SpeechTestSupport
import TestSupport
import Testing
import Voicebank

@testable import ConcatSynth

/// A synthesizer kept open between requests, as a server or a speech-dispatcher module keeps one.
@Suite struct LongLivedSynthesizerTests {
    @Test("a synthesizer kept open speaks the clips another program imported after its last request")
    func seesLaterImports() throws {
        let temporary = TemporaryDirectory("long-lived")
        let path = temporary.file("pack.sqlite")
        let writer = try VoicePack(path: path, access: .create)
        try writer.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in ["hello", "sorry"].enumerated() {
            let clip = temporary.file("\(phrase).aiff")
            try Fixture.seedClip(at: clip, seconds: 0.1, frequency: 300 + 100 * Double(index))
            requests.append(ImportRequest(path: clip, isFallback: phrase == "sorry"))
        }
        _ = try writer.importFiles(requests, into: nil)

        let synthesizer = try Synthesizer(pack: VoicePack(path: path, access: .readOnly))
        var fallbacks: [String] = []
        func render() throws {
            let renderer = try synthesizer.renderer(for: SpeechRequest("hello world")) { note in
                if case .fallback(let words, _) = note { fallbacks.append(words) }
            }
            _ = try pullAll(renderer, blockSize: 512)
        }
        try render()
        #expect(fallbacks == ["world"])

        let world = temporary.file("world.aiff")
        try Fixture.seedClip(at: world, seconds: 0.1, frequency: 700)
        _ = try writer.importFiles([ImportRequest(path: world)], into: nil)
        fallbacks = []
        try render()
        #expect(fallbacks.isEmpty)
    }
}
