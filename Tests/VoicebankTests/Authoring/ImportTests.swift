// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

@Suite struct ImportTests {
    @Test(
        "a file name gives the phrase: no folders, no extension, _ and - as spaces",
        arguments: [
            ("clips/double_tap_to_open.aiff", "double tap to open"), ("Hello.aiff", "Hello"),
            ("/a/b/wi-fi.wav", "wi fi"), ("設定.aiff", "設定"), ("no_extension", "no extension"),
            (".hidden", ".hidden"), ("two.dots.wav", "two.dots"),
        ])
    func phraseFromFileName(path: String, phrase: String) {
        #expect(ImportRequest.phrase(forFileAt: path) == phrase)
    }

    @Test("an imported seed clip keeps its source facts, its original PCM and a 22050 Hz copy of the documented length")
    func importSeedClip() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"), seconds: 0.5)

        let report = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)

        let clip = try #require(report.imported.first)
        #expect(clip.phrase == "Hello")
        #expect(clip.phraseKey == "hello")
        #expect(clip.voice == "com.example.ann")
        #expect(clip.sourceName == "Hello.aiff")
        #expect(clip.source.sampleRate == 24_000)
        #expect(clip.source.frameCount == 12_000)
        #expect(clip.frameCount == 11_025)
        #expect(!clip.isFallback)
        let expected = try PreparedClip(path: path)
        var conditioned = expected.renderReady
        ClipConditioning.removeDC(&conditioned)
        #expect(try temporary.pack.renderReadyPCM(clipID: clip.id) == conditioned)
        #expect(try temporary.pack.originalPCM(clipID: clip.id) == expected.original)
        #expect(try temporary.pack.clips() == [clip])
    }

    @Test("--text names the phrase; the same phrase again is a second take")
    func takes() throws {
        let temporary = try TemporaryPack()
        let first = try Fixture.seedClip(at: temporary.directory.file("take1.aiff"), frequency: 440)
        let second = try Fixture.seedClip(at: temporary.directory.file("take2.aiff"), frequency: 550)

        let report = try temporary.pack.importFiles(
            [ImportRequest(path: first, phrase: "Good morning!"), ImportRequest(path: second, phrase: "good MORNING")],
            into: "com.example.ann")

        #expect(report.imported.map(\.phraseKey) == ["good morning", "good morning"])
        #expect(report.imported.map(\.phrase) == ["Good morning!", "good MORNING"])
        #expect(try temporary.clipCount() == 2)
    }

    @Test("importing the same audio with the same phrase again is skipped and reported")
    func reimport() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"))
        let copy = try Fixture.seedClip(at: temporary.directory.file("hello.aiff"))
        let first = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)

        let again = try temporary.pack.importFiles([ImportRequest(path: path), ImportRequest(path: copy)], into: nil)
        let otherPhrase = try temporary.pack.importFiles([ImportRequest(path: path, phrase: "hi")], into: nil)

        #expect(again.imported.isEmpty)
        #expect(again.skipped.map(\.existing.id) == [first.imported[0].id, first.imported[0].id])
        #expect(otherPhrase.imported.count == 1)
        #expect(try temporary.clipCount() == 2)
    }

    @Test("a fallback clip is marked, and may have a phrase that normalises to nothing")
    func fallback() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("___.aiff"))
        #expect(throws: AuthoringError.emptyPhrase(file: path, phrase: "")) {
            try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        }

        let report = try temporary.pack.importFiles([ImportRequest(path: path, isFallback: true)], into: nil)

        #expect(report.imported.map(\.isFallback) == [true])
        #expect(try temporary.pack.clips().map(\.isFallback) == [true])
    }

    @Test("if any file fails, nothing of the run is stored and the error names the file")
    func transaction() throws {
        let temporary = try TemporaryPack()
        let good = try (1...3).map {
            try Fixture.seedClip(at: temporary.directory.file("good\($0).aiff"), frequency: Double(300 * $0))
        }
        let bad = temporary.directory.file("broken.wav")
        try "RIFF nonsense".write(toFile: bad, atomically: true, encoding: .utf8)
        let requests = [good[0], good[1], bad, good[2]].map { ImportRequest(path: $0) }

        #expect { try temporary.pack.importFiles(requests, into: nil) } throws: { error in
            guard case .audio(.unreadable(bad, _)) = error as? AuthoringError else { return false }
            return "\(error)".contains("broken.wav")
        }
        #expect(try temporary.clipCount() == 0)
        #expect(try temporary.pack.integrityCheck() == ["ok"])
    }

    @Test("keepGoing stores the good files and reports the bad ones")
    func keepGoing() throws {
        let temporary = try TemporaryPack()
        let good = try Fixture.seedClip(at: temporary.directory.file("good.aiff"))
        let missing = temporary.directory.file("missing.aiff")

        let report = try temporary.pack.importFiles(
            [ImportRequest(path: missing), ImportRequest(path: good)], into: nil, keepGoing: true)

        #expect(report.imported.map(\.phrase) == ["good"])
        #expect(report.failed.map(\.path) == [missing])
        #expect(try temporary.clipCount() == 1)
    }

    @Test("the voice must be named when the pack has several, and must exist")
    func voiceChoice() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"))
        try temporary.pack.addVoice(Voice(identifier: "com.example.ben", name: "Ben", primaryLanguages: ["en-GB"]))

        #expect(
            throws: AuthoringError.store(
                .ambiguousVoice(available: ["com.example.ann", "com.example.ben"], path: temporary.pack.path))
        ) {
            try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        }
        #expect(
            throws: AuthoringError.store(
                .unknownVoice(
                    identifier: "com.example.cy", available: ["com.example.ann", "com.example.ben"],
                    path: temporary.pack.path))
        ) {
            try temporary.pack.importFiles([ImportRequest(path: path)], into: "com.example.cy")
        }
        let report = try temporary.pack.importFiles([ImportRequest(path: path)], into: "com.example.ben")
        #expect(try temporary.pack.clips(voice: "com.example.ben") == report.imported)
        #expect(try temporary.pack.clips(voice: "com.example.ann").isEmpty)
    }

    @Test("a different converter can be asked for, and is recorded in the length rule all the same")
    func converter() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("Hello.aiff"), seconds: 0.3)
        let report = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil, converter: .linear)
        #expect(
            report.imported.first?.frameCount
                == SampleRateConversion.convertedFrameCount(7_200, from: 24_000, to: 22_050))
    }
}
