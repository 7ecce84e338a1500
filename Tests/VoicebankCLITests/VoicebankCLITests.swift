// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import CSQLite
import Foundation
import TestSupport
import Testing

@testable import Voicebank

@Suite struct VoicebankCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("voicebank-cli")
    var bank: String { directory.file("pack.sqlite") }

    func create(_ identifier: String = "com.example.ann", language: String = "en-US") throws -> Binary.Result {
        try voicebank.run(["create", "--bank", bank, "--voice", identifier, "--name", "Ann", "--language", language])
    }

    @Test("create, import and list: the whole path a pack builder takes")
    func createImportList() throws {
        #expect(try create().status == 0)
        let hello = try Fixture.seedClip(at: directory.file("Hello.aiff"))
        let phrase = try Fixture.seedClip(at: directory.file("double_tap_to_open.aiff"), frequency: 330)

        let imported = try voicebank.run(["import", "--bank", bank, hello, phrase])
        let listed = try voicebank.run(["list", "--bank", bank, "--json"])

        #expect(imported.status == 0)
        #expect(imported.standardOutput.contains("2 imported"))
        #expect(listed.status == 0)
        let clips = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(clips.map { $0["phrase"] as? String } == ["Hello", "double tap to open"])
        #expect(clips.map { $0["voice"] as? String } == ["com.example.ann", "com.example.ann"])
        #expect(clips.map { $0["frames"] as? Int } == [11_025, 11_025])
        #expect(clips.map { $0["isFallback"] as? Bool } == [false, false])
        #expect(clips.allSatisfy { $0["id"] is Int })
    }

    @Test("--text, --fallback and --voice reach the pack")
    func options() throws {
        #expect(try create().status == 0)
        #expect(try create("com.example.ben", language: "en-GB").status == 0)
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), frequency: 880)
        let take = try Fixture.seedClip(at: directory.file("take3.aiff"))

        #expect(
            try voicebank.run(["import", "--bank", bank, "--voice", "com.example.ben", "--fallback", beep]).status == 0)
        #expect(
            try voicebank.run(["import", "--bank", bank, "--voice", "com.example.ben", "--text", "Good morning", take])
                .status == 0)

        let clips = try VoicePack(path: bank, access: .readOnly).clips(voice: "com.example.ben")
        #expect(clips.map(\.phrase) == ["beep", "Good morning"])
        #expect(clips.map(\.isFallback) == [true, false])
    }

    @Test("$CONCAT_SYNTH_BANK names the pack when --bank is not given")
    func environment() throws {
        let environment = ["CONCAT_SYNTH_BANK": bank]
        #expect(
            try voicebank.run(
                ["create", "--voice", "com.example.env", "--name", "Env", "--language", "fr"], environment: environment
            ).status == 0)
        let listed = try voicebank.run(["list"], environment: environment)
        #expect(listed.status == 0)
        #expect(listed.standardError.contains(bank))
        #expect(try VoicePack(path: bank, access: .readOnly).voices().map(\.identifier) == ["com.example.env"])
    }

    @Test(
        "a usage error exits 64 with the usage",
        arguments: [
            ["import", "--bank", "x.sqlite"], ["create", "--voice", "a.b"], ["frobnicate"], ["list", "--json=3"],
        ])
    func usageErrors(arguments: [String]) throws {
        let result = try voicebank.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardError.contains("Usage") || result.standardError.contains("Error"))
    }

    @Test("a failure exits 1 with one line that names the input")
    func failures() throws {
        let missingPack = try voicebank.run(["list", "--bank", directory.file("none.sqlite")])
        #expect(missingPack.status == 1)
        // The library says what is wrong; the tool adds the command that makes a pack, with its flags.
        let none = directory.file("none.sqlite")
        #expect(
            missingPack.standardError
                == "Error: no voice pack at \(none); create one with `voicebank create --bank \(none) --voice ID --name NAME --language TAG`\n"
        )
        #expect(!"\(VoicebankError.noPack(path: none))".contains("--"))

        #expect(try create().status == 0)
        let duplicate = try create()
        #expect(duplicate.status == 1)
        #expect(duplicate.standardError.split(separator: "\n").count == 1)
        #expect(duplicate.standardError.contains("com.example.ann is already in"))

        let badLanguage = try voicebank.run([
            "create", "--bank", bank, "--voice", "a.b", "--name", "X", "--language", "english!",
        ])
        #expect(badLanguage.status == 1)
        #expect(badLanguage.standardError.contains("\"english!\""))

        let text = directory.file("notes.aiff")
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        let good = try Fixture.seedClip(at: directory.file("good.aiff"))
        let bad = try voicebank.run(["import", "--bank", bank, good, text])
        #expect(bad.status == 1)
        #expect(bad.standardError.split(separator: "\n").count == 1)
        #expect(bad.standardError.contains(text))
        #expect(try VoicePack(path: bank, access: .readOnly).clips().isEmpty)

        let kept = try voicebank.run(["import", "--bank", bank, "--keep-going", good, text])
        #expect(kept.status == 1)
        #expect(kept.standardError.contains(text))
        #expect(kept.standardOutput.contains("1 imported"))
        #expect(try VoicePack(path: bank, access: .readOnly).clips().map(\.phrase) == ["good"])
    }

    @Test("a pack from a newer schema is refused by the command")
    func newerSchema() throws {
        #expect(try create().status == 0)
        var handle: OpaquePointer?
        #expect(sqlite3_open(bank, &handle) == SQLITE_OK)
        #expect(sqlite3_exec(handle, "PRAGMA user_version = 99", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)

        let result = try voicebank.run(["list", "--bank", bank])

        #expect(result.status == 1)
        #expect(result.standardError.contains("schema version 99"))
    }

    /// Twelve short clips: more than the ten files from which an import shows progress.
    func manyClips() throws -> [String] {
        try (0..<12).map {
            try Fixture.seedClip(at: directory.file("clip\($0).aiff"), seconds: 0.1, frequency: 300 + 20 * Double($0))
        }
    }

    @Test("import shows no progress when standard error is a pipe or a file: only the summary and errors")
    func progressStaysOutOfLogs() throws {
        #expect(try create().status == 0)
        let files = try manyClips()

        let piped = try voicebank.run(["import", "--bank", bank] + files)
        let log = directory.file("import.log")
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        let logHandle = try #require(FileHandle(forWritingAtPath: log))
        let logged = try voicebank.start(["import", "--bank", bank] + files)
        logged.standardError = logHandle
        try logged.run()
        logged.waitUntilExit()
        try logHandle.close()

        #expect(piped.status == 0)
        #expect(piped.standardError == "")
        #expect(
            piped.standardOutput.hasSuffix(
                "12 imported (1.20 s), 0 skipped, 0 failed, into voice com.example.ann of \(bank)\n"))
        #expect(logged.terminationStatus == 0)
        // The second run finds every file in the pack already and skips it, file by file, still without a word.
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "")
        #expect(try VoicePack(path: bank, access: .readOnly).clips().count == 12)
    }

    @Test("on a terminal, import draws a progress bar in place and clears it")
    func progressOnTerminal() throws {
        #expect(try create().status == 0)
        let files = try manyClips()
        // script(1) runs the command on a pseudo-terminal, as a person at a terminal would.
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([voicebank.path, "import", "--bank", bank] + files).joined(separator: " ")
        script.arguments = ["--quiet", "--return", "--command", command, "/dev/null"]
        let output = Pipe()
        script.standardOutput = output
        script.standardInput = FileHandle.nullDevice
        try script.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()

        #expect(script.terminationStatus == 0, "\(text)")
        #expect(text.contains("\r\u{1B}[K[##############################] 12/12 clip11.aiff"))
        #expect(text.contains("12 imported"))
        #expect(!text.contains("importing:"))
    }

    @Test("--normal-rate on create and configure takes a multiple or a percentage")
    func normalRate() throws {
        #expect(
            try voicebank.run([
                "create", "--bank", bank, "--voice", "com.example.ja", "--name", "J", "--language", "ja",
                "--normal-rate", "400%",
            ]).status == 0)
        #expect(
            try voicebank.run([
                "create", "--bank", bank, "--voice", "com.example.en", "--name", "E", "--language", "en",
            ]).status == 0)
        #expect(
            try voicebank.run(["configure", "--bank", bank, "--voice", "com.example.en", "--normal-rate", "1.5"]).status
                == 0)
        #expect(try VoicePack(path: bank, access: .readOnly).voices().map(\.normalRate) == [4, 1.5])

        let bad = try voicebank.run(["configure", "--bank", bank, "--voice", "com.example.en", "--normal-rate", "0%"])
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("invalid normal rate 0.0"))
        #expect(try voicebank.run(["configure", "--bank", bank, "--normal-rate", "fast"]).status == 64)
        #expect(try voicebank.run(["configure", "--bank", bank, "--voice", "com.example.en"]).status == 64)
    }

    @Test("words lists what a voice needs for numbers, and with --missing what it lacks")
    func words() throws {
        let english = try voicebank.run(["words", "--for", "numbers", "--language", "en-US"])
        #expect(english.status == 0)
        #expect(english.standardOutput.split(separator: "\n").prefix(3) == ["zero", "one", "two"])
        #expect(english.standardOutput.contains("\nhundred\n"))

        #expect(try create().status == 0)
        let one = try Fixture.seedClip(at: directory.file("one.aiff"))
        #expect(try voicebank.run(["import", "--bank", bank, one]).status == 0)
        let missing = try voicebank.run([
            "words", "--bank", bank, "--for", "digits", "--voice", "com.example.ann", "--missing",
        ])
        #expect(missing.status == 0)
        #expect(missing.standardOutput == "zero\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n")

        let japanese = try voicebank.run(["words", "--for", "dates", "--language", "ja"])
        #expect(japanese.standardOutput.hasPrefix("一月\n二月\n"))
        #expect(try voicebank.run(["words", "--for", "weather", "--language", "en"]).status == 64)
        #expect(try voicebank.run(["words", "--for", "numbers", "--language", "xx"]).status == 64)
    }

    @Test("configure sets and re-applies trimming; --no-trim plays clips whole")
    func trimming() throws {
        #expect(try create().status == 0)
        let silence = [Float](repeating: 0, count: 24_000)
        let tone = Signal.sine(frequency: 440, sampleRate: 24_000, frameCount: 12_000)
        let path = try Fixture.write(
            silence + tone + silence, to: directory.file("padded.wav"), format: .init(.wav, .float32),
            sampleRate: 24_000)
        #expect(try voicebank.run(["import", "--bank", bank, path]).status == 0)
        let trimmed = try VoicePack(path: bank, access: .readOnly).clips()[0].frameCount

        #expect(
            try voicebank.run(["configure", "--bank", bank, "--trim-threshold", "-40dB", "--trim-pad", "10ms"]).status
                == 0)
        let tighter = try VoicePack(path: bank, access: .readOnly).clips()[0].frameCount
        #expect(try voicebank.run(["configure", "--bank", bank, "--no-trim"]).status == 0)
        let whole = try VoicePack(path: bank, access: .readOnly).clips()[0].frameCount

        #expect(whole == 55_125)
        #expect(trimmed < whole && tighter < trimmed)
        #expect(try voicebank.run(["configure", "--bank", bank, "--no-trim", "--trim-pad", "5ms"]).status == 64)
        #expect(try voicebank.run(["configure", "--bank", bank, "--trim-threshold", "loud"]).status == 64)
    }
}
