// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Tokens
import Voicebank

/// What a voice would do with some texts: how the matcher splits each, and which words would fall back.
///
/// `voicebank coverage` prints it, so that a pack builder knows what to record next.
public struct CoverageReport: Equatable, Sendable, CustomStringConvertible {
    /// A clip or a fallback in the order the text is spoken.
    public struct Piece: Equatable, Sendable {
        /// The words: the phrase matched, or the words the fallback clip stands for.
        public var text: String
        public var isFallback: Bool
        /// The identifier of the voice that speaks it.
        public var voice: String
    }

    public struct Input: Equatable, Sendable {
        /// What the input was: `text 1`, or a file's path.
        public var name: String
        public var pieces: [Piece]

        /// The pieces as one line: `hello | good morning | [bob] | settings`.
        public var segmentation: String {
            pieces.map { $0.isFallback ? "[\($0.text)]" : $0.text }.joined(separator: " | ")
        }
    }

    /// A run of words or a word that falls back, and how often.
    public struct Count: Equatable, Sendable {
        public var text: String
        public var count: Int
    }

    /// A phrase spoken at a place none of its takes was recorded for, and how often.
    public struct MissingPosition: Equatable, Sendable, CustomStringConvertible {
        public var phrase: String
        public var position: TakePosition
        public var count: Int

        /// `no final take of "degrees": 14 uses`
        public var description: String {
            "no \(position.rawValue) take of \"\(phrase)\": \(count) use\(count == 1 ? "" : "s")"
        }
    }

    /// The starting voice.
    public var voice: String
    public var inputs: [Input]
    /// Each run of words that falls back, most frequent first (then in order of first appearance).
    public var fallbackPhrases: [Count]
    /// Each word of those runs, normalised, most frequent first.
    public var fallbackWords: [Count]
    /// The places the texts speak phrases at that have no take recorded for them, most frequent first (then in
    /// order of first appearance); none until a take the texts play is tagged, so that a voice recorded without
    /// places is not told to record them all.
    public var missingPositions: [MissingPosition]
    /// Tokens spoken in all, and how many of them by a clip of their own.
    public var tokenCount: Int
    public var coveredTokenCount: Int
    /// The SSML reader's and planner's warnings.
    public var warnings: [String]

