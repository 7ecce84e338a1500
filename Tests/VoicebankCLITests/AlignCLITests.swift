// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

/// Alignment of takes to their words and phones (tools/align-takes, pocketsphinx 5 in tools/python-env's
/// environment): at import, by `voicebank align`, shown by `voicebank list --phones`, failures by `voicebank verify`.
/// Takes are spoken by espeak-ng's program and cut and joined by sox, so that where each word starts is known.
@Suite struct AlignCLITests {
    let voicebank = Binary("voicebank")
    let directory = TemporaryDirectory("align")
    var bank: String { directory.file("pack.sqlite") }

    /// The pause put between words in `spokenApart`, and before the first and after the last.
    static let pause = 0.3

    func sox(_ arguments: [String]) throws {
        let result = try Binary(path: "/usr/bin/sox").run(arguments)
        try #require(result.status == 0, "sox \(arguments): \(result.standardError)")
    }

    /// `words` spoken one at a time by espeak-ng, each cut to its sound (sox's silence effect at both ends) and
    /// joined with `pause` seconds of silence around each; the file and each word's start and end in seconds.
    func spokenApart(_ words: [String], as name: String) throws -> (path: String, words: [ClosedRange<Double>]) {
        var parts: [String] = []
        var times: [ClosedRange<Double>] = []
        var time = Self.pause
        let gap = directory.file("gap.wav")
        try sox(["-n", "-r", "22050", "-c", "1", "-b", "16", gap, "trim", "0", "\(Self.pause)"])
        parts.append(gap)
        for (index, word) in words.enumerated() {
            let raw = directory.file("\(name)-\(index)-raw.wav")
            let cut = directory.file("\(name)-\(index).wav")
            let espeak = try Binary(path: "/usr/bin/espeak-ng").run(["-v", "en-us", "-w", raw, word])
            try #require(espeak.status == 0, "\(espeak.standardError)")
            try sox([
                raw, "-b", "16", cut, "silence", "1", "0.005", "1%", "reverse", "silence", "1", "0.005", "1%",
                "reverse",
            ])
            let info = try Binary(path: "/usr/bin/soxi").run(["-D", cut])
            let seconds = try #require(Double(info.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
            times.append(time...(time + seconds))
            time += seconds + Self.pause
            parts += [cut, gap]
        }
        let path = directory.file("\(name).wav")
        try sox(parts + [path])
        return (path, times)
    }

    func createVoice() throws {
        let created = try voicebank.run([
            "create", "--bank", bank, "--voice", "com.example.aligned", "--name", "Aligned", "--language", "en-US",
        ])
        try #require(created.status == 0, "\(created.standardError)")
    }

    /// `list --phones --json`'s clips.
    func listed() throws -> [[String: Any]] {
        let result = try voicebank.run(["list", "--bank", bank, "--phones", "--json"])
        try #require(result.status == 0, "\(result.standardError)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
    }

