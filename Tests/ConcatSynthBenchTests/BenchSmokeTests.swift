// SPDX-License-Identifier: GPL-3.0-or-later
import TestSupport
import Testing

/// The benchmark (tools/bench) is not run by the suite, but its --smoke mode is, so that it cannot rot.
@Suite struct BenchSmokeTests {
    let bench = Binary("concat-synth-bench")

    @Test("--smoke runs every item with tiny packs and prints every table and target")
    func smoke() throws {
        let directory = TemporaryDirectory("concat-synth-bench")
        // The pack the bench speaks with, which tools/bench makes before it runs.
        _ = ScreenReaderPack.path
        let result = try bench.run(["--smoke", "--work-directory", directory.path])

        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        for title in [
            "### 1. Whole-process latency", "### 1b. The same runs' CPU time", "### 1c. Floors",
            "### 2. In-process time to first audio", "### 3. Long render",
            "### 4. Import of 5 clips", "### 5. Peak RSS", "### 6. speech-dispatcher module",
            "### 6b. The same, each run the first message of a module just started",
            "### 7. Long render at a speaking rate", "### 7b. In-process time to first audio at 4x",
            "### 8. Peak RSS of a render of a long request", "### 9. Wyoming server", "### 10. HTTP server",
            "### 11. Fallback quality: word errors", "### 11b. Fallback quality: joins",
            "### 12. First audio of a request that starts with uncovered words",
            "### 13. Wyoming server over loopback, requests that need the fallback voice",
            "### 14. Takes by place and join cost", "### 14. Takes: long render",
            "### 15. The studio", "### 15b. The studio's page", "### 16. Takes by place: F0 jumps at joins",
            "### 17. Everyday sentences heard by Whisper tiny.en", "### 17b. Everyday sentences heard by Whisper",
            "### 17c. Everyday sentences: what Whisper tiny.en heard",
            "### 18. Output conversion from 22050 Hz",
            "### 18b. \"Good morning, double tap to open.\" rendered and converted in process",
            "### 19. Soak: one serve process", "### 19b. Soak: the server process",
            "### 20. First audio of a request that starts with a word built from units",
            "### 20b. A long `units` render", "### 20c. Peak RSS of a concat-synth render process, `units` mode",
            "### 21. Units: F0 jumps at joins", "### 21b. Units: F0 over a word's last voiced 300 ms",
            "### 21c. Pitch shifting",
            "### 22. Sameness of voice: F0", "### 22b. Sameness of voice: cosine similarity",
            "### 23. Import of 3 of the English voice's prompts",
            "### Targets (issues 6, 10, 11, 14, 21, 22, 23, 25, 34, 35 and 36)",
        ] {
            #expect(output.contains(title), "no table \(title)")
        }
        let rows = output.split(separator: "\n").filter { $0.hasPrefix("| ") }
        for request in [
            "basic", "inline-break", "say-as-characters", "split-1", "split-2", "split-3", "wwdc-hello",
            "six-word sentence",
        ] {
            #expect(
                rows.filter { $0.hasPrefix("| \(request) |") }.count >= 2, "items 1 and 2 have a row for \(request)")
        }
        // The rows of the targets' table, the last one printed (other tables may end a row with n/a too).
        let targetRows = output.split(separator: "### Targets").last?.split(separator: "\n") ?? []
        let targets = targetRows.filter {
            $0.hasPrefix("| ") && ($0.hasSuffix("| met |") || $0.hasSuffix("| NOT met |") || $0.hasSuffix("| n/a |"))
        }
        #expect(targets.count == 43, "forty-three targets with a verdict:\n\(output)")
        // Two soaks, as configured and the `clip` control, four targets each. Seconds of traffic tell whether the
        // requests were served, not whether the process stays flat.
        let soak = targets.filter { $0.hasPrefix("| Soak (") }
        #expect(
            soak.count == 8 && soak.filter { !$0.contains(" flat ") }.allSatisfy { $0.hasSuffix("| met |") },
            "\(soak)")
        // The studio kept its takes and served its page.
        #expect(rows.contains { $0.hasPrefix("| voice with a fallback clip, no texts |") && !$0.contains("n/a") })
        #expect(rows.contains { $0.hasPrefix("| first load |") })
        // Every Wyoming and HTTP row served its requests with no error (item 13's too).
        for clients in [1, 10, 50] {
            #expect(
                rows.filter { $0.hasPrefix("| \(clients) | ") && $0.contains(" | 0 | ") }.count >= 3,
                "\(clients) clients")
        }
        // Item 11 heard every rendering of its two sentences, and item 12 timed both sides.
        let errorRates = try #require(rows.first { $0.hasPrefix("| word error rate, all 2 |") })
        #expect(errorRates.split(separator: "|").count == 6 && !errorRates.contains("n/a"), "\(errorRates)")
        let firstAudio = rows.filter { $0.hasPrefix("| Zebra crossing ahead.") || $0.hasPrefix("| The weather today") }
        #expect(firstAudio.count == 2 && firstAudio.allSatisfy { !$0.contains("n/a") }, "\(firstAudio)")
        // Item 12b timed each request that starts covered in both modes.
        let coveredFirst = rows.filter {
            $0.hasPrefix("| Hello Bob,") || $0.hasPrefix("| Double tap to open. Zebra")
                || $0.hasPrefix("| Good morning. The")
        }
        #expect(coveredFirst.count == 3 && coveredFirst.allSatisfy { $0.hasSuffix("x |") }, "\(coveredFirst)")
        // Item 16 measured joins and heard words in each of its three renderings of its two announcements.
        for takes in ["best", "rotate", "continuation takes only"] {
            let row = try #require(rows.first { $0.hasPrefix("| \(takes) |") }, "item 16 has a row for \(takes)")
            // The median F0 jump, the joins measured and both word error rates, listening for the pack's words and
            // free-form (a pack of one take a phrase has no choice of takes, so its fourth column is n/a).
            let cells = row.split(separator: "|").map { $0.trimmingPrefix(" ") }
            #expect(
                cells.count == 7 && !cells[1].hasPrefix("n/a") && !cells[3].hasPrefix("0 of")
                    && !cells[5].hasPrefix("n/a") && !cells[6].hasPrefix("n/a"), "\(row)")
        }
        // Item 17's judge heard the default voice as configured (`units`), a copy of it in `voice` mode and espeak-ng
        // speak its two sentences (flite is an anchor that may be missing), and its first target reads `units`'s rate
        // against `voice`'s.
        for speaking in ["this voice (`units`) |", "this voice, `voice` |", "espeak-ng whole |"] {
            let row = try #require(rows.first { $0.hasPrefix("| \(speaking)") }, "item 17 has a row for \(speaking)")
            #expect(row.contains(" | 10 | ") && !row.contains("n/a"), "\(row)")
        }
        let unitsTarget = try #require(
            rows.first {
                $0.hasPrefix(
                    "| everyday sentences heard by Whisper tiny.en: the English voice's word error rate with `units` "
                        + "no worse than the espeak-ng fallback's"
                )
            })
        #expect(unitsTarget.contains(" % against "), "\(unitsTarget)")
        // Item 22 measured F0 in the voice's clips and in espeak-ng's words in `voice` mode; item 23 imported its
        // prompts both ways and aligned them.
        for speech in ["the voice's clips", "words espeak-ng speaks (`voice` mode)"] {
            let row = try #require(rows.first { $0.hasPrefix("| \(speech) |") }, "item 22 has a row for \(speech)")
            #expect(!row.contains("n/a"), "\(row)")
        }
        let alignedImport = try #require(rows.first { $0.hasPrefix("| aligned (the default) |") })
        #expect(alignedImport.hasSuffix("| 3 of 3 (0 failed) |"), "\(alignedImport)")
        // An anchor that is not installed is n/a, never a failure; the figures of our own tools are always there.
        let inProcess = try #require(rows.first { $0.hasPrefix("| six-word sentence |") && !$0.contains("x |") })
        #expect(!inProcess.contains("n/a"))
        #expect(rows.contains { $0.hasPrefix("| voicebank import") && !$0.contains("n/a") })
        #expect(rows.contains { $0.hasPrefix("| concat-synth: plan and render") && !$0.contains("n/a") })
        for speed in ["1x", "2x", "4x"] {
            #expect(rows.contains { $0.hasPrefix("| \(speed) |") && !$0.contains("n/a") }, "item 7 renders at \(speed)")
        }
        #expect(rows.contains { $0.hasPrefix("| plain text on standard input |") })
        // Items 6 and 6b time our module on every request; the first two columns are ours.
        let moduleRows = rows.filter { $0.hasPrefix("| hello, nice to meet you |") }
        #expect(moduleRows.count == 2)
        for moduleRow in moduleRows {
            let moduleCells = moduleRow.split(separator: "|")
            #expect(
                moduleCells.count == 7 && !moduleCells[1].contains("n/a") && !moduleCells[4].contains("n/a"),
                "\(moduleRow)")
        }
    }
}
