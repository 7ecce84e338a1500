// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// Takes chosen by their place, end to end: a pack of espeak-ng words spoken as `word,` `word.` and `word?` (tagged
/// medial, final and question by their file names), rendered, reported, covered and configured.
@Suite struct TakeSelectionCLITests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    var espeak: Binary { get throws { try requireTool("espeak-ng", package: "espeak-ng") } }
    let directory = TemporaryDirectory("take-selection-cli")
    var bank: String { directory.file("stations.sqlite") }

    /// "york" and "leeds" with a medial, a final and a question take each; "and" untagged.
    func makePack() throws {
        var files: [String] = []
        for word in ["york", "leeds"] {
            for (prefix, spoken) in [("m", "\(word),"), ("e", "\(word)."), ("q", "\(word)?")] {
                let file = directory.file("\(prefix).\(word).wav")
                let made = try espeak.run(["-w", file, spoken])
                try #require(made.status == 0, "\(made.standardError)")
                files.append(file)
            }
        }
        for word in ["and", "beep"] {
            let file = directory.file("\(word).wav")
            try #require(try espeak.run(["-w", file, word]).status == 0)
            files.append(file)
        }
        try #require(
            try voicebank.run([
                "create", "--bank", bank, "--voice", "com.example.stations", "--name", "Stations", "--language",
                "en-GB",
            ]).status == 0)
        let imported = try voicebank.run(["import", "--bank", bank] + files.filter { !$0.hasSuffix("beep.wav") })
        try #require(imported.status == 0, "\(imported.standardError)")
        try #require(
            try voicebank.run(["import", "--bank", bank, "--fallback", directory.file("beep.wav")]).status == 0)
    }

    /// The take report's lines, by the words they play: `[("york", "question", "question"), …]`.
    func takes(_ text: String, _ options: [String] = []) throws -> [(words: String, take: String, place: String)] {
        let result = try concatSynth.run(
            ["render", "--bank", bank, "-o", directory.file("out.wav"), "--join-report"] + options + [text])
        try #require(result.status == 0, "\(result.standardError)")
        return result.standardError.split(separator: "\n").compactMap { line in
            // @16421 "leeds": take #2 final, place final, 1 of 3 takes, target 0.00, join 0.84
            guard line.hasPrefix("@"), let quote = line.firstIndex(of: "\""),
                let end = line[line.index(after: quote)...].firstIndex(of: "\""),
                let take = line.range(of: ": take #"), let place = line.range(of: ", place ")
            else { return nil }
            let takeWords = line[take.upperBound..<place.lowerBound].split(separator: " ")
            return (
                String(line[line.index(after: quote)..<end]), takeWords.count > 1 ? String(takeWords[1]) : "untagged",
                String(line[place.upperBound...].prefix { $0 != "," })
            )
        }
    }

    @Test("the last phrase of a sentence plays its final take, a question's its question take, the rest medial")
    func places() throws {
        try makePack()
        let chosen = try takes("York and Leeds. Leeds and York, and Leeds? York")
        #expect(chosen.map(\.words) == ["york", "and", "leeds", "leeds", "and", "york", "and", "leeds", "york"])
        #expect(
            chosen.map(\.place) == [
                "initial", "medial", "final", "initial", "medial", "before-comma", "medial", "question", "final",
            ])
        // No take was recorded for a sentence's start: the medial one plays there, as the fallback order says.
        #expect(
            chosen.map(\.take) == [
                "medial", "untagged", "final", "medial", "untagged", "medial", "untagged", "question", "final",
            ])
    }

    @Test("the same request renders the same bytes every time; rotation plays other takes")
    func deterministic() throws {
        try makePack()
        let text = "York and Leeds. Leeds and York? York and Leeds and York."
        let first = try concatSynth.runData(["render", "--bank", bank, "-o", "-", text])
        let second = try concatSynth.runData(["render", "--bank", bank, "-o", "-", text])
        #expect(first == second && !first.isEmpty)
        let rotated = try concatSynth.runData(["render", "--bank", bank, "-o", "-", "--takes", "rotate", text])
        #expect(rotated != first)
    }

    @Test("coverage lists the places the texts need that no take was recorded for")
    func coverage() throws {
        try makePack()
        let result = try voicebank.run([
            "coverage", "--bank", bank, "York and Leeds.", "Leeds and York.", "York, Leeds and York?",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("positions to record:\n"))
        #expect(result.standardOutput.contains(#"  no initial take of "york": 2 uses"#))
        #expect(result.standardOutput.contains(#"  no initial take of "leeds": 1 use"#))
        #expect(!result.standardOutput.contains(#"no final take"#))
        let json = try voicebank.run(["coverage", "--bank", bank, "--json", "York and Leeds."])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let missing = try #require(object["missingPositions"] as? [[String: Any]])
        #expect(missing.first?["phrase"] as? String == "york" && missing.first?["position"] as? String == "initial")
    }

    @Test("the selection weights are voice settings: configure sets them, info shows them, bad ones are refused")
    func weights() throws {
        try makePack()
        let configured = try voicebank.run([
            "configure", "--bank", bank, "--position-weight", "0", "--pitch-weight", "2",
        ])
        #expect(configured.status == 0, "\(configured.standardError)")
        let info = try voicebank.run(["info", "--bank", bank])
        #expect(
            info.standardOutput.contains(
                "  take selection: position 0.0, pitch 2.0 a semitone, energy 0.05 a dB, spectrum 0.05\n"))
        // With places weighing nothing, every take's target cost is 0: the weights reach the render.
        let render = try concatSynth.run([
            "render", "--bank", bank, "-o", directory.file("w.wav"), "--join-report", "York and Leeds and York.",
        ])
        let reported = render.standardError.split(separator: "\n").filter { $0.hasPrefix("@") }
        #expect(reported.count == 5)
        #expect(reported.allSatisfy { $0.contains(", target 0.00") }, "\(render.standardError)")

        let refused = try voicebank.run(["configure", "--bank", bank, "--energy-weight", "101"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError == "Error: invalid --energy-weight 101.0; expected a weight from 0 (ignored) to 100\n"
        )
    }
}
