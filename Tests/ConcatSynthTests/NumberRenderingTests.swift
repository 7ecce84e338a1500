// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechTestSupport
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

@Suite struct NumberRenderingTests {
    @Test("a pack of digit and number words renders any number, clip after clip")
    func rendersNumber() throws {
        let temporary = TemporaryDirectory("numbers")
        let pack = try VoicePack(path: temporary.file("numbers.sqlite"), access: .create)
        try pack.addVoice(Voice(identifier: "com.example.numbers", name: "Numbers", primaryLanguages: ["en-US"]))
        let words = ["one", "two", "three", "four", "twenty", "thirty", "hundred", "thousand"]
        var requests: [ImportRequest] = []
        for (index, word) in words.enumerated() {
            let path = temporary.file("\(word).aiff")
            try Fixture.seedClip(at: path, seconds: 0.1 + 0.01 * Double(index), frequency: 200 + 50 * Double(index))
            requests.append(ImportRequest(path: path))
        }
        _ = try pack.importFiles(requests, into: nil)
        let frames = Dictionary(uniqueKeysWithValues: try pack.clips().map { ($0.phrase, $0.frameCount) })

        let synthesizer = try Synthesizer(pack: pack)
        let plan = try synthesizer.renderPlan(#"<speak><say-as interpret-as="cardinal">1234</say-as> 3021</speak>"#)
        let rendered = try pullAll(synthesizer.renderingRenderer(for: plan), blockSize: 1_000).samples

        let spoken = ["one", "thousand", "two", "hundred", "thirty", "four", "three", "thousand", "twenty", "one"]
        #expect(plan.segments.filter(\.segment.isClip).map(\.text) == spoken)
        #expect(plan.fallbacks.isEmpty)
        #expect(rendered.count == spoken.reduce(0) { $0 + frames[$1]! })
    }
}
