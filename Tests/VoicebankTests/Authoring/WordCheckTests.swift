// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Recognition
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// The check by listening as a library call: takes spoken by espeak-ng (through its library), heard by pocketsphinx.
@Suite struct WordCheckTests {
    /// Ann's takes of east, west, north and two, and a fallback clip.
    func compassPack() throws -> TemporaryPack {
        let temporary = try TemporaryPack()
        var requests: [ImportRequest] = []
        for phrase in ["east", "west", "north", "two"] {
            let samples = try EspeakNG.shared.synthesize(phrase, language: "en-US")
            let path = try Fixture.write(
                samples, to: temporary.directory.file("\(phrase).wav"), format: .init(.wav, .pcm16), sampleRate: 22_050)
            requests.append(ImportRequest(path: path))
        }
        let beep = try Fixture.seedClip(at: temporary.directory.file("beep.aiff"), frequency: 880)
        requests.append(ImportRequest(path: beep, isFallback: true))
        _ = try temporary.pack.importFiles(requests, into: nil)
        return temporary
    }

    @Test("one take, not yet in the pack, at its own rate: the check the studio makes before it keeps a take")
    func oneTake() throws {
        let temporary = try compassPack()
        let checker = try #require(try temporary.pack.wordChecker(voice: "com.example.ann", recognizer: Recognizer()))
        #expect(checker.phrases == ["east", "west", "north", "two"])
        let west = try SampleRateConversion.convert(
            EspeakNG.shared.synthesize("west", language: "en-US"), from: 22_050, to: 48_000)

        #expect(try checker.check(west, sampleRate: 48_000, phrase: "West") == .matches)
        #expect(try checker.check(west, sampleRate: 48_000, phrase: "East") == .differs(heard: ["west"]))
        // A phrase the voice has no take of yet joins the grammar for its own check.
        let hello = try EspeakNG.shared.synthesize("hello", language: "en-US")
        #expect(try checker.check(hello, phrase: "Hello!") == .matches)
        #expect(try checker.check(hello, phrase: "Zorbleflux") == .uncheckable(unknownWords: ["zorbleflux"]))
        #expect(try checker.check(hello, phrase: "…") == .uncheckable(unknownWords: []))
    }

    @Test("a homophone of the take's phrase among the voice's phrases is the phrase: \"to\" sounds as \"two\"")
    func homophone() throws {
        let temporary = try compassPack()
        let checker = try #require(try temporary.pack.wordChecker(voice: "com.example.ann", recognizer: Recognizer()))
        let two = try EspeakNG.shared.synthesize("two", language: "en-US")
        #expect(try checker.check(two, phrase: "to") == .matches)
    }

    @Test("the pack's report: the take that says another word is its one problem; other languages are skipped")
    func report() throws {
        let temporary = try compassPack()
        let wrong = try Fixture.write(
            EspeakNG.shared.synthesize("north", language: "en-US"), to: temporary.directory.file("take.wav"),
            format: .init(.wav, .pcm16), sampleRate: 22_050)
        let imported = try temporary.pack.importFiles([ImportRequest(path: wrong, phrase: "west")], into: nil)
        let wrongID = try #require(imported.imported.first?.id)
        try temporary.pack.addVoice(Voice(identifier: "com.example.hana", name: "Hana", primaryLanguages: ["ja-JP"]))

        let report = try temporary.pack.checkWords(recognizer: Recognizer())

        #expect(report.takes.count == 5)
        #expect(report.takes.filter { $0.check == .matches }.count == 4)
        #expect(report.problems.map(\.clipID) == [wrongID])
        #expect(report.problems.map(\.kind) == [.words])
        #expect(report.skippedVoices.map(\.identifier) == ["com.example.hana"])
        #expect(
            report.notes == ["voice com.example.hana (ja-JP) not checked: the recogniser hears English only"])
    }
}
