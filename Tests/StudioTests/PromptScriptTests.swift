// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import TestSupport
import Testing

@testable import ConcatSynth
@testable import Studio

@Suite struct PromptScriptTests {
    /// A report whose inputs fall back on `runs` (each a fallback piece between covered ones), and speak phrases at
    /// places they have no take for.
    func report(_ inputs: [[String]], missingPositions: [CoverageReport.MissingPosition] = []) -> CoverageReport {
        CoverageReport(
            voice: "com.example.ann",
            inputs: inputs.enumerated().map { index, runs in
                CoverageReport.Input(
                    name: "text \(index + 1)",
                    pieces: runs.flatMap {
                        [
                            CoverageReport.Piece(text: "hello", isFallback: false, voice: "com.example.ann"),
                            CoverageReport.Piece(text: $0, isFallback: true, voice: "com.example.ann"),
                        ]
                    })
            }, fallbackPhrases: [], fallbackWords: [], missingPositions: missingPositions, tokenCount: 0,
            coveredTokenCount: 0,
            warnings: [])
    }

    @Test("a run that falls back in several places is one prompt, covering more words than its words would")
    func runBeatsWords() {
        let script = PromptScript.missing(from: report([["Bob says"], ["bob says", "goodbye"]]))
        #expect(script.prompts.map(\.text) == ["bob says", "goodbye"])
        #expect(script.prompts.map(\.id) == ["1", "2"])
    }

    @Test("the greedy order: the most missing words covered first, then the more frequent, then the shorter")
    func greedyOrder() {
        // "the" falls back 3 times (3 words); "carol smith" once (2 words); "carol" and "smith" alone once more each.
        let script = PromptScript.missing(from: report([["the", "carol smith", "the"], ["the carol", "smith"]]))
        // the: 4 words (the 4th inside "the carol"); then carol and smith cover 2 each: carol smith covers 2 as
        // well but is longer, so the single words come first; once they are chosen, carol smith covers nothing new.
        #expect(script.prompts.map(\.text) == ["the", "carol", "smith"])
    }

    @Test("a run longer than a breath is offered only word by word")
    func longRun() {
        let long = "one two three four five six seven eight nine"
        let script = PromptScript.missing(from: report([[long]]), longestRun: 8)
        #expect(script.prompts.count == 9)
        #expect(script.prompts.first?.text == "one")
    }

    @Test("nothing missing, no prompt")
    func nothingMissing() {
        #expect(PromptScript.missing(from: report([[]])).prompts.isEmpty)
    }

    @Test("a prompt file: phrases a line, piper's id<TAB>text, blank lines skipped, a repeated phrase left out")
    func promptFile() throws {
        let script = try PromptScript.parse(
            "\u{FEFF}Good morning\r\n\nrec_0001\tDouble tap to open.\n  Settings  \ngood, MORNING!\n", path: "p.txt")
        #expect(script.prompts.map(\.id) == ["1", "rec_0001", "4"])
        #expect(script.prompts.map(\.text) == ["Good morning", "Double tap to open.", "Settings"])
        #expect(script.prompts[1].phraseKey == "double tap to open")
        #expect(script.warnings == [#"p.txt line 5: "good, MORNING!" is the phrase of line 1 already; left out"#])
    }

    @Test(
        "a prompt file the studio cannot take names its line",
        arguments: [
            ("a\t1\nb\t2\na\t3\n", #"p.txt line 3: the id "a" is line 1's already"#),
            ("\thello\n", "p.txt line 1: the id before the tab is empty"),
            ("hello\n!!!\n", #"p.txt line 2: the phrase "!!!" has no words"#),
            ("\n \n", "nothing to record: p.txt has no phrase"),
        ])
    func badPromptFile(text: String, message: String) {
        #expect {
            try PromptScript.parse(text, path: "p.txt")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test("appended phrases are numbered after the ids a prompt file took, and a phrase the script has is left out")
    func append() {
        var script = PromptScript(prompts: [Prompt(id: "2", text: "Good evening"), Prompt(id: "rec_1", text: "Bob")])
        let added = script.append(["good evening!", "Carol", "", "carol", "the weather"])
        #expect(added.map(\.text) == ["Carol", "the weather"])
        #expect(added.map(\.id) == ["1", "3"])
        #expect(script.prompts.map(\.id) == ["2", "rec_1", "1", "3"])
    }
}

@Suite struct PromptPositionTests {
    @Test("the places the texts need come after the missing phrases, most uses first, each read with its punctuation")
    func missingPositions() {
        let report = PromptScriptTests().report(
            [["carol"]],
            missingPositions: [
                .init(phrase: "york", position: .final, count: 3),
                .init(phrase: "leeds", position: .question, count: 2),
                .init(phrase: "York", position: .medial, count: 1),
                .init(phrase: "carol", position: .initial, count: 1),
            ])
        let script = PromptScript.missing(from: report)
        #expect(script.prompts.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(script.prompts.map(\.text) == ["carol", "york", "leeds", "York", "carol"])
        #expect(script.prompts.map(\.position) == [nil, .final, .question, .medial, .initial])
        #expect(script.prompts.map(\.readText) == ["carol", "york.", "leeds?", "York,", "carol …"])
        #expect(script.prompts[1].howToSay == "say it as the end of a sentence")
        #expect(script.prompts[0].howToSay == nil)
    }

    @Test("a prompt's punctuation is its place's, whatever the phrase ended with")
    func readText() {
        #expect(Prompt(id: "1", text: "Good morning!", position: .question).readText == "Good morning?")
        #expect(Prompt(id: "1", text: "Double tap to open. ", position: .medial).readText == "Double tap to open,")
        #expect(Prompt(id: "1", text: "Good morning!").readText == "Good morning!")
    }

    @Test("a prompt file's positions: a file name's prefix, or a third column; one phrase at two places is two prompts")
    func promptFile() throws {
        let script = try PromptScript.parse(
            "e.York\nq.Leeds\nrec_3\tLondon\tmedial\nrec_4\te.g. this\t\nYork\nrec_6\tYork\tFINAL\n", path: "p.txt")
        #expect(script.prompts.map(\.id) == ["1", "2", "rec_3", "rec_4", "5"])
        #expect(script.prompts.map(\.text) == ["York", "Leeds", "London", "e.g. this", "York"])
        #expect(script.prompts.map(\.position) == [.final, .question, .medial, nil, nil])
        #expect(
            script.warnings == [#"p.txt line 6: "York" is the phrase of line 1 already for a final take; left out"#])
    }

    @Test(
        "a position a prompt file cannot have names its line and what it accepts",
        arguments: [
            (
                "1\tYork\tlast\n",
                #"p.txt line 1: the position "last" is not one; expected initial, medial, final, question, or nothing for none"#
            ),
            ("1\tYork\tfinal\tloud\n", "p.txt line 1: it has 4 tab-separated columns; expected text, id<TAB>text"),
        ])
    func badPosition(text: String, message: String) {
        #expect {
            try PromptScript.parse(text, path: "p.txt")
        } throws: { error in
            "\(error)".hasPrefix(message)
        }
    }

    @Test("appended phrases at places: a phrase the script has for another place is a new prompt")
    func append() {
        var script = PromptScript(prompts: [Prompt(id: "1", text: "York")])
        let added = script.append([("york", .final), ("York", nil), ("york.", .final), ("Leeds", .question)])
        #expect(added.map(\.id) == ["2", "3"])
        #expect(added.map(\.readText) == ["york.", "Leeds?"])
    }
}
