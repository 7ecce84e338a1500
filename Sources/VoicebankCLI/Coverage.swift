// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import AudioIO
import CommandLineSupport
import ConcatSynth
import Tokens
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
                sentence (initial, medial, final, question) the texts speak phrases at that no take was recorded for; for an \
                English voice, the phone-pairs the words that fall back need that no take has, with words of the \
                texts that would supply them (an aligned take counts the pairs the aligner found in it, one not yet \
                aligned those of its phrase).
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
            let pairs = try phonePairs(of: report)
            if json {
                try printJSON(CoverageJSON(report, phonePairs: pairs))
            } else if let pairs {
                // Before the summary, which stays the last line.
                print(String(report.description.dropLast(report.summary.count)) + "\(pairs)\n" + report.summary)
            } else {
                print(report)
            }
            var standardError = StandardError()
            for warning in report.warnings { print("warning: \(warning)", to: &standardError) }
        }
    }
}

extension VoicebankCommand.Coverage {
    /// The phone-pairs the runs that fall back need, against those the voice's takes have; `nil` for a voice that
    /// does not speak English first, whose phones the front end does not know.
    func phonePairs(of report: CoverageReport) throws -> PhonePairCoverage? {
        let pack = try bank.open(.readOnly)
        guard try pack.resolveVoice(report.voice).isEnglish else { return nil }
        let runs = report.inputs.flatMap { input in
            input.pieces.filter { $0.isFallback && $0.voice == report.voice }.map { piece in
                Tokenizer.tokens(in: piece.text).map { $0.text.lowercased() }
            }
        }
        return try PhonePairCoverage(runs: runs, have: try pack.phonePairs(voice: report.voice))
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
    var phonePairs: PhonePairs?

    struct PhonePairs: Encodable {
        struct Missing: Encodable {
            var pair: String
            var count: Int
            var words: [String]
        }
        var needed: Int
        var covered: Int
        var missing: [Missing]
    }

    init(_ report: CoverageReport, phonePairs: PhonePairCoverage?) {
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
        self.phonePairs = phonePairs.map { coverage in
            PhonePairs(
                needed: coverage.neededCount, covered: coverage.coveredCount,
                missing: coverage.missing.map { .init(pair: $0.pair.description, count: $0.count, words: $0.words) })
        }
    }
}
