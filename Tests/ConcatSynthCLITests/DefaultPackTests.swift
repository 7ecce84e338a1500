// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// tools/build-default-pack on small packages made here in the layout of Debian's asterisk-core-sounds-en-g722 and
/// asterisk-core-sounds-en (`dpkg-deb -b`), so that the build is tested without the real prompts.
@Suite struct DefaultPackTests {
    let directory = TemporaryDirectory("default-pack")
    static let script = "\(ScreenReaderPack.repository)/tools/build-default-pack"

    /// The prompts of the small sounds package: file name (below the sounds folder) and tone.
    static let prompts: [(String, Double)] = [
        ("hello", 300), ("goodbye", 350), ("digits/1", 400), ("digits/h-40", 450), ("confbridge-menu-exit-in", 500),
        ("beep", 1_000), ("silence/1", 0),
    ]

    static let transcript = """
        ; Core Asterisk Sounds in English

        beep: [this is a simple beep tone]
        confbridge-menu-exit-in: To exit the menu...
        digits/1: one
        digits/h-40: fourtieth
        goodbye: Goodbye!
        hello: Hello.
        pls-try-call-later: Please try your call again later.
        silence/1: (1 second of silence)
        """

    /// Builds the two packages into `folder` (`NAME_VERSION_all.deb`), with `transcript` as the transcript and
    /// `damaged` (relative path → bytes) in place of the prompts' G.722 where given.
    func makePackages(
        in folder: String, transcript: String = Self.transcript, damaged: [String: [UInt8]] = [:]
    ) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sounds = directory.file("tree-sounds")
        let text = directory.file("tree-text")
        for tree in [sounds, text] { try? manager.removeItem(atPath: tree) }
        let soundsFolder = "\(sounds)/usr/share/asterisk/sounds/en_US_f_Allison"
        for (name, hertz) in Self.prompts {
            let path = "\(soundsFolder)/\(name).g722"
            try manager.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let bytes =
                try damaged[name] ?? (hertz == 0 ? [UInt8](repeating: 0, count: 8_000) : G722.tone(frequency: hertz))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let doc = "\(text)/usr/share/doc/asterisk-core-sounds-en"
        try manager.createDirectory(atPath: doc, withIntermediateDirectories: true)
        try Data((transcript + "\n").utf8).write(to: URL(fileURLWithPath: "\(doc)/core-sounds-en.txt"))
        try run("/usr/bin/gzip", ["-n", "\(doc)/core-sounds-en.txt"])
        for (tree, package) in [(sounds, "asterisk-core-sounds-en-g722"), (text, "asterisk-core-sounds-en")] {
            try manager.createDirectory(atPath: "\(tree)/DEBIAN", withIntermediateDirectories: true)
            let control = """
                Package: \(package)
                Version: 9.9-1
                Architecture: all
                Maintainer: Tests <tests@example.org>
                Description: a test's stand-in for Debian's package

                """
            try Data(control.utf8).write(to: URL(fileURLWithPath: "\(tree)/DEBIAN/control"))
            try run("/usr/bin/dpkg-deb", ["--root-owner-group", "-b", tree, "\(folder)/\(package)_9.9-1_all.deb"])
        }
    }

    func run(_ program: String, _ arguments: [String]) throws {
        let result = try Binary(path: program).run(arguments)
        try #require(result.status == 0, "\(program) \(arguments): \(result.standardError)")
    }

    func build(debs: String, output: String) throws -> Binary.Result {
        try Binary(path: Self.script).run([
            "--voicebank", Binary("voicebank").path, "--debs", debs, "--output", output,
        ])
    }

