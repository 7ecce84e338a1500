// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// End-to-end tests of sharing a pack: voicebank manifest, publish, install, packs, uninstall, run as a person
/// would, with their installed packs in a folder of the test's own (`XDG_DATA_HOME`).
@Suite struct SharingCLITests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("voicebank-sharing")
    var bank: String { directory.file("pack.sqlite") }
    var dataHome: String { directory.file("data") }
    var installed: String { dataHome + "/concat-synth/packs" }
    var environment: [String: String?] { ["XDG_DATA_HOME": dataHome, "CONCAT_SYNTH_BANK": nil] }

    /// The complete manifest of a pack ready to share.
    static let shareable = [
        "name=ann", "version=1.0.0", "license=CC-BY-4.0", "consent=I, Ann, agree to this voice being shared.",
        "languages=en-us", "author=Ann", "speaker=Ann", "attribution=Ann's voice", "url=https://example.org/ann",
        "date=2026-11-25", "sample=Hello world",
    ]

    /// A pack of one voice with two phrases and a fallback clip, and `manifest` set.
    func makePack(at path: String, manifest: [String] = shareable, frequency: Double = 300) throws {
        try run(
            voicebank, ["create", "--bank", path, "--voice", "com.example.ann", "--name", "Ann", "--language", "en-US"])
        let hello = try Fixture.seedClip(at: directory.file("hello.aiff"), frequency: frequency)
        let world = try Fixture.seedClip(at: directory.file("world.aiff"), frequency: frequency + 100)
        let beep = try Fixture.seedClip(at: directory.file("beep.aiff"), seconds: 0.2, frequency: 880)
        try run(voicebank, ["import", "--bank", path, hello, world])
        try run(voicebank, ["import", "--bank", path, "--fallback", beep])
        if !manifest.isEmpty { try run(voicebank, ["manifest", "--bank", path] + manifest.flatMap { ["--set", $0] }) }
    }

    @discardableResult
    func run(_ binary: Binary, _ arguments: [String]) throws -> Binary.Result {
        let result = try binary.run(arguments, environment: environment)
        try #require(result.status == 0, "\(arguments): \(result.standardError)")
        return result
    }

    /// The files in the installed packs' folder, hidden ones included, with their bytes.
    func installedFiles() throws -> [String: Data] {
        guard FileManager.default.fileExists(atPath: installed) else { return [:] }
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: installed) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: installed + "/" + name))
        }
        return files
    }

    /// `sha256sum`'s digest of a file: another program's SHA-256.
    func sha256sum(_ path: String) throws -> String {
        let result = try requireTool("sha256sum", package: "coreutils").run([path])
        return String(result.standardOutput.prefix(64))
    }

    // MARK: manifest

    @Test("attribution-voices: the voices it names are credited, the others not; a voice not in the pack is refused")
    func attributionVoices() throws {
        try makePack(at: bank)
        try run(
            voicebank,
            ["create", "--bank", bank, "--voice", "com.example.hana", "--name", "Hana", "--language", "ja-JP"])
        let credited = { () throws -> [String?] in
            let listed = try run(concatSynth, ["voices", "--bank", bank, "--json"]).standardOutput
            let voices = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
            return voices.map { $0["packAttribution"] as? String }
        }
        // A manifest without the key, as every one made before it: the attribution credits every voice.
        #expect(try credited() == ["Ann's voice", "Ann's voice"])
        try run(voicebank, ["manifest", "--bank", bank, "--set", "attribution-voices=com.example.ann"])
        #expect(try credited() == ["Ann's voice", nil])
        let table = try run(concatSynth, ["voices", "--bank", bank]).standardOutput.split(separator: "\n")
        #expect(
            table.last?.hasPrefix("com.example.hana\t") == true && table.last?.hasSuffix("\t(no attribution)") == true)
        #expect(try run(voicebank, ["publish", "--bank", bank, "-o", directory.file("ann.sqlite")]).status == 0)

        let refused = try voicebank.run(
            ["manifest", "--bank", bank, "--set", "attribution-voices=com.example.bob"], environment: environment)
        #expect(refused.status == 1)
        #expect(
            refused.standardError
                == "Error: invalid manifest attribution-voices \"com.example.bob\"; expected voices of the pack (com.example.ann, com.example.hana), which com.example.bob is not\n",
            "\(refused.standardError)")
        // Changed behind voicebank's back: publish refuses it.
        try execute("UPDATE manifest SET value = 'com.example.bob' WHERE key = 'attribution-voices'", on: bank)
        let published = try voicebank.run(
            ["publish", "--bank", bank, "-o", directory.file("bob.sqlite")], environment: environment)
        #expect(published.status == 1)
        #expect(
            published.standardError.contains(
                "the manifest's attribution-voices names com.example.bob, which is not a voice of the pack"),
            "\(published.standardError)")
    }

    @Test("manifest sets, shows and removes keys, written the one way; info shows it")
    func manifestRoundTrip() throws {
        try makePack(at: bank, manifest: [])
        let set = try run(
            voicebank,
            [
                "manifest", "--bank", bank, "--set", "name=ann", "--set", "languages=en-us, JA-jp",
                "--set", "license=(MIT  OR Apache-2.0) AND LicenseRef-ann", "--set", "consent=Line one\nLine two",
            ])
        #expect(
            set.standardOutput == """
                name: ann
                languages: en-US,ja-JP
                consent: Line one
                  Line two
                license: (MIT OR Apache-2.0) AND LicenseRef-ann

                """)
        let json = try run(voicebank, ["manifest", "--bank", bank, "--unset", "consent", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "ann")
        #expect(object["languages"] as? [String] == ["en-US", "ja-JP"])
        #expect(object["consent"] == nil)
        let info = try run(voicebank, ["info", "--bank", bank])
        #expect(info.standardOutput.contains("manifest:\n  name: ann\n  languages: en-US,ja-JP\n"))
        let infoJSON = try run(voicebank, ["info", "--bank", bank, "--json"])
        let infoObject = try #require(
            try JSONSerialization.jsonObject(with: Data(infoJSON.standardOutput.utf8)) as? [String: Any])
        #expect(
            (infoObject["manifest"] as? [String: Any])?["license"] as? String
                == "(MIT OR Apache-2.0) AND LicenseRef-ann")
    }

    @Test(
        "a value that does not parse is a one-line error naming key and value, and nothing of that call is stored",
        arguments: [
            ("license=MIT license", #"invalid manifest license "MIT license"; expected an SPDX license expression"#),
            ("license=NONE", #"invalid manifest license "NONE""#),
            ("version=1.0", #"invalid manifest version "1.0"; expected a semantic version"#),
            ("languages=en_US", #"invalid manifest languages "en_US"; expected BCP 47 language tags"#),
            ("name=My Voice", #"invalid manifest name "My Voice""#),
            ("date=2026-02-30", #"invalid manifest date "2026-02-30"; expected a date YYYY-MM-DD"#),
            ("url=ftp://example.org", #"invalid manifest url "ftp://example.org""#),
            ("colour=blue", #"unknown manifest key "colour"; expected one of: name, version"#),
        ])
    func badManifestValue(assignment: String, message: String) throws {
        try makePack(at: bank, manifest: ["name=ann"])
        let result = try voicebank.run(
            ["manifest", "--bank", bank, "--set", "version=2.0.0", "--set", assignment], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Error: " + message), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(try VoicePack(path: bank, access: .readOnly).manifest().values == [.name: "ann"])
    }

    // MARK: publish

    @Test("publish refuses a pack with no license or no consent, one line each; --force publishes with a warning")
    func publishAsksForLicenseAndConsent() throws {
        try makePack(at: bank, manifest: ["name=ann", "version=1.0.0"])
        let output = directory.file("ann.sqlite")
        let refused = try voicebank.run(["publish", "--bank", bank, "-o", output], environment: environment)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("the pack has no license"))
        #expect(refused.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
        try run(voicebank, ["manifest", "--bank", bank, "--set", "license=CC0-1.0"])
        let noConsent = try voicebank.run(["publish", "--bank", bank, "-o", output], environment: environment)
        #expect(noConsent.standardError.contains("the pack has no consent"))
        #expect(!FileManager.default.fileExists(atPath: output))

        let forced = try run(voicebank, ["publish", "--bank", bank, "-o", output, "--force"])
        #expect(forced.standardError.hasPrefix("warning: \(bank): the pack has no consent"))
        #expect(FileManager.default.fileExists(atPath: output))
    }

    @Test("publish needs a name and a version, which install needs, even with --force")
    func publishNeedsNameAndVersion() throws {
        try makePack(at: bank, manifest: ["license=CC0-1.0", "consent=Yes", "version=1.0.0"])
        let result = try voicebank.run(
            ["publish", "--bank", bank, "-o", directory.file("out.sqlite"), "--force"], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.contains("the pack has no name, which an install needs"))
    }

    @Test("publish writes one file in rollback-journal mode, vacuumed, and prints the SHA-256 sha256sum computes")
    func publishWritesOneFile() throws {
        try makePack(at: bank)
        // A deleted clip leaves free pages that the vacuumed copy drops.
        try run(voicebank, ["remove", "--bank", bank, "--phrase", "world"])
        let output = directory.file("out/ann-1.0.0.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        let result = try run(voicebank, ["publish", "--bank", bank, "-o", output])

        #expect(result.standardOutput == "\(try sha256sum(output))  \(output)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["ann-1.0.0.sqlite"])
        let header = try Data(contentsOf: URL(fileURLWithPath: output)).prefix(100)
        #expect(header[18] == 1 && header[19] == 1, "bytes 18 and 19 say rollback-journal mode, not WAL")
        #expect(header[36..<40].allSatisfy { $0 == 0 }, "no free pages")
        let copy = try VoicePack(path: output, access: .readOnly)
        #expect(try copy.clips().map(\.phrase) == ["hello", "beep"])
        #expect(try copy.manifest()[.name] == "ann")
    }

    // MARK: install

    @Test("install, then packs lists it, and a render with it is bit for bit a render with the source pack")
    func installRoundTrip() throws {
        try makePack(at: bank)
        let published = directory.file("ann-1.0.0.sqlite")
        let digest = String(try run(voicebank, ["publish", "--bank", bank, "-o", published]).standardOutput.prefix(64))

        let result = try run(voicebank, ["install", published, "--sha256", digest.uppercased()])
        #expect(result.standardOutput == "installed ann 1.0.0 at \(installed)/ann.sqlite\n")
        #expect(result.standardError.isEmpty)
        #expect(try installedFiles().keys.sorted() == ["ann.sqlite"])

        let packs = try run(voicebank, ["packs", "--json"])
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(packs.standardOutput.utf8)) as? [[String: Any]])
        let user = list.filter { $0["scope"] as? String == "user" }
        #expect(user.count == 1)
        #expect(user.first?["name"] as? String == "ann")
        #expect(user.first?["version"] as? String == "1.0.0")
        #expect(user.first?["license"] as? String == "CC-BY-4.0")
        #expect(user.first?["voices"] as? [String] == ["com.example.ann"])
        #expect(user.first?["path"] as? String == "\(installed)/ann.sqlite")

        let voices = try run(concatSynth, ["voices"])
        #expect(
            voices.standardOutput.contains("com.example.ann\tAnn\ten-US\tann\t1.0.0\t\(installed)/ann.sqlite"),
            "\(voices.standardOutput)")

        let fromSource = try run(concatSynth, ["render", "--bank", bank, "-o", "-", "hello world, zebra"])
        let fromInstalled = try run(
            concatSynth, ["render", "--bank", "\(installed)/ann.sqlite", "-o", "-", "hello world, zebra"])
        #expect(!fromSource.standardOutputBytes.isEmpty)
        #expect(fromInstalled.standardOutputBytes == fromSource.standardOutputBytes)
    }

    @Test("a newer version replaces the installed one; an equal or older one needs --force; uninstall removes it")
    func installVersions() throws {
        try makePack(at: bank)
        let first = directory.file("1.sqlite")
        try run(voicebank, ["publish", "--bank", bank, "-o", first])
        try run(voicebank, ["install", first])
        let before = try installedFiles()

        let same = try voicebank.run(["install", first], environment: environment)
        #expect(same.status == 1)
        #expect(same.standardError.contains("pack ann 1.0.0 is already installed at \(installed)/ann.sqlite"))
        #expect(try installedFiles() == before)

        try run(voicebank, ["manifest", "--bank", bank, "--set", "version=1.1.0-beta.2", "--set", "sample=Hello"])
        let beta = directory.file("2.sqlite")
        try run(voicebank, ["publish", "--bank", bank, "-o", beta])
        #expect(try run(voicebank, ["install", beta]).standardOutput.hasSuffix(", replacing version 1.0.0\n"))
        #expect(
            try VoicePack(path: "\(installed)/ann.sqlite", access: .readOnly).manifest()[.version] == "1.1.0-beta.2")

        let older = try voicebank.run(["install", first], environment: environment)
        #expect(
            older.standardError.contains("this one is version 1.0.0; install a newer version, or force the install"))
        try run(voicebank, ["install", first, "--force"])
        #expect(try VoicePack(path: "\(installed)/ann.sqlite", access: .readOnly).manifest()[.version] == "1.0.0")

        #expect(try run(voicebank, ["uninstall", "ann"]).standardOutput == "removed \(installed)/ann.sqlite\n")
        #expect(try installedFiles().isEmpty)
        let again = try voicebank.run(["uninstall", "ann"], environment: environment)
        #expect(again.status == 1)
        #expect(again.standardError.contains(#"no pack "ann" is installed here; installed: none"#))
    }

    @Test("installing a pack whose voice another installed pack has warns that --voice alone cannot choose")
    func sharedVoiceWarning() throws {
        try makePack(at: bank)
        try run(voicebank, ["publish", "--bank", bank, "-o", directory.file("ann.sqlite")])
        try run(voicebank, ["install", directory.file("ann.sqlite")])
        try run(voicebank, ["manifest", "--bank", bank, "--set", "name=ann-copy"])
        try run(voicebank, ["publish", "--bank", bank, "-o", directory.file("copy.sqlite")])

        let result = try run(voicebank, ["install", directory.file("copy.sqlite")])

        #expect(
            result.standardError
                == "warning: voice com.example.ann is also in the installed pack ann (\(installed)/ann.sqlite); name its pack to say which to use, or uninstall one\n"
        )
        #expect(try installedFiles().keys.sorted() == ["ann-copy.sqlite", "ann.sqlite"])
    }

    @Test(
        "a schema-7 pack is published and installed at the current schema with its clips measured, the given files untouched"
    )
    func schema7Shared() throws {
        // The committed schema-7 pack (Tests/Fixtures/packs), given a manifest by the tools of its schema.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/packs/schema7.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: bank)
        try execute(
            "INSERT INTO manifest (key, value) VALUES ('name', 'seven'), ('version', '1.0.0'); PRAGMA journal_mode = DELETE",
            on: bank)
        let given = try Data(contentsOf: URL(fileURLWithPath: bank))
        let published = directory.file("seven.sqlite")

        try run(voicebank, ["publish", "--bank", bank, "-o", published, "--force"])
        try run(voicebank, ["install", bank])

        #expect(try Data(contentsOf: URL(fileURLWithPath: bank)) == given)
        for pack in [published, installed + "/seven.sqlite"] {
            #expect(try rows("PRAGMA user_version", on: pack) == [["\(Schema.currentVersion)"]], "\(pack)")
            #expect(try rows("SELECT count(*) FROM clip WHERE is_features_measured = 0", on: pack) == [["0"]])
        }
    }

    @Test("a pack of the schema before manifests is upgraded in install's copy only, and refused for having no name")
    func installOlderSchema() throws {
        try makePack(at: bank)
        let published = directory.file("old.sqlite")
        try run(voicebank, ["publish", "--bank", bank, "-o", published])
        // Schema 5, as the tools before the manifest wrote it: the manifest table that 6 added and the columns of 7
        // to 9 taken out.
        let later = [
            "voice": [
                "fallback_mode", "median_f0_hz", "median_loudness_lufs", "fallback_variant", "fallback_pitch",
                "fallback_pitch_range", "fallback_words_per_minute", "fallback_pitch_shift",
                "selection_position_weight", "selection_pitch_weight", "selection_energy_weight",
                "selection_spectrum_weight", "fallback_spoken_loudness_lufs", "unit_context_weight",
                "unit_stress_weight", "unit_word_place_weight", "unit_phrase_place_weight", "unit_duration_weight",
                "unit_spectrum_weight", "unit_pitch_weight", "unit_energy_weight",
            ],
            "clip": [
                "f0_hz", "is_f0_measured", "position", "contour", "first_f0_hz", "last_f0_hz", "first_energy_db",
                "last_energy_db", "first_mfcc", "last_mfcc", "is_features_measured", "recording", "cut_start",
                "cut_end",
            ],
        ]
        let dropped = later.flatMap { table, columns in columns.map { "ALTER TABLE \(table) DROP COLUMN \($0);" } }
        try execute(
            "DROP TABLE join_features; DROP INDEX clip_level; DROP TABLE pitch_marks; DROP TABLE aligned_phone; DROP TABLE aligned_word; DROP TABLE alignment; DROP TABLE manifest; \(dropped.joined()) PRAGMA user_version = 5",
            on: published)
        let original = try Data(contentsOf: URL(fileURLWithPath: published))

        let result = try voicebank.run(["install", published], environment: environment)
        // A schema-5 pack has no manifest, so nothing names the installed file: refused, and the file untouched.
        #expect(result.status == 1)
        #expect(result.standardError.contains("its manifest has no name"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: published)) == original)
        #expect(try installedFiles().isEmpty)
    }
}
