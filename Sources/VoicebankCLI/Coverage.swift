import ArgumentParser
import AudioIO
import CommandLineSupport
import ConcatSynth
import Voicebank
import VoicebankAuthoring

extension VoicebankCommand {
    struct Coverage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show how a voice would speak texts: the clips it would use and the words that would fall back.",
            discussion: """
                Each TEXT and each --file is planned as concat-synth render would (SSML or plain text, numbers read \
                as words, greedy longest match) without rendering. Prints each input's segmentation, clips \
                separated by | and fallbacks in brackets (hello | good morning | [bob]), then the runs of words and \
                the single words that fell back, most frequent first: what to record next; then the places in a \
                sentence (initial, medial, final, question) the texts speak phrases at that no take was recorded for.
                Example: voicebank coverage --bank my.sqlite --file screen-reader-requests.txt
                """)

        @OptionGroup var bank: BankOptions

        @Option(help: ArgumentHelp("The starting voice; the pack's first voice if not given.", valueName: "id"))
        var voice: String?

        @Option(
            name: .customLong("file"),
            help: ArgumentHelp("A file of text or SSML; repeat for several.", valueName: "file"), completion: .file())
        var files: [String] = []

        @Flag(help: "Print a JSON object instead of text.")
        var json = false

        @Flag(help: "Read malformed SSML as its text, with a warning, instead of failing.")
        var lenient = false

        @Argument(help: ArgumentHelp("A text or SSML request; each is analysed on its own.", valueName: "text"))
        var texts: [String] = []

        func validate() throws {
            if texts.isEmpty && files.isEmpty { throw ValidationError("Nothing to analyse: give TEXT or --file FILE.") }
        }

        func run() throws {
            var inputs: [(name: String, text: String)] = texts.enumerated().map {
                ("text \($0.offset + 1)", $0.element)
            }
            for file in files {
                let bytes: [UInt8]
                do throws(FileError) { bytes = try readFile(atPath: file) } catch {
                    throw AuthoringError.fileSystem(
                        path: file, reason: "\(error.reason); expected a readable text or SSML file")
                }
                inputs.append((file, String(decoding: bytes, as: UTF8.self)))
            }
            let analyzer = try CoverageAnalyzer(bank: bank.path, voice: voice)
            for input in inputs {
                // Each input on its own first (planning is cheap), so that an SSML error names its input.
                do { _ = try analyzer.analyze([input], lenient: lenient) } catch {
                    throw InputError(input: input.name, error: error)
                }
            }
            let report = try analyzer.analyze(inputs, lenient: lenient)
            if json {
                try printJSON(CoverageJSON(report))
            } else {
                print(report)
            }
            var standardError = StandardError()
            for warning in report.warnings { print("warning: \(warning)", to: &standardError) }
        }
    }
}

/// An error in one input, named.
struct InputError: Error, CustomStringConvertible {
    var input: String
    var error: Error

    var description: String { "\(input): \(error)" }
}

/// The fields of `voicebank coverage --json`.
struct CoverageJSON: Encodable {
    struct Piece: Encodable {
        var text: String
        var isFallback: Bool
        var voice: String
    }
    struct Input: Encodable {
        var name: String
        var segmentation: String
        var pieces: [Piece]
    }
    struct Count: Encodable {
        var text: String
        var count: Int
    }
    struct MissingPosition: Encodable {
        var phrase: String
        var position: String
        var count: Int
    }

    var voice: String
    var inputs: [Input]
    var fallbackPhrases: [Count]
    var fallbackWords: [Count]
    var missingPositions: [MissingPosition]
    var tokens: Int
    var coveredTokens: Int
    var warnings: [String]

    init(_ report: CoverageReport) {
        voice = report.voice
        inputs = report.inputs.map { input in
            Input(
                name: input.name, segmentation: input.segmentation,
                pieces: input.pieces.map { Piece(text: $0.text, isFallback: $0.isFallback, voice: $0.voice) })
        }
        fallbackPhrases = report.fallbackPhrases.map { Count(text: $0.text, count: $0.count) }
        fallbackWords = report.fallbackWords.map { Count(text: $0.text, count: $0.count) }
        missingPositions = report.missingPositions.map {
            MissingPosition(phrase: $0.phrase, position: $0.position.rawValue, count: $0.count)
        }
        tokens = report.tokenCount
        coveredTokens = report.coveredTokenCount
        warnings = report.warnings
    }
}
