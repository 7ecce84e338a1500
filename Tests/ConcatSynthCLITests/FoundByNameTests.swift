// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// `concat-synth voices` and `--voice` with no `--bank`: the voices of the default pack and of the packs installed
/// with `voicebank install` into a data folder of the test's own.
@Suite struct FoundByNameTests {
    let concatSynth = Binary("concat-synth")
    let home = InstalledPackHome()

    func run(_ arguments: [String]) throws -> Binary.Result {
        try concatSynth.run(arguments, environment: home.environment)
    }

    func lines(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test(
        "voices lists the default pack's voices, then each installed pack's, with the pack's name, version, path and attribution"
    )
    func voices() throws {
        let ann = try home.install(
            name: "ann", voice: "com.example.ann", voiceName: "Ann", version: "1.2.0",
            manifest: ["attribution=Ann Example, recorded for the tests"])
        let installed = "\(home.packFolder)/ann.sqlite"

        let table = try run(["voices"])
        #expect(table.status == 0 && table.standardError.isEmpty, "\(table.standardError)")
        let rows = lines(table.standardOutput)
        #expect(rows.map(\.first) == ["org.concatsynth.en", "org.concatsynth.ja", "com.example.ann"])
        #expect(
            rows.last == [
                "com.example.ann", "Ann", "en-US", "ann", "1.2.0", installed, "Ann Example, recorded for the tests",
            ])
        #expect(rows.dropLast().allSatisfy { $0[3] == "default" })

        let json = try run(["voices", "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let voices = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(
            voices.map { $0["identifier"] as? String } == [
                "org.concatsynth.en", "org.concatsynth.ja", "com.example.ann",
            ])
        #expect(voices.map { $0["pack"] as? String } == ["default", "default", "ann"])
        #expect(voices.last?["packVersion"] as? String == "1.2.0")
        #expect(voices.last?["packLicense"] as? String == "CC-BY-4.0")
        #expect(voices.last?["packPath"] as? String == installed)
        #expect(voices.last?["packAttribution"] as? String == "Ann Example, recorded for the tests")
        #expect(voices.last?["primaryLanguages"] as? [String] == ["en-US"] && voices.last?["name"] as? String == "Ann")

        // --bank lists that pack alone.
        let one = try run(["voices", "--bank", ann])
        #expect(lines(one.standardOutput).map(\.first) == ["com.example.ann"])
    }

    @Test("--voice with no --bank speaks with the installed pack that has it, the same bytes as with --bank")
    func voiceFindsItsPack() throws {
        let ann = try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        let request = "Hello, good morning"
        let found = try run(["render", "--voice", "com.example.ann", "-o", "-", request])
        #expect(found.status == 0 && found.standardError.isEmpty, "\(found.standardError)")
        let named = try run(["render", "--bank", ann, "--voice", "com.example.ann", "-o", "-", request])
        #expect(named.status == 0, "\(named.standardError)")
        // Two clips of half a second, and nothing fell back.
        #expect(found.standardOutputBytes.count == 2 * 11_025 * 4)
        #expect(found.standardOutputBytes == named.standardOutputBytes)

        // The default pack's voices are found the same way.
        let japanese = try run(["render", "--voice", "org.concatsynth.ja", "-o", "-", "設定"])
        #expect(japanese.status == 0 && !japanese.standardOutputBytes.isEmpty, "\(japanese.standardError)")
    }

    @Test("a voice in two packs is a one-line error naming both; --bank says which")
    func voiceInTwoPacks() throws {
        try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        try home.install(name: "ann-again", voice: "com.example.ann", voiceName: "Ann", frequency: 330)
        let refused = try run(["render", "--voice", "com.example.ann", "-o", "-", "hello"])
        #expect(refused.status == 1)
        #expect(refused.standardOutputBytes.isEmpty)
        let error = refused.standardError.split(separator: "\n")
        #expect(error.count == 1, "\(refused.standardError)")
        for pack in ["ann", "ann-again"] {
            #expect(refused.standardError.contains("\(home.packFolder)/\(pack).sqlite"), "\(refused.standardError)")
        }
        #expect(refused.standardError.contains("--bank"))

        let chosen = try run([
            "render", "--bank", "\(home.packFolder)/ann-again.sqlite", "--voice", "com.example.ann", "-o", "-", "hello",
        ])
        #expect(chosen.status == 0, "\(chosen.standardError)")
        // Both are listed, each with its pack.
        let listed = lines(try run(["voices"]).standardOutput).filter { $0.first == "com.example.ann" }
        #expect(listed.map { $0[3] } == ["ann", "ann-again"])
    }

    @Test("an unknown voice with no --bank is a one-line error listing the voices of every pack")
    func unknownVoice() throws {
        try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        let refused = try run(["render", "--voice", "com.example.nobody", "-o", "-", "hello"])
        #expect(refused.status == 1)
        #expect(refused.standardError.split(separator: "\n").count == 1, "\(refused.standardError)")
        #expect(refused.standardError.contains("com.example.nobody"))
        #expect(refused.standardError.contains("org.concatsynth.en, org.concatsynth.ja, com.example.ann"))
    }

    @Test("an installed file that cannot be opened is left out with a warning; the other packs are listed and speak")
    func unreadableInstalledFile() throws {
        try home.install(name: "ann", voice: "com.example.ann", voiceName: "Ann")
        let broken = "\(home.packFolder)/broken.sqlite"
        try Data(repeating: 0x42, count: 4_096).write(to: URL(fileURLWithPath: broken))

        let listed = try run(["voices"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(
            lines(listed.standardOutput).map(\.first) == [
                "org.concatsynth.en", "org.concatsynth.ja", "com.example.ann",
            ])
        let warnings = listed.standardError.split(separator: "\n")
        #expect(warnings.count == 1 && warnings[0].hasPrefix("warning: ") && warnings[0].contains(broken))

        let spoken = try run(["render", "--voice", "com.example.ann", "-o", "-", "hello"])
        #expect(spoken.status == 0 && spoken.standardOutputBytes.count == 11_025 * 4, "\(spoken.standardError)")
        #expect(spoken.standardError.contains(broken))
    }
}