    @Test("import --align aligns an English take: its words land where they were spoken, each with its phones")
    func knownBoundaries() throws {
        try createVoice()
        let words = ["seven", "bright", "kittens", "jumped", "over", "fences"]
        let take = try spokenApart(words, as: "take")

        let imported = try voicebank.run([
            "import", "--align", "--bank", bank, "--text", words.joined(separator: " "), take.path,
        ])

        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.contains("aligned 1 take"), "\(imported.standardError)")
        let alignment = try #require(try listed().first?["alignment"] as? [String: Any])
        #expect((alignment["aligner"] as? String)?.hasPrefix("pocketsphinx 5.") == true)
        let aligned = try #require(alignment["words"] as? [[String: Any]])
        #expect(aligned.map { $0["label"] as? String } == words)
        var errors: [Double] = []
        for (word, known) in zip(aligned, take.words) {
            let start = try #require(word["startFrame"] as? Int)
            let end = try #require(word["endFrame"] as? Int)
            errors += [abs(Double(start) / 22050 - known.lowerBound), abs(Double(end) / 22050 - known.upperBound)]
            let phones = try #require(word["phones"] as? [[String: Any]])
            #expect(!phones.isEmpty)
            // Phones tile their word.
            #expect(phones.first?["startFrame"] as? Int == start)
            #expect(phones.last?["endFrame"] as? Int == end)
        }
        // docs/benchmarks.md measures the aligner's word boundaries on espeak-ng's speech against its phoneme events:
        // 24 ms on average. Here the truth is where sox finds sound, and a word's quiet last release may be taken into
        // the pause after it: most boundaries are close, and none is lost.
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean < 0.06, "boundary errors \(errors)")
        #expect(errors.filter { $0 < 0.05 }.count * 4 >= errors.count * 3, "boundary errors \(errors)")
        #expect(errors.allSatisfy { $0 < Self.pause }, "boundary errors \(errors)")

        let text = try voicebank.run(["list", "--bank", bank, "--phones"])
        #expect(text.standardOutput.contains("\taligned by pocketsphinx 5."), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("\tseven\t"), "\(text.standardOutput)")
    }

    @Test("import aligns English takes unless --no-align or VOICEBANK_ALIGN=0 says not to, and marks their periods")
    func alignsByDefault() throws {
        try createVoice()
        let take = try spokenApart(["north", "south"], as: "take")
        let copy = directory.file("copy.wav")
        let other = directory.file("other.wav")
        try FileManager.default.copyItem(atPath: take.path, toPath: copy)
        try FileManager.default.copyItem(atPath: take.path, toPath: other)

        let aligned = try voicebank.run(
            ["import", "--bank", bank, "--text", "north south", take.path], environment: ["VOICEBANK_ALIGN": nil])
        let told = try voicebank.run(
            ["import", "--bank", bank, "--no-align", "--text", "south north", copy],
            environment: ["VOICEBANK_ALIGN": nil])
        let quiet = try voicebank.run(["import", "--bank", bank, "--text", "north", other])

        #expect(aligned.status == 0 && told.status == 0 && quiet.status == 0, "\(aligned.standardError)")
        #expect(aligned.standardError.hasPrefix("aligned 1 take "), "\(aligned.standardError)")
        #expect(told.standardError.isEmpty && quiet.standardError.isEmpty, "\(told.standardError)")
        #expect(try rows("SELECT clip_id FROM alignment", on: bank) == [["1"]])
        // Every take has its pitch marks, aligned or not: espeak-ng's voice, about 100 Hz, in its voiced stretches.
        let marks = try rows("SELECT clip_id, length(marks) / 4 FROM pitch_marks ORDER BY clip_id", on: bank)
        #expect(marks.map { $0[0] } == ["1", "2", "3"])
        #expect(marks.allSatisfy { Int($0[1] ?? "") ?? 0 > 20 }, "\(marks)")

        // A take another program stored without marks gets them from voicebank align.
        try execute("DELETE FROM pitch_marks WHERE clip_id = 2", on: bank)
        let align = try voicebank.run(["align", "--bank", bank])
        #expect(align.standardOutput.hasPrefix("measured the pitch marks of 1 take\n"), "\(align.standardOutput)")
        #expect(try rows("SELECT count(*) FROM pitch_marks", on: bank) == [["3"]])
    }

    @Test("takes imported together are aligned by as many aligners as --jobs, and the import ends when they are done")
    func alignerPool() throws {
        try createVoice()
        let north = try spokenApart(["north"], as: "north")
        let south = try spokenApart(["south"], as: "south")
        let transcript = directory.file("transcript.tsv")
        try "file\ttext\nnorth.wav\tnorth\nsouth.wav\tsouth\n".write(
            toFile: transcript, atomically: true, encoding: .utf8)

        let imported = try voicebank.run(
            ["import", "--bank", bank, "--jobs", "2", "--transcript", transcript, north.path, south.path],
            environment: ["VOICEBANK_ALIGN": nil])

        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.hasPrefix("aligned 2 takes "), "\(imported.standardError)")
        #expect(try rows("SELECT label FROM aligned_word ORDER BY clip_id", on: bank) == [["north"], ["south"]])
    }

    @Test("the aligner aligns a take the same whichever take it aligned before it")
    func alignerHoldsNothingBetweenTakes() throws {
        // Two takes in rooms of their own, as recordings are: what pocketsphinx's front end learnt of one room's noise
        // must not reach the next take, or a pack's alignment would depend on which aligner of a pool took which take.
        var requests: [String] = []
        for (word, noise) in [("north", ["whitenoise", "vol", "0.3"]), ("south", ["brownnoise", "vol", "0.01"])] {
            let spoken = directory.file("\(word).wav")
            let espeak = try Binary(path: "/usr/bin/espeak-ng").run(["-v", "en-us", "-w", spoken, word])
            try #require(espeak.status == 0, "\(espeak.standardError)")
            let room = directory.file("\(word)-room.wav")
            try sox(["-n", "-r", "22050", "-c", "1", "-b", "16", room, "synth", "1"] + noise)
            let raw = directory.file("\(word).raw")
            try sox(["-m", spoken, room, "-r", "16000", "-b", "16", "-e", "signed", "-t", "raw", raw])
            requests.append("\(raw)\t\(word)\n")
        }
        var answers: [[String]] = []
        for order in [requests, requests.reversed()] {
            let aligned = try Binary(path: PythonDriver.python.get()).run(
                ["\(PythonDriver.root)/tools/align-takes"], input: Data(order.joined().utf8))
            try #require(aligned.status == 0, "\(aligned.standardError)")
            answers.append(aligned.standardOutput.split(separator: "\n").map(String.init))
        }
        // Each take's answer, north's first: the lines from its "aligned" line to its ".".
        func byTake(_ lines: [String], northFirst: Bool) -> [[String]] {
            let takes = lines.split(separator: ".").map(Array.init)
            return northFirst ? takes : takes.reversed()
        }
        #expect(answers[0].first?.hasPrefix("aligned ") == true, "\(answers[0])")
        #expect(byTake(answers[0], northFirst: true) == byTake(answers[1], northFirst: false))
    }

    @Test("voicebank align aligns a pack's takes that have none, and run again changes nothing")
    func idempotent() throws {
        try createVoice()
        let take = try spokenApart(["north", "south"], as: "take")
        // Imported with no aligner to be found: the import stands, unaligned, with one line saying how to align.
        let imported = try voicebank.run(
            ["import", "--bank", bank, "--text", "north south", take.path],
            environment: ["VOICEBANK_ALIGNER": directory.file("nowhere"), "VOICEBANK_ALIGN": nil])
        #expect(imported.status == 0, "\(imported.standardError)")
        let note = imported.standardError.split(separator: "\n").filter { $0.contains("aligned") }
        #expect(note.count == 1, "\(imported.standardError)")
        #expect(note.first?.hasPrefix("note: the takes imported are not aligned (cannot start the aligner") == true)
        #expect(note.first?.hasSuffix("`voicebank align --bank \(bank)` aligns them later") == true)
        #expect(try listed().first?["alignment"] is NSNull)

        let first = try voicebank.run(["align", "--bank", bank])
        let afterFirst = try listed()
        let second = try voicebank.run(["align", "--bank", bank, "--voice", "com.example.aligned"])

        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.hasPrefix("aligned 1 take "), "\(first.standardOutput)")
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput == "aligned 0 takes (0.00 s), 0 failed, 0 not alignable, in \(bank)\n")
        #expect(NSArray(array: try listed()).isEqual(to: afterFirst))
        let words = (afterFirst.first?["alignment"] as? [String: Any])?["words"] as? [[String: Any]]
        #expect(words?.map { $0["label"] as? String } == ["north", "south"])
    }

    @Test("a take whose audio says other words than its transcript is stored as failed and flagged by verify")
    func mismatch() throws {
        try createVoice()
        let take = try spokenApart(["seven", "bright", "kittens"], as: "take")

        let imported = try voicebank.run([
            "import", "--align", "--bank", bank, "--text", "good morning ladies and gentlemen welcome aboard",
            take.path,
        ])

        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.contains("warning: clip #1 \"good morning ladies"), "\(imported.standardError)")
        let alignment = try #require(try listed().first?["alignment"] as? [String: Any])
        #expect(alignment["failure"] is String)
        #expect((alignment["words"] as? [Any])?.isEmpty == true)
        let verify = try voicebank.run(["verify", "--bank", bank])
        #expect(verify.status == 1)
        #expect(verify.standardOutput.contains("alignment: clip #1: \"good morning ladies"), "\(verify.standardOutput)")
    }

    @Test("a take too short for its words gets a warning naming it, and nothing is stored")
    func tooShort() throws {
        try createVoice()
        let blip = directory.file("blip.wav")
        try sox(["-n", "-r", "22050", "-c", "1", "-b", "16", blip, "synth", "0.05", "sine", "300"])

        let imported = try voicebank.run([
            "import", "--align", "--bank", bank, "--text", "good morning everybody", blip,
        ])

        #expect(imported.status == 0, "\(imported.standardError)")
        let warnings = imported.standardError.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(
            warnings.count == 1
                && warnings[0].hasPrefix("warning: clip #1 \"good morning everybody\": cannot be aligned")
                && warnings[0].hasSuffix("; nothing stored"), "\(imported.standardError)")
        #expect(try listed().first?["alignment"] is NSNull)
        let text = try voicebank.run(["list", "--bank", bank, "--phones"])
        #expect(text.standardOutput.hasSuffix("\tnot aligned\n"), "\(text.standardOutput)")
    }

    @Test("a word the English front end cannot phonemize, nor the aligner's dictionary has, gets a warning naming it")
    func wordWithoutPhones() throws {
        try createVoice()
        // espeak-ng reads Cyrillic with a vowel (E:) the front end's table has no ARPAbet for: it guesses nothing.
        let take = try spokenApart(["privet"], as: "privet")

        let imported = try voicebank.run(["import", "--align", "--bank", bank, "--text", "привет", take.path])

        #expect(imported.status == 0, "\(imported.standardError)")
        let warnings = imported.standardError.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(
            warnings == [
                "warning: clip #1 \"привет\": cannot be aligned: the word 'привет' has no phones in CMU's dictionary or from espeak-ng; nothing stored"
            ], "\(imported.standardError)")
        #expect(try listed().first?["alignment"] is NSNull)
    }
}
