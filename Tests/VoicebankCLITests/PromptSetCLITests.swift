// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// A phone-system prompt set (Asterisk's layout and `core-sounds-en.txt` transcript) imported as it ships, and
/// the pack made from it speaking numbers, dates, times and letters with `--strict`.
@Suite struct PromptSetCLITests {
    let voicebank = Binary("voicebank")
    let concatSynth = Binary("concat-synth")
    let directory = TemporaryDirectory("prompt-set")
    var bank: String { directory.file("ivr.sqlite") }

    func create() throws {
        let result = try voicebank.run([
            "create", "--bank", bank, "--voice", "com.example.allison", "--name", "Allison", "--language", "en-US",
        ])
        try #require(result.status == 0, "\(result.standardError)")
    }

    /// The frequency of the tone in `samples`, skipping the edge fades.
    func frequency(_ samples: ArraySlice<Float>) -> Double {
        Signal.frequency(Array(samples), sampleRate: 22_050, margin: 100)
    }

    @Test("voicebank import --transcript takes Asterisk's prompt set as it ships: every file, from the right line")
    func importAsShipped() throws {
        try create()
        let prompts = try PromptSet(in: directory.path)

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", prompts.transcriptPath])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "")
        #expect(result.standardOutput.contains("\(prompts.prompts.count) imported"))
        let pack = try VoicePack(path: bank, access: .readOnly)
        let clips = try pack.clips()
        // Stored in the transcript's order, each from the file its line names: its tone tells which file it was.
        #expect(clips.map(\.phrase) == prompts.prompts.map(\.text))
        for (clip, prompt) in zip(clips, prompts.prompts) {
            let samples = try pack.renderReadyPCM(clipID: clip.id)
            if let expected = prompt.frequency {
                #expect(abs(frequency(samples[...]) - expected) < 2, "\(prompt.name)")
            } else {
                #expect(samples.allSatisfy { $0 == 0 }, "\(prompt.name) is silence")
            }
        }
    }

    @Test(
        "a pack made from the prompt set speaks a number, a date, a time and letters with --strict, from the right files",
        arguments: [
            ("1234", ["one", "thousand", "two", "hundred", "thirty", "four"]),
            (
                #"<speak><say-as interpret-as="date" format="ymd">2024-11-21</say-as></speak>"#,
                ["november", "twenty", "first", "twenty", "twenty", "four"]
            ),
            (#"<speak><say-as interpret-as="time">2:05pm</say-as></speak>"#, ["two", "oh", "five", "p m"]),
            (#"<speak><say-as interpret-as="characters">IVR</say-as></speak>"#, ["i", "v", "r"]),
        ])
    func speaks(request: String, words: [String]) throws {
        try create()
        let prompts = try PromptSet(in: directory.path)
        let imported = try voicebank.run(["import", "--bank", bank, "--transcript", prompts.transcriptPath])
        try #require(imported.status == 0, "\(imported.standardError)")
        let fallback = try voicebank.run(["import", "--bank", bank, "--fallback", prompts.folder + "/beep.wav"])
        try #require(fallback.status == 0, "\(fallback.standardError)")
        let output = directory.file("out.wav")
        let markersFile = directory.file("out.jsonl")

        let result = try concatSynth.run([
            "render", "--bank", bank, "--strict", "-o", output, "--markers", markersFile, request,
        ])

        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "")
        let markers = try String(contentsOfFile: markersFile, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }.filter { $0["kind"] as? String == "phrase" }
        #expect(markers.map { $0["text"] as? String } == words)
        let rendered = try PreparedClip(path: output).renderReady
        for marker in markers {
            let text = try #require(marker["text"] as? String)
            let prompt = try #require(prompts.prompts(saying: text).first, "a prompt says \(text)")
            let frame = try #require(marker["frame"] as? Int)
            let frames = try #require(marker["frames"] as? Int)
            #expect(
                abs(frequency(rendered[frame..<(frame + frames)]) - prompt.frequency!) < 2,
                "\(text) is the tone of \(prompt.name)")
        }
        let last = try #require(markers.last)
        #expect((last["frame"] as! Int) + (last["frames"] as! Int) == rendered.count)
    }

    /// The prompt set with one more line, `goodbye`, whose name fits `conf/goodbye.wav` and `vm/goodbye.wav` alike.
    func ambiguousPromptSet() throws -> PromptSet {
        let prompts = try PromptSet(in: directory.path)
        for (folder, frequency) in [("conf", 3_000.0), ("vm", 3_200.0)] {
            try FileManager.default.createDirectory(
                atPath: "\(prompts.folder)/\(folder)", withIntermediateDirectories: true)
            try Fixture.write(
                Signal.sine(frequency: frequency, sampleRate: 8_000, frameCount: 2_000),
                to: "\(prompts.folder)/\(folder)/goodbye.wav", format: AudioFileFormat(.wav, .pcm16), sampleRate: 8_000)
        }
        let transcript = try String(contentsOfFile: prompts.transcriptPath, encoding: .utf8)
        try (transcript + "goodbye: Goodbye.\n").write(
            toFile: prompts.transcriptPath, atomically: true, encoding: .utf8)
        return prompts
    }

    @Test("a line that still names two files stops the import and stores nothing; the error names the line and files")
    func ambiguousLineStops() throws {
        try create()
        let prompts = try ambiguousPromptSet()
        let line = prompts.prompts.count + 2

        let result = try voicebank.run(["import", "--bank", bank, "--transcript", prompts.transcriptPath])

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Error: transcript \(prompts.transcriptPath) line \(line): \"goodbye\" names both \(prompts.folder)/conf/goodbye.wav and \(prompts.folder)/vm/goodbye.wav; expected a name with its folder, such as conf/goodbye.wav, that names one file\n"
        )
        #expect(try VoicePack(path: bank, access: .readOnly).clips().isEmpty)
    }

    @Test("with --keep-going, a line that still names two files is reported and skipped while the rest imports")
    func ambiguousLineKeepGoing() throws {
        try create()
        let prompts = try ambiguousPromptSet()
        let line = prompts.prompts.count + 2

        let result = try voicebank.run([
            "import", "--bank", bank, "--keep-going", "--transcript", prompts.transcriptPath,
        ])

        #expect(result.status == 1)
        #expect(
            result.standardError
                == "failed: transcript \(prompts.transcriptPath) line \(line): \"goodbye\" names both \(prompts.folder)/conf/goodbye.wav and \(prompts.folder)/vm/goodbye.wav; expected a name with its folder, such as conf/goodbye.wav, that names one file\n"
        )
        #expect(result.standardOutput.contains("\(prompts.prompts.count) imported"))
        #expect(result.standardOutput.contains(" 1 failed,"))
        #expect(try VoicePack(path: bank, access: .readOnly).clips().map(\.phrase) == prompts.prompts.map(\.text))
    }
}
