// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing
import Voicebank
import VoicebankAuthoring

@testable import ConcatSynth

@Suite struct CoverageTests {
    let temporary = TemporaryDirectory("coverage")

    /// A voice with hello, good, morning, good morning, double tap to open, settings, twenty, one; a fallback
    /// clip only when asked.
    func pack(withFallback: Bool) throws -> VoicePack {
        let pack = try VoicePack(path: temporary.file("coverage.sqlite"), access: .create)
        try pack.addVoice(Voice(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]))
        var requests: [ImportRequest] = []
        for (index, phrase) in [
            "hello", "good", "morning", "good morning", "double tap to open", "settings", "twenty", "one",
        ].enumerated() {
            let path = try Fixture.seedClip(
                at: temporary.file("\(index).aiff"), seconds: 0.1, frequency: 200 + 50 * Double(index))
            requests.append(ImportRequest(path: path, phrase: phrase))
        }
        if withFallback {
            requests.append(
                ImportRequest(
                    path: try Fixture.seedClip(at: temporary.file("beep.aiff"), seconds: 0.1), isFallback: true))
        }
        _ = try pack.importFiles(requests, into: nil)
        return pack
    }

    @Test("the segmentation the matcher chose, and the fallbacks counted, most frequent first")
    func knownText() throws {
        let analyzer = try CoverageAnalyzer(pack: pack(withFallback: true))

        let report = try analyzer.analyze([
            ("text 1", "Hello Bob, good morning! Double tap to open the settings, Bob."),
            ("request.ssml", #"<speak>Good <break time="1s"/> morning, Carol Smith. 21 settings</speak>"#),
        ])

        #expect(
            report.inputs.map(\.segmentation) == [
                "hello | [bob] | good morning | double tap to open | [the] | settings | [bob]",
                "good | morning | [carol smith] | twenty | one | settings",
            ])
        #expect(report.fallbackPhrases.map { "\($0.count) \($0.text)" } == ["2 bob", "1 the", "1 carol smith"])
        #expect(report.fallbackWords.map { "\($0.count) \($0.text)" } == ["2 bob", "1 the", "1 carol", "1 smith"])
        #expect(report.tokenCount == 18)
        #expect(report.coveredTokenCount == 13)
        #expect(report.description.hasSuffix("covered: 13 of 18 tokens (72.2 %)"))
        #expect(
            report.inputs[0].pieces[1] == CoverageReport.Piece(text: "bob", isFallback: true, voice: "com.example.ann"))
    }

    @Test("a voice without a fallback clip is analysed all the same: its missing words are listed, not an error")
    func noFallback() throws {
        let pack = try pack(withFallback: false)
        #expect(throws: ConcatSynthError.noFallbackClip(voice: "com.example.ann", words: "bob")) {
            try Synthesizer(pack: pack).plan("hello bob")
        }

        let report = try CoverageAnalyzer(pack: pack).analyze([("text 1", "hello bob")])

        #expect(report.inputs.map(\.segmentation) == ["hello | [bob]"])
    }

    @Test("malformed SSML is an error naming line and column; lenient reads its text with a warning")
    func malformed() throws {
        let analyzer = try CoverageAnalyzer(pack: pack(withFallback: true))
        #expect(throws: ConcatSynthError.self) { try analyzer.analyze([("t", "<speak>hello")]) }
        let report = try analyzer.analyze([("t", "<speak>hello")], lenient: true)
        #expect(report.inputs.map(\.segmentation) == ["hello"])
        #expect(report.warnings.count == 1)
    }
}
