import Tokens
import Voicebank

/// What the matcher needs to know of a voice: the takes of a phrase key, and how long keys get.
///
/// `ClipIndex` answers from the voice pack; tests answer from a dictionary.
public protocol PhraseLookup {
    /// The most tokens any phrase key has; the matcher looks no further ahead.
    var longestPhraseTokenCount: Int { get }
    /// The takes whose phrase key is `key`, in a fixed order (a pack: first imported first).
    func takes(forPhraseKey key: String) throws -> [ClipTake]
}

extension ClipIndex: PhraseLookup {}

/// A stretch of tokens and what speaks it: the takes of a phrase, or nothing (the fallback's job).
public struct Match: Equatable, Sendable, CustomStringConvertible {
    /// The phrase's takes, first imported first; empty for a maximal run of tokens no phrase covers.
    public var takes: [ClipTake]
    public var tokens: [Token]

    public init(takes: [ClipTake], tokens: [Token]) {
        self.takes = takes
        self.tokens = tokens
    }

    public init(take: ClipTake?, tokens: [Token]) {
        self.init(takes: take.map { [$0] } ?? [], tokens: tokens)
    }

    /// The first take; `nil` when no phrase covers the tokens.
    public var take: ClipTake? { takes.first }

    /// The words as a person reads them (`good morning`, `設定`): the phrase matched, or what the fallback
    /// stands for.
    public var words: String { Tokenizer.displayText(tokens) }

    public var description: String { take.map { "\($0) \"\(words)\"" } ?? "fallback \"\(words)\"" }
}

/// Greedy longest match, left to right.
public enum Matcher {
    /// At each token, the phrase covering the most tokens from there wins (`good morning` beats `good` +
    /// `morning`), with all its takes; which take plays is the planner's choice. Each maximal run of tokens that
    /// no phrase starts at becomes one unmatched `Match`.
    ///
    /// ```swift
    /// Matcher.match(Tokenizer.tokens(in: "good morning, Ann"), in: index)
    /// // [#12 "good morning", fallback "ann"]
    /// ```
    public static func match(_ tokens: [Token], in lookup: some PhraseLookup) throws -> [Match] {
        var matches: [Match] = []
        var unmatched: [Token] = []
        var start = 0
        search: while start < tokens.count {
            let longest = min(lookup.longestPhraseTokenCount, tokens.count - start)
            for length in stride(from: longest, through: 1, by: -1) {
                let candidate = tokens[start..<start + length]
                let takes = try lookup.takes(forPhraseKey: candidate.map(\.text).joined(separator: " "))
                if !takes.isEmpty {
                    if !unmatched.isEmpty { matches.append(Match(take: nil, tokens: unmatched)) }
                    unmatched = []
                    matches.append(Match(takes: takes, tokens: Array(candidate)))
                    start += length
                    continue search
                }
            }
            unmatched.append(tokens[start])
            start += 1
        }
        if !unmatched.isEmpty { matches.append(Match(take: nil, tokens: unmatched)) }
        return matches
    }
}