    public var description: String {
        var lines = inputs.map { "\($0.name): \($0.segmentation)" }
        if fallbackPhrases.isEmpty {
            lines.append("no fallbacks")
        } else {
            lines.append("fallbacks:")
            lines += fallbackPhrases.map { "  \($0.count)\t\($0.text)" }
            lines.append("words to record:")
            lines += fallbackWords.map { "  \($0.count)\t\($0.text)" }
        }
        if !missingPositions.isEmpty {
            lines.append("positions to record:")
            lines += missingPositions.map { "  \($0)" }
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    /// How much of the texts the clips cover, the line the description ends with: `covered: 5 of 7 tokens (71.4 %)`.
    public var summary: String {
        let percent = tokenCount == 0 ? 100 : (coveredTokenCount * 1000 / tokenCount)
        let percentText = tokenCount == 0 ? "100" : decimal(Double(percent) / 10, places: 1)
        return "covered: \(coveredTokenCount) of \(tokenCount) tokens (\(percentText) %)"
    }
}

/// Plans texts with a pack's voices as `concat-synth render` would, without rendering, and reports coverage.
///
/// Uses the real SSML reader, tokenizer, number reading and greedy longest match. A voice without a fallback
/// clip is analysed as if it had one, so that its missing words are listed rather than an error.
///
/// ```swift
/// let coverage = try CoverageAnalyzer(bank: "ann.sqlite", voice: "com.example.ann")
/// print(try coverage.analyze([("text 1", "Hello Bob, good morning")]))
/// // text 1: hello | [bob] | good morning
/// ```
public final class CoverageAnalyzer {
    private let synthesizer: Synthesizer
    public var voice: VoiceSettings { synthesizer.voice }

    /// Opens the pack at `bank` read-only (as `Synthesizer.init(bank:)` finds it).
    ///
    /// - Throws: `ConcatSynthError.noPack`, `.unusablePack` or `.newerPack` when the pack cannot be opened, `.unknownVoice`, `.noVoice`.
    public convenience init(bank: String? = nil, voice identifier: String? = nil) throws(ConcatSynthError) {
        try self.init(pack: PackLocation.openForReading(bank), voice: identifier)
    }

    /// - Throws: `ConcatSynthError.unknownVoice`, `.noVoice`.
    package init(pack: VoicePack, voice identifier: String? = nil) throws(ConcatSynthError) {
        // A stand-in take for a voice without a fallback clip: planned, never rendered.
        synthesizer = try Synthesizer(
            pack: pack, voice: identifier, audioSandbox: .closed, takeChoice: .best,
            standInFallback: ClipTake(clipID: -1, frameCount: 0))
    }

    /// Plans each input (SSML, or plain text when it does not start with `<`) and gathers the fallbacks.
    ///
    /// - Throws: `ConcatSynthError.ssml` for malformed SSML (unless `lenient`), `.damagedClip`.
    public func analyze(_ inputs: [(name: String, text: String)], lenient: Bool = false) throws(ConcatSynthError)
        -> CoverageReport
    {
        var report = CoverageReport(
            voice: voice.identifier, inputs: [], fallbackPhrases: [], fallbackWords: [], missingPositions: [],
            tokenCount: 0, coveredTokenCount: 0, warnings: [])
        var phraseCounts: [String: Int] = [:]
        var phraseOrder: [String] = []
        var wordCounts: [String: Int] = [:]
        var wordOrder: [String] = []
        var missingCounts: [String: Int] = [:]
        var missingOrder: [String] = []
        var missing: [String: (phrase: String, position: TakePosition)] = [:]
        var playsTaggedTake = false
        for (name, text) in inputs {
            let plan = try synthesizer.renderPlan(text, lenient: lenient)
            report.warnings += plan.warnings.map { "\(name): \($0)" }
            var pieces: [CoverageReport.Piece] = []
            for segment in plan.segments {
                let isFallback: Bool
                switch segment.kind {
                case .phrase: isFallback = false
                case .fallback: isFallback = true
                default: continue
                }
                pieces.append(.init(text: segment.text, isFallback: isFallback, voice: segment.voice))
                let tokens = Tokenizer.tokens(in: segment.text)
                report.tokenCount += tokens.count
                guard isFallback else {
                    report.coveredTokenCount += tokens.count
                    if segment.take?.position != nil { playsTaggedTake = true }
                    if let selection = segment.selection, !selection.hasTakeForPlace {
                        let position = selection.place.position
                        let key = "\(position.rawValue) \(segment.text)"
                        if missing[key] == nil {
                            missing[key] = (segment.text, position)
                            missingOrder.append(key)
                        }
                        missingCounts[key, default: 0] += 1
                    }
                    continue
                }
                if phraseCounts[segment.text] == nil { phraseOrder.append(segment.text) }
                phraseCounts[segment.text, default: 0] += 1
                for token in tokens {
                    if wordCounts[token.text] == nil { wordOrder.append(token.text) }
                    wordCounts[token.text, default: 0] += 1
                }
            }
            report.inputs.append(.init(name: name, pieces: pieces))
        }
        report.fallbackPhrases = Self.sorted(phraseOrder, phraseCounts)
        report.fallbackWords = Self.sorted(wordOrder, wordCounts)
        if playsTaggedTake {
            report.missingPositions = Self.sorted(missingOrder, missingCounts).map {
                .init(phrase: missing[$0.text]!.phrase, position: missing[$0.text]!.position, count: $0.count)
            }
        }
        return report
    }

    /// Most frequent first; equal counts keep the order of first appearance.
    private static func sorted(_ order: [String], _ counts: [String: Int]) -> [CoverageReport.Count] {
        order.enumerated()
            .sorted {
                ($0.element == $1.element)
                    ? false : (counts[$0.element]!, -$0.offset) > (counts[$1.element]!, -$1.offset)
            }
            .map { CoverageReport.Count(text: $0.element, count: counts[$0.element]!) }
    }
}
