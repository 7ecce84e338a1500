// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// `voicebank install` of a pack file made hostile or broken: each is refused with one line naming the file, and
/// the installed packs are what they were, byte for byte, with nothing left beside them.
@Suite struct HostileInstallTests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("voicebank-hostile")
    var environment: [String: String?] { ["XDG_DATA_HOME": directory.file("data"), "CONCAT_SYNTH_BANK": nil] }
    var installed: String { directory.file("data/concat-synth/packs") }

    /// What is done to a good published pack before it is installed.
    enum Damage: Sendable, CustomTestStringConvertible {
        case sql(String)
        case truncate(toBytes: Int)
        case archive(tool: String, arguments: [String])
        case wrongChecksum

        var testDescription: String {
            switch self {
            case .sql(let sql): "SQL \(sql.prefix(50))"
            case .truncate(let bytes): "truncated to \(bytes) bytes"
            case .archive(let tool, _): "a \(tool) file named like a pack"
            case .wrongChecksum: "a checksum mismatch"
            }
        }
    }

    static let cases: [(Damage, String)] = [
        (
            .sql("CREATE TRIGGER wipe AFTER INSERT ON manifest BEGIN DELETE FROM clip; END"),
            #"holds a trigger "wipe" that concat-synth does not make"#
        ),
        (
            .sql(
                "CREATE VIEW forever AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n"
            ),
            #"holds a view "forever" that concat-synth does not make"#
        ),
        (.sql("CREATE VIRTUAL TABLE words USING fts5(text)"), #"holds a virtual table "words""#),
        (.sql("CREATE TABLE extra (x)"), #"holds a table "extra" that concat-synth does not make"#),
        (.sql("PRAGMA user_version = 99"), "has schema version 99, newer than this voicebank reads"),
        (
            .sql("UPDATE manifest SET value = 'GPL-2.0 OR' WHERE key = 'license'"),
            #"invalid manifest license "GPL-2.0 OR"; expected an SPDX license expression"#
        ),
        (
            .sql("UPDATE manifest SET value = 'v1' WHERE key = 'version'"),
            #"invalid manifest version "v1"; expected a semantic version"#
        ),
        (.sql("DELETE FROM manifest WHERE key = 'name'"), "its manifest has no name, which an installed pack needs"),
        (.sql("UPDATE clip SET pcm = zeroblob(80000000)"), "more than the 79380000 bytes"),
        (.truncate(toBytes: 8192), "it is truncated or damaged"),
        (.archive(tool: "zip", arguments: ["-q"]), "it is a zip archive, not a voice pack"),
        (.archive(tool: "tar", arguments: ["cf"]), "it is a tar archive, not a voice pack"),
        (.wrongChecksum, "not 00000000"),
    ]

    func run(_ arguments: [String]) throws -> Binary.Result {
        try voicebank.run(arguments, environment: environment)
    }

    /// A pack named `name` with the one voice `voice`, published as `VOICE.sqlite`.
    func publishedPack(name: String, voice: String) throws -> String {
        let bank = directory.file("\(voice)-source.sqlite")
        let clip = try Fixture.seedClip(at: directory.file("hello.aiff"), frequency: 300)
        for arguments in [
            ["create", "--bank", bank, "--voice", voice, "--name", name, "--language", "en-US"],
            ["import", "--bank", bank, clip],
            [
                "manifest", "--bank", bank, "--set", "name=\(name)", "--set", "version=1.0.0", "--set", "license=MIT",
                "--set", "consent=Agreed",
            ],
            ["publish", "--bank", bank, "-o", directory.file("\(voice).sqlite")],
        ] {
            let result = try run(arguments)
            try #require(result.status == 0, "\(result.standardError)")
        }
        return directory.file("\(voice).sqlite")
    }

    func installedFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: installed) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: installed + "/" + name))
        }
        return files
    }

    @Test(
        "a damaged or hostile pack is refused in one line, and the installed packs stay as they were", arguments: cases)
    func refused(damage: Damage, message: String) throws {
        let good = try publishedPack(name: "good", voice: "com.example.good")
        #expect(try run(["install", good]).status == 0)
        let before = try installedFiles()
        var file = try publishedPack(name: "good", voice: "com.example.bad")
        var extra: [String] = []
        switch damage {
        case .sql(let sql):
            try execute(sql, on: file)
            // A raised version, so that only the damage stands between the file and an install.
            try execute("UPDATE manifest SET value = '2.0.0' WHERE key = 'version' AND value = '1.0.0'", on: file)
        case .truncate(let bytes):
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.truncate(atOffset: UInt64(bytes))
            try handle.close()
        case .archive(let tool, let arguments):
            let archive = directory.file("archived.sqlite")
            let result = try requireTool(tool, package: tool).run(
                arguments + [archive, "com.example.bad.sqlite"], directory: directory.path)
            try #require(result.status == 0, "\(result.standardError)")
            file = archive
        case .wrongChecksum:
            extra = ["--sha256", String(repeating: "0", count: 64)]
        }

        let result = try run(["install", file] + extra)

        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Error: "))
        #expect(result.standardError.contains(file), "names the file given: \(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(try installedFiles() == before)
    }
}
