// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// The units' weights are voice settings: `voicebank configure --unit-…-weight` sets them, `voicebank info` shows them,
/// and a weight out of range is refused with one line.
@Suite struct UnitWeightsCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("unit-weights-cli")
    var bank: String { directory.file("units.sqlite") }

    func createVoice() throws {
        let created = try voicebank.run([
            "create", "--bank", bank, "--voice", "com.example.units", "--name", "Units", "--language", "en-US",
        ])
        try #require(created.status == 0, "\(created.standardError)")
    }

    @Test("configure sets the units' weights and info shows them, the defaults for the rest")
    func configure() throws {
        try createVoice()
        let before = try voicebank.run(["info", "--bank", bank])
        #expect(
            before.standardOutput.contains(
                "  units' weights: context 1.0, stress 1.0, word-place 0.5, phrase-place 0.5, duration 1.0, "
                    + "spectrum 0.5, pitch 0.25, energy 0.05\n"), "\(before.standardOutput)")

        let configured = try voicebank.run([
            "configure", "--bank", bank, "--unit-context-weight", "0", "--unit-word-place-weight", "2",
            "--unit-energy-weight", "0.1",
        ])

        #expect(configured.status == 0, "\(configured.standardError)")
        let info = try voicebank.run(["info", "--bank", bank])
        #expect(
            info.standardOutput.contains(
                "  units' weights: context 0.0, stress 1.0, word-place 2.0, phrase-place 0.5, duration 1.0, "
                    + "spectrum 0.5, pitch 0.25, energy 0.1\n"), "\(info.standardOutput)")
        let json = try voicebank.run(["info", "--bank", bank, "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let voice = try #require((object["voices"] as? [[String: Any]])?.first)
        let weights = try #require(voice["unitWeights"] as? [String: Double])
        #expect(weights["wordPlace"] == 2 && weights["context"] == 0 && weights["duration"] == 1)
    }

    @Test("a units weight out of range is refused with one line naming it, and nothing changes")
    func refused() throws {
        try createVoice()

        let refused = try voicebank.run(["configure", "--bank", bank, "--unit-pitch-weight", "101"])

        #expect(refused.status == 1)
        #expect(
            refused.standardError
                == "Error: invalid --unit-pitch-weight 101.0; expected a weight from 0 (ignored) to 100\n")
        #expect(try voicebank.run(["info", "--bank", bank]).standardOutput.contains(", pitch 0.25, "))
    }
}
