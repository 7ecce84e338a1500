// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing
import Voicebank

/// `concat-synth` with a copy of the default pack, whose English voice speaks uncovered words with the fallback voice
/// and whose Japanese voice here spells them.
@Suite struct FallbackCommandTests {
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("concat-synth-fallback")
    var bank: String { directory.file("voice.sqlite") }

    init() throws {
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: bank)
        for (voice, mode) in [("org.concatsynth.en", "voice"), ("org.concatsynth.ja", "spell")] {
            let configured = try Binary("voicebank").run([
                "configure", "--bank", bank, "--voice", voice, "--fallback", mode,
            ])
            try #require(configured.status == 0, "\(configured.standardError)")
        }
    }

    @Test(
        "--strict fails on a fallback-voice word as on a fallback clip, and writes nothing", arguments: ["file", "-"])
    func strict(output: String) throws {
        let target = output == "file" ? directory.file("strict.wav") : "-"
        let result = try concatSynth.run(["render", "--bank", bank, "--strict", "-o", target, "Hello Bob"])
        #expect(result.status == 1)
        #expect(result.standardError.contains(#"Error: voice org.concatsynth.en has no clip for "bob""#))
        #expect(result.standardOutputBytes.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("strict.wav")))
    }

    @Test("markers say which phrases the fallback voice spoke; the picture and --join-report show them")
    func markersPictureJoins() throws {
        let markers = directory.file("m.jsonl")
        let picture = directory.file("p.svg")
        let result = try concatSynth.run([
            "render", "--bank", bank, "-o", directory.file("out.wav"), "--markers", markers, "--picture", picture,
            "--join-report", "Hello Bob, good morning",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = try String(contentsOfFile: markers, encoding: .utf8).split(separator: "\n")
        // The sentence around the text, then its phrases.
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix(#"{"kind":"sentence","text":"hello bob good morning","frame":0,"#))
        #expect(lines[2].hasPrefix(#"{"kind":"phrase","text":"bob","frame":"#))
        #expect(lines[2].hasSuffix(#""textRange":[6,3],"fallback":"voice"}"#))
        #expect(!lines[0].contains("fallback") && !lines[1].contains("fallback") && !lines[3].contains("fallback"))
        let svg = try SVG(String(contentsOfFile: picture, encoding: .utf8))
        let fallback = try #require(svg.groups.first { $0.classes == ["fallback"] })
        #expect(fallback.title == "the fallback voice for \u{201C}bob\u{201D}")
        #expect(try String(contentsOfFile: picture, encoding: .utf8).contains(#"data-fallback="voice""#))
        #expect(result.standardError.contains("fallback: no clip for \"bob\" in voice org.concatsynth.en\n"))
        #expect(result.standardError.contains("2 joins: "))
        #expect(result.standardError.contains("; 2 of them at the fallback voice's speech, largest step "))
    }

    @Test("--plan prints what each stage decided before the audio, which stays as it was")
    func planDump() throws {
        let arguments = ["render", "--bank", bank, "-o", "-", "--encoding", "s16", "Hello Bob"]
        let plain = try concatSynth.run(arguments)
        let dumped = try concatSynth.run(arguments + ["--plan"])
        #expect(dumped.status == 0, "\(dumped.standardError)")
        #expect(dumped.standardOutputBytes == plain.standardOutputBytes)
        #expect(
            dumped.standardError.hasPrefix(
                "stages: event reading → text windows → phrase matching → fallback → take selection → placement\n"))
        #expect(dumped.standardError.contains("phrase matching \"bob\": no phrase in org.concatsynth.en\n"))
        #expect(dumped.standardError.contains("fallback \"bob\": fallback voice, "))
        #expect(dumped.standardError.contains("\nplacement: plan for org.concatsynth.en: "))
        #expect(dumped.standardError.hasSuffix(plain.standardError))
    }

    @Test("the same request gives the same bytes in every process")
    func deterministic() throws {
        let request = "Hello Bob, the weather today is sunny. Good morning."
        let first = try concatSynth.runData(["render", "--bank", bank, "-o", "-", request])
        let second = try concatSynth.runData(["render", "--bank", bank, "-o", "-", request])
        #expect(first == second)
        #expect(first.count > 22_050 * 4 * 2)
    }

    @Test("voices --json says how each voice speaks the words no clip covers")
    func voices() throws {
        let result = try concatSynth.run(["voices", "--bank", bank, "--json"])
        let voices = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(voices.map { $0["fallback"] as? String } == ["voice", "spell"])
    }
}
