// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import SpeechCore
import Tokens
import Voicebank

/// A phrase to record, and the place in a sentence its take is for.
public struct Prompt: Equatable, Sendable {
    /// The prompt's id in its script: a prompt file's own id, else a number from 1.
    public var id: String
    /// The phrase as the pack stores it.
    public var text: String
    /// The takes of the prompt are the voice's clips with this phrase key.
    public var phraseKey: String
    /// The place the take is recorded for, which the kept take is tagged with; `nil` for a take of no particular
    /// place. A prompt with a position is done once a take of the phrase with that position is in the pack.
    public var position: TakePosition?

    public init(id: String, text: String, position: TakePosition? = nil) {
        self.id = id
        self.text = text
        self.position = position
        phraseKey = Tokenizer.phraseKey(text)
    }

    /// The text as the reader is shown it: ended by the punctuation of its place, which makes a reader's voice do
    /// what the place asks (`York.` falls, `York?` asks, `York,` goes on, `York …` starts a sentence). Without a
    /// position, the text as it is.
    public var readText: String {
        guard let position else { return text }
        var stem = Substring(text)
        while let last = stem.last, last.isWhitespace || ".,;:!?…".contains(last) { stem = stem.dropLast() }
        switch position {
        case .initial: return String(stem) + " …"
        case .medial: return String(stem) + ","
        case .final: return String(stem) + "."
        case .question: return String(stem) + "?"
        }
    }

    /// How to say it, for the page and `voicebank record`: `say it as the end of a sentence`; `nil` without a position.
    public var howToSay: String? {
        switch position {
        case .initial: "say it as the start of a sentence that goes on"
        case .medial: "say it in the middle of a sentence, going on"
        case .final: "say it as the end of a sentence"
        case .question: "say it as the end of a question"
        case nil: nil
        }
    }

    /// The prompt's phrase key and position: two prompts of one phrase for two places are two prompts.
    var key: String { "\(position?.rawValue ?? "")\t\(phraseKey)" }
}

extension TakePosition {
    /// The letter of the file name prefix that tags a take so (`e` for final): `filePrefix`'s, the other way.
    var prefixLetter: Character {
        switch self {
        case .initial: "s"
        case .medial: "m"
        case .final: "e"
        case .question: "q"
        }
    }
}

/// The prompts of a studio session, in the order they are recorded.
public struct PromptScript: Equatable, Sendable {
    public var prompts: [Prompt]
    /// What was left out of a prompt file, a line each.
    public var warnings: [String] = []

    public init(prompts: [Prompt], warnings: [String] = []) {
        self.prompts = prompts
        self.warnings = warnings
    }

    /// Adds prompts for the phrases whose phrase key no prompt has yet for that position, in their order, numbered
    /// with the first numbers no prompt has as its id; a phrase without words is left out.
    ///
    /// - Returns: the prompts added.
    @discardableResult
    public mutating func append(_ phrases: [String]) -> [Prompt] {
        append(phrases.map { (text: $0, position: nil) })
    }

    /// Adds prompts for phrases at places, as `append(_: [String])` adds phrases.
    @discardableResult
    public mutating func append(_ phrases: [(text: String, position: TakePosition?)]) -> [Prompt] {
        var keys = Set(prompts.map(\.key))
        var ids = Set(prompts.map(\.id))
        var number = 1
        var added: [Prompt] = []
        for (phrase, position) in phrases {
            while ids.contains("\(number)") { number += 1 }
            let prompt = Prompt(id: "\(number)", text: phrase, position: position)
            guard !prompt.phraseKey.isEmpty, keys.insert(prompt.key).inserted else { continue }
            ids.insert(prompt.id)
            added.append(prompt)
        }
        prompts += added
        return added
    }

    // MARK: A prompt file

