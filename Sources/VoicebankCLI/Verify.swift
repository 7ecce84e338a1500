import ArgumentParser
import CommandLineSupport
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
                not round(frames × 22050 ÷ rate)).
                """)

        @OptionGroup var bank: BankOptions

        @Flag(help: "Print a JSON array of problems instead of lines.")
        var json = false

        func run() throws {
            let pack = try bank.open(.readOnly)
            let problems = try pack.verify()
            if json {
                try printJSON(problems.map(ProblemJSON.init))
            } else {
                for problem in problems { print(problem) }
            }
            var standardError = StandardError()
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
