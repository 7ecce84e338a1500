import AudioIO
import CSQLite
import Foundation
import Testing

@testable import Voicebank
import TestSupport

/// End-to-end tests of the pack builder's tools: import --transcript, export, info, remove, verify, coverage.
@Suite struct PackToolsCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("voicebank-tools")
    var bank: String { directory.file("pack.sqlite") }

    func create(_ identifier: String = "com.example.ann", language: String = "en-US") throws {
        let result = try voicebank.run(["create", "--bank", bank, "--voice", identifier, "--name", "Ann", "--language", language])
        try #require(result.status == 0, "\(result.standardError)")
    }

    /// A folder `clips/` with three clips, one in a subfolder, and a stray file no transcript names.
    func clipsFolder() throws -> String {
        try FileManager.default.createDirectory(atPath: directory.file("clips/more"), withIntermediateDirectories: true)
        try Fixture.seedClip(at: directory.file("clips/001.aiff"), frequency: 300)
        try Fixture.seedClip(at: directory.file("clips/more/002.aiff"), frequency: 400)
        try Fixture.seedClip(at: directory.file("clips/beep.aiff"), frequency: 880)
        try Fixture.seedClip(at: directory.file("clips/stray.aiff"), frequency: 500)
        try "file\ttext\trole\n001.aiff\tGood morning\t\nmore/002\tDouble tap to open\t\nbeep\t\tfallback\nlost.aiff\tNever recorded\t\n"
            .write(toFile: directory.file("clips/transcript.tsv"), atomically: true, encoding: .utf8)
        return directory.file("clips")
    }

    // MARK: import --transcript

    @Test("import --transcript takes each file's phrase from its line, walks folders, and warns about the rest")
    func importTranscript() throws {
        try create()
        let clips = try clipsFolder()

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", clips + "/transcript.tsv", clips])

        #expect(result.status == 0)
        #expect(result.standardOutput.contains("3 imported"))
        #expect(
            result.standardError == """
                warning: \(clips)/transcript.tsv has no line for \(clips)/stray.aiff; not imported
                warning: \(clips)/transcript.tsv line 5 names lost.aiff, which is not among the files given

                """)
        let stored = try VoicePack(path: bank, access: .readOnly).clips()
        #expect(stored.map(\.phrase) == ["Good morning", "Double tap to open", "beep"])
        #expect(stored.map(\.isFallback) == [false, false, true])
    }

    @Test("--transcript alone imports its own folder; --strict-transcript makes loose ends an error that stores nothing")
    func strictTranscript() throws {
        try create()
        let clips = try clipsFolder()

        let strict = try voicebank.run(["import", "--bank", bank, "--strict-transcript", "--transcript", clips + "/transcript.tsv"])

        #expect(strict.status == 1)
        #expect(strict.standardError.split(separator: "\n").count == 1)
        #expect(strict.standardError.contains("no line for \(clips)/stray.aiff and no file for line 5 (lost.aiff)"))
        #expect(try VoicePack(path: bank, access: .readOnly).clips().isEmpty)

        let loose = try voicebank.run(["import", "--bank", bank, "--transcript", clips + "/transcript.tsv"])
        #expect(loose.status == 0)
        #expect(try VoicePack(path: bank, access: .readOnly).clips().count == 3)
    }

    @Test("a transcript in no known format is a one-line error naming it and the formats accepted")
    func badTranscript() throws {
        try create()
        let clips = try clipsFolder()
        try "just words\n".write(toFile: directory.file("t.txt"), atomically: true, encoding: .utf8)

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", directory.file("t.txt"), clips])

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: transcript \(directory.file("t.txt")): cannot tell its format from the first line \"just words\"; \(Transcript.expectedFormats)\n")
    }

    @Test(
        "import's argument shapes are usage errors",
        arguments: [
            ["import", "--transcript", "t.tsv", "--text", "Hi", "a.wav"], ["import", "--strict-transcript", "a.wav"],
            ["import"],
        ])
    func importUsage(arguments: [String]) throws {
        #expect(try voicebank.run(arguments + ["--bank", bank]).status == 64)
    }
}
