// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import CommandLineSupport
import Recognition
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a pack: SQLite integrity, and clips a listener would notice. Exit 1 if anything is found.",
            discussion: """
                One line per problem, naming the clip or voice: integrity (PRAGMA integrity_check), no-fallback \
                (a voice without a fallback clip), duplicate-take (same phrase key and identical audio), silent \
                (peak below -60 dBFS), clipped (3 or more samples in a row at full scale in the original), \
                loudness (more than 6 LU from the voice's median loudness; a clip under 400 ms, which R128 cannot \
                measure, is measured repeated end to end), phrase-key (empty, or not what the phrase normalises to), length (render-ready length \
                not round(frames × 22050 ÷ rate)), alignment (a take `voicebank align` could not align to its \
                phrase: its audio does not say it, and it gives no units). \
                With --words, also words: an offline recogniser (pocketsphinx, from Debian's libpocketsphinx3 and \
                pocketsphinx-en-us) listens to every take of the English voices, choosing among the voice's phrases, \
                and each take heard as other words than its phrase is a problem. A take with a word the recogniser's \
                dictionary lacks, and voices in other languages, are not checked: a note on standard error says so.
                """)

        @OptionGroup var bank: BankOptions

        @Flag(help: "Print a JSON array of problems instead of lines.")
        var json = false

        @Flag(help: "Also listen to every English take and report those whose words differ from their phrase.")
        var words = false

        func run() throws {
            // Loaded first, so that a machine without pocketsphinx gets its one line before any check runs.
            let recognizer = words ? try Recognizer() : nil
            let pack = try bank.open(.readOnly)
            var problems = try pack.verify()
            var notes: [String] = []
            if let recognizer {
                let report = try pack.checkWords(recognizer: recognizer)
                problems += report.problems
                notes = report.notes
            }
            if json {
                try printJSON(problems.map(ProblemJSON.init))
            } else {
                for problem in problems { print(problem) }
            }
            var standardError = StandardError()
            for note in notes { print("note: \(note)", to: &standardError) }
            print(
                problems.isEmpty
                    ? "\(pack.path): no problems found"
                    : "\(pack.path): \(problems.count) problem\(problems.count == 1 ? "" : "s") found",
                to: &standardError)
            if !problems.isEmpty { throw ExitCode.failure }
        }
    }
}

/// The fields of `voicebank verify --json`.
struct ProblemJSON: Encodable {
    var kind: String
    var voice: String?
    var clip: Int?
    var message: String

    init(_ problem: PackProblem) {
        kind = problem.kind.rawValue
        voice = problem.voice
        clip = problem.clipID
        message = problem.message
    }
}