    /// Reads a prompt file: one phrase a line, or piper-recording-studio's `id<TAB>text` lines, or `id<TAB>text<TAB>
    /// position` lines. Blank lines are skipped; a line without an id is numbered by its line. A position is the third
    /// column (`initial`, `medial`, `final`, `question`, or empty for none), else the prefix of the phrase that tags a
    /// file name (`e.York` is a final take of "York": `s.`, `m.`, `e.`, `q.`). A phrase an earlier line has already for
    /// the same position is left out with a warning: both would be takes of one prompt.
    ///
    /// - Throws: `StudioError.unreadableFile`; `.promptLine` for an empty id, an id given twice, a phrase with no
    ///   words, a position that is none of those or more than three columns; `.noPrompts` for a file with no phrase.
    public static func read(path: String) throws(StudioError) -> PromptScript {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try readFile(atPath: path) } catch {
            throw .unreadableFile(path: path, reason: error.reason)
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// A prompt file's text; `path` names it in errors and warnings.
    static func parse(_ text: String, path: String) throws(StudioError) -> PromptScript {
        var script = PromptScript(prompts: [])
        var lineOfID: [String: Int] = [:]
        var lineOfKey: [String: Int] = [:]
        // "\r\n" is one Character, apart from "\n".
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if number == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            var id = "\(number)"
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map {
                String($0).trimmingSpaces
            }
            guard columns.count <= 3 else {
                throw .promptLine(
                    path: path, line: number,
                    reason:
                        "it has \(columns.count) tab-separated columns; expected text, id<TAB>text or id<TAB>text<TAB>position"
                )
            }
            var phrase = columns.count == 1 ? columns[0] : columns[1]
            var position: TakePosition?
            if columns.count > 1 {
                id = columns[0]
                guard !id.isEmpty else {
                    throw .promptLine(path: path, line: number, reason: "the id before the tab is empty")
                }
            }
            if columns.count == 3 {
                if !columns[2].isEmpty {
                    guard let named = TakePosition(rawValue: columns[2].lowercased()) else {
                        throw .promptLine(
                            path: path, line: number,
                            reason:
                                "the position \"\(columns[2])\" is not one; expected \(TakePosition.accepted), or nothing for none"
                        )
                    }
                    position = named
                }
            } else if let prefixed = Self.positionPrefix(of: phrase) {
                position = prefixed.position
                phrase = prefixed.phrase
            }
            if let earlier = lineOfID[id] {
                throw .promptLine(path: path, line: number, reason: "the id \"\(id)\" is line \(earlier)'s already")
            }
            let prompt = Prompt(id: id, text: phrase, position: position)
            guard !prompt.phraseKey.isEmpty else {
                throw .promptLine(path: path, line: number, reason: "the phrase \"\(phrase)\" has no words")
            }
            if let earlier = lineOfKey[prompt.key] {
                let place = position.map { " for a \($0) take" } ?? ""
                script.warnings.append(
                    "\(path) line \(number): \"\(phrase)\" is the phrase of line \(earlier) already\(place); left out")
                continue
            }
            lineOfID[id] = number
            lineOfKey[prompt.key] = number
            script.prompts.append(prompt)
        }
        guard !script.prompts.isEmpty else { throw .noPrompts(reason: "\(path) has no phrase") }
        return script
    }

    /// The position a phrase's prefix tags it with, as a file name's (`e.York` → final, `York`): a letter of
    /// `TakePosition.filePrefix` and a dot, then the phrase.
    static func positionPrefix(of phrase: String) -> (position: TakePosition, phrase: String)? {
        guard phrase.count > 2, let first = phrase.first, let position = TakePosition.filePrefix(first),
            phrase.dropFirst().first == "."
        else { return nil }
        let rest = String(phrase.dropFirst(2)).trimmingSpaces
        return rest.isEmpty ? nil : (position, rest)
    }

    // MARK: What coverage says is missing

