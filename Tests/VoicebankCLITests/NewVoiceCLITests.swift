// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// A new voice as `voicebank create` makes it: the fallback mode it starts in, and what it says of alignment and
/// fallbacks before its takes are aligned.
@Suite struct NewVoiceCLITests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("new-voice")
    var bank: String { directory.file("pack.sqlite") }

    @discardableResult
    func run(_ binary: Binary, _ arguments: [String], environment: [String: String?] = [:]) throws -> Binary.Result {
        let result = try binary.run(arguments, environment: environment)
        try #require(result.status == 0, "\(arguments): \(result.standardError)")
        return result
    }

    @Test("a new English voice starts in units, one of another language with its fallback clip; --fallback chooses")
    func startingMode() throws {
        for (voice, language, extra) in [
            ("com.example.ann", "en-US", [String]()), ("com.example.ben", "en-GB", ["--fallback", "clip"]),
            ("com.example.hana", "ja-JP", []), ("com.example.jun", "ja-JP", ["--fallback", "voice"]),
        ] {
            let created = try run(
                voicebank, ["create", "--bank", bank, "--voice", voice, "--name", "N", "--language", language] + extra)
            #expect(created.standardOutput.hasPrefix("added voice \(voice) "), "\(created.standardOutput)")
        }
        #expect(
            try rows("SELECT identifier, fallback_mode FROM voice ORDER BY id", on: bank) == [
                ["com.example.ann", "units"], ["com.example.ben", "clip"], ["com.example.hana", "clip"],
                ["com.example.jun", "voice"],
            ])
        // A mode the voice's language cannot have is refused before the voice is added.
        let refused = try voicebank.run([
            "create", "--bank", bank, "--voice", "com.example.x", "--name", "X", "--language", "tlh",
            "--fallback", "units",
        ])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("espeak-ng has no voice for tlh"), "\(refused.standardError)")
        #expect(try rows("SELECT count(*) FROM voice WHERE identifier = 'com.example.x'", on: bank) == [["0"]])
    }

    @Test(
        "an unaligned new English voice speaks the words no clip covers with the fallback voice: no warning, reported"
    )
    func unalignedVoiceSpeaksAsVoiceDoes() throws {
        try run(
            voicebank, ["create", "--bank", bank, "--voice", "com.example.ann", "--name", "Ann", "--language", "en"])
        let hello = directory.file("hello.wav")
        try run(Binary(path: "/usr/bin/espeak-ng"), ["-v", "en-us", "-w", hello, "hello"])
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.2, frequency: 880)
        // Imported unaligned (VOICEBANK_ALIGN=0, as the tests run), as with --no-align or no aligner installed.
        try run(voicebank, ["import", "--bank", bank, hello])
        try run(voicebank, ["import", "--bank", bank, "--fallback", beep])
        let markers = directory.file("markers.jsonl")
        let rendered = try run(
            concatSynth,
            ["render", "--bank", bank, "-o", directory.file("out.wav"), "--markers", markers, "hello bob, how are you"])
        #expect(!rendered.standardError.contains("warning"), "\(rendered.standardError)")
        #expect(
            rendered.standardError == "fallback: no clip for \"bob how are you\" in voice com.example.ann\n",
            "\(rendered.standardError)")
        let phrases = try String(contentsOfFile: markers, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"kind\":\"phrase\"") }
        #expect(phrases.count == 2, "\(phrases)")
        #expect(phrases.last?.contains("\"fallback\":\"voice\"") == true, "\(phrases)")
        // The plan says why the units did not speak.
        let plan = try run(concatSynth, ["render", "--bank", bank, "-o", "-", "--plan", "bob"])
        #expect(
            plan.standardError.contains("fallback \"bob\": units declined: the voice has no aligned takes"),
            "\(plan.standardError)")
    }

    @Test("import says nothing of alignment for a voice whose language has no aligner, or with nothing to align")
    func importSaysNothingOfAlignment() throws {
        try run(
            voicebank, ["create", "--bank", bank, "--voice", "com.example.hana", "--name", "H", "--language", "ja"])
        try run(voicebank, ["create", "--bank", bank, "--voice", "com.example.ann", "--name", "A", "--language", "en"])
        let clip = try Fixture.seedClip(at: directory.file("kon.aiff"), seconds: 0.4, frequency: 200)
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.2, frequency: 880)
        // Alignment on, as a person runs import; no aligner is reached in either case.
        let aligning: [String: String?] = ["VOICEBANK_ALIGN": nil, "VOICEBANK_ALIGNER": directory.file("nowhere")]
        for arguments in [
            ["import", "--bank", bank, "--voice", "com.example.hana", clip],
            ["import", "--bank", bank, "--voice", "com.example.ann", "--fallback", beep],
        ] {
            let imported = try run(voicebank, arguments, environment: aligning)
            #expect(!imported.standardError.contains("align"), "\(arguments): \(imported.standardError)")
        }
    }
}