    @Test("imports every spoken prompt with its transcript's text and place, corrected, and says where it is from")
    func builds() throws {
        let debs = directory.file("debs")
        try makePackages(in: debs)
        let output = directory.file("default.sqlite")

        let result = try build(debs: debs, output: output)
        #expect(result.status == 0, "\(result.standardError)")

        let pack = try VoicePack(path: output, access: .readOnly)
        let clips = try pack.clips(voice: "org.concatsynth.en")
        let phrases = clips.filter { !$0.isFallback }
        // The transcript's order; the tones and the silence are not phrases; the recipe's corrections apply.
        #expect(phrases.map(\.phrase) == ["To exit the menu...", "one", "fortieth", "Goodbye!", "Hello."])
        #expect(phrases.map { $0.position?.rawValue } == ["medial", nil, nil, "final", "final"])
        #expect(
            phrases.map(\.sourceName) == [
                "confbridge-menu-exit-in.g722", "1.g722", "h-40.g722", "goodbye.g722", "hello.g722",
            ])
        #expect(clips.filter(\.isFallback).map(\.sourceName) == ["beep.g722"])
        #expect(try pack.clips(voice: "org.concatsynth.ja").count > 40)
        let manifest = try pack.manifest()
        #expect(manifest[.license] == "CC-BY-SA-3.0")
        #expect(manifest[.attribution] == "Allison Smith, recorded for the Asterisk project")
        #expect(manifest[.description]?.contains("asterisk-core-sounds-en-g722 9.9-1") == true)
        #expect(manifest[.description]?.contains("asterisk-core-sounds-en 9.9-1") == true)
        #expect(manifest[.consent]?.contains("published by their owner") == true)

        // The same packages give the same pack, byte for byte.
        let again = directory.file("again.sqlite")
        #expect(try build(debs: debs, output: again).status == 0)
        #expect(FileManager.default.contentsEqual(atPath: output, andPath: again))

        // It can be shared as it is: it has a license and a consent statement.
        let published = try Binary("voicebank").run([
            "publish", "--bank", output, "--output", directory.file("published.sqlite"),
        ])
        #expect(published.status == 0 && !published.standardError.contains("warning"), "\(published.standardError)")
    }

    struct BadInput: CustomTestStringConvertible, Sendable {
        var name: String
        /// What the error line says, after the script's name.
        var message: @Sendable (_ debs: String) -> String
        var damage: @Sendable (_ test: DefaultPackTests, _ debs: String) throws -> Void
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(
            name: "a truncated .deb",
            message: { "\($0)/asterisk-core-sounds-en-g722_9.9-1_all.deb is not a whole Debian package" },
            damage: { test, debs in
                try test.makePackages(in: debs)
                let path = "\(debs)/asterisk-core-sounds-en-g722_9.9-1_all.deb"
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
            }),
        BadInput(
            name: "a corrupt .deb",
            message: { "\($0)/asterisk-core-sounds-en_9.9-1_all.deb is not a whole Debian package" },
            damage: { test, debs in
                try test.makePackages(in: debs)
                try Data("not an archive\n".utf8).write(
                    to: URL(fileURLWithPath: "\(debs)/asterisk-core-sounds-en_9.9-1_all.deb"))
            }),
        BadInput(
            name: "a transcript line naming no file of the package",
            message: { _ in
                "asterisk-core-sounds-en's core-sounds-en.txt line 11: \"weasels\" names no file of the package"
            },
            damage: { test, debs in try test.makePackages(in: debs, transcript: transcript + "\nweasels: Weasels!") }),
        BadInput(
            name: "a transcript line naming no file at all",
            message: { _ in
                "asterisk-core-sounds-en's core-sounds-en.txt line 11: \"Hello there\" names no file; expected \"name: text\""
            },
            damage: { test, debs in try test.makePackages(in: debs, transcript: transcript + "\nHello there") }),
        BadInput(
            name: "an empty .g722 file",
            message: { _ in "importing asterisk-core-sounds-en-g722 failed: audio file " },
            damage: { test, debs in try test.makePackages(in: debs, damaged: ["hello": []]) }),
    ]

    @Test("bad input is one line naming it, and the pack there stays as it was", arguments: badInputs)
    func badInput(_ input: BadInput) throws {
        let debs = directory.file("debs")
        try input.damage(self, debs)
        let output = directory.file("default.sqlite")
        try Data("the previous pack\n".utf8).write(to: URL(fileURLWithPath: output))

        let result = try build(debs: debs, output: output)

        #expect(result.status == 1)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(
            result.standardError.hasPrefix("tools/build-default-pack: \(input.message(debs))"),
            "\(result.standardError)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "the previous pack\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".building") }
                .isEmpty)
    }
}