    /// The runs of words and the single words a coverage report says fall back, ordered so that the first N prompts
    /// cover as many of the words of the texts that fall back as N prompts can (chosen greedily: each prompt is the one
    /// that covers the most of the words still falling back, then the more frequent, then the shorter, then the
    /// first in the texts). A run is a prompt of its own when it has at most `longestRun` words, a phrase to say in one
    /// breath; a prompt stops being offered once what it would cover is covered. After them, a prompt for each phrase
    /// the texts speak at a place it has no take for (`missingPositions`), most uses first. Numbered from 1.
    ///
    /// With texts "Bob says hello. Bob says goodbye." and a pack with "hello" and "goodbye", the one prompt is
    /// `bob says`: it covers four words, where `bob` or `says` would cover two.
    public static func missing(from report: CoverageReport, longestRun: Int = 8) -> PromptScript {
        var runs: [[Token]] = []
        for input in report.inputs {
            for piece in input.pieces where piece.isFallback {
                let tokens = Tokenizer.tokens(in: piece.text)
                if !tokens.isEmpty { runs.append(tokens) }
            }
        }
        var cover = FallbackCover(runs: runs.map { $0.map(\.text) })
        var candidates: [Candidate] = []
        var seen: Set<String> = []
        func consider(_ tokens: ArraySlice<Token>) {
            let keys = tokens.map(\.text)
            let key = keys.joined(separator: " ")
            guard seen.insert(key).inserted else { return }
            let windows = cover.windows(of: keys)
            candidates.append(
                Candidate(
                    text: Tokenizer.displayText(tokens), windows: windows, length: keys.count,
                    order: candidates.count, gain: cover.gain(of: windows, length: keys.count)))
        }
        for run in runs {
            if run.count > 1 && run.count <= longestRun { consider(run[...]) }
            for index in run.indices { consider(run[index...index]) }
        }
        // Lazy greedy: a candidate's gain only falls as others are chosen, so the best of the stored gains, once
        // brought up to date, is chosen if it still beats the stored gain of the next.
        candidates.sort { $0.isBetter(than: $1) }
        var prompts: [Prompt] = []
        while !candidates.isEmpty {
            var best = candidates.removeFirst()
            best.gain = cover.gain(of: best.windows, length: best.length)
            guard best.gain > 0 else { continue }
            if let next = candidates.first, next.isBetter(than: best) {
                candidates.insert(best, at: candidates.firstIndex { !$0.isBetter(than: best) } ?? candidates.endIndex)
                continue
            }
            cover.cover(best.windows, length: best.length)
            prompts.append(Prompt(id: "\(prompts.count + 1)", text: best.text))
        }
        var script = PromptScript(prompts: prompts)
        script.append(report.missingPositions.map { (text: $0.phrase, position: Optional($0.position)) })
        return script
    }

    private struct Candidate {
        var text: String
        /// Where it occurs in the runs: (run, first token), left to right without overlaps.
        var windows: [(run: Int, start: Int)]
        var length: Int
        /// Its first appearance among the candidates.
        var order: Int
        /// The words still falling back that it would cover, as last worked out.
        var gain: Int

        /// More gain, then more occurrences, then fewer words, then earlier.
        func isBetter(than other: Candidate) -> Bool {
            (gain, windows.count, -length, -order) > (other.gain, other.windows.count, -other.length, -other.order)
        }
    }
}

/// The words of the texts that fall back, run by run, and which of them a chosen prompt covers.
private struct FallbackCover {
    let runs: [[String]]
    private var isCovered: [[Bool]]

    init(runs: [[String]]) {
        self.runs = runs
        isCovered = runs.map { Array(repeating: false, count: $0.count) }
    }

    /// Where `keys` occur in the runs, as the matcher would find a clip of them: left to right, without overlaps.
    func windows(of keys: [String]) -> [(run: Int, start: Int)] {
        var windows: [(run: Int, start: Int)] = []
        for (runIndex, run) in runs.enumerated() where run.count >= keys.count {
            var start = 0
            while start + keys.count <= run.count {
                if run[start..<start + keys.count].elementsEqual(keys) {
                    windows.append((runIndex, start))
                    start += keys.count
                } else {
                    start += 1
                }
            }
        }
        return windows
    }

    func gain(of windows: [(run: Int, start: Int)], length: Int) -> Int {
        windows.reduce(0) { sum, window in
            sum + isCovered[window.run][window.start..<window.start + length].count { !$0 }
        }
    }

    mutating func cover(_ windows: [(run: Int, start: Int)], length: Int) {
        for window in windows {
            for index in window.start..<window.start + length { isCovered[window.run][index] = true }
        }
    }
}
