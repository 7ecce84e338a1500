import TestSupport
import Testing

@testable import ConcatSynth
@testable import Studio

@Suite struct PromptScriptTests {
    /// A report whose inputs fall back on `runs` (each a fallback piece between covered ones).
    func report(_ inputs: [[String]]) -> CoverageReport {
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
            }, fallbackPhrases: [], fallbackWords: [], missingPositions: [], tokenCount: 0, coveredTokenCount: 0,
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
