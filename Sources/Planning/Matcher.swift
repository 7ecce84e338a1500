// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// A stretch of tokens and what speaks it: the takes of a phrase, or nothing (the fallback's job).
public struct Match: Equatable, Sendable, CustomStringConvertible {
    /// The phrase's takes, first imported first; empty for a maximal run of tokens no phrase covers.
    public var takes: [ClipTake]
    public var tokens: [Token]

    public init(takes: [ClipTake], tokens: [Token]) {
        self.takes = takes
        self.tokens = tokens
    }

    /// The first take; `nil` when no phrase covers the tokens.
    public var take: ClipTake? { takes.first }

    /// The words as a person reads them (`good morning`, `設定`): the phrase matched, or what the fallback
    /// stands for.
    public var words: String { Tokenizer.displayText(tokens[...]) }

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
        while start < tokens.count {
            guard
                case .phrase(let length, let takes) = try longestPhrase(tokens[start...], in: lookup, isComplete: true)
            else {
                unmatched.append(tokens[start])
                start += 1
                continue
            }
            if !unmatched.isEmpty { matches.append(Match(takes: [], tokens: unmatched)) }
            unmatched = []
            matches.append(Match(takes: takes, tokens: Array(tokens[start..<start + length])))
            start += length
        }
        if !unmatched.isEmpty { matches.append(Match(takes: [], tokens: unmatched)) }
        return matches
    }

    /// What a search for the longest phrase at the start of some tokens found.
    public enum Search: Equatable {
        /// The phrase covering the first `length` tokens, and its takes.
        case phrase(length: Int, takes: [ClipTake])
        /// No phrase starts with the first token.
        case none
        /// The tokens ran out while a longer phrase could still follow: ask again with more of them.
        case needsMoreTokens
    }

    /// The phrase covering the most of `tokens` from their first, for a caller that holds a window of a long
    /// text's tokens: unless `isComplete` says no tokens follow these, a search that reaches their end before the
    /// pack's keys rule out a longer phrase asks for more.
    public static func longestPhrase(
        _ tokens: ArraySlice<Token>, in lookup: some PhraseLookup, isComplete: Bool
    ) throws -> Search {
        guard !tokens.isEmpty else { return isComplete ? .none : .needsMoreTokens }
        let (longest, ranOut) = try longestKey(startingAt: tokens, in: lookup)
        if ranOut && !isComplete { return .needsMoreTokens }
        guard let longest else { return .none }
        let takes = try lookup.takes(forPhraseKey: longest.key)
        return takes.isEmpty ? .none : .phrase(length: longest.length, takes: takes)
    }

    /// The key of the phrase covering the most of `tokens` from their first, and whether the walk reached the
    /// end of `tokens` with keys that go on from them still possible.
    ///
    /// Walks the sorted phrase keys like a trie. The first key at or after the tokens so far is the shortest
    /// phrase that goes on from them, so the walk jumps over every further token that key agrees with (no
    /// shorter phrase of those tokens exists): a look-up or two per phrase found, whatever the voice's longest
    /// phrase.
    private static func longestKey(
        startingAt tokens: ArraySlice<Token>, in lookup: some PhraseLookup
    ) throws -> (longest: (length: Int, key: String)?, ranOut: Bool) {
        var key = ""
        var next = tokens.startIndex
        var longest: (length: Int, key: String)?
        while next < tokens.endIndex {
            next += 1
            key = Tokenizer.phraseKey(tokens[tokens.startIndex..<next])
            guard let found = try lookup.firstPhraseKey(atOrAfter: key) else { return (longest, false) }
            let agreed = tokenCount(of: tokens[next...], continuing: key, in: found)
            if agreed > 0 {
                key = Tokenizer.phraseKey(tokens[tokens.startIndex..<next + agreed])
                next += agreed
            }
            if found == key {
                longest = (next - tokens.startIndex, key)
            } else if !found.utf8.starts(with: (key + " ").utf8) {
                // Keys have no characters below the space, so this is rare; ask from the space on to be sure.
                guard let after = try lookup.firstPhraseKey(atOrAfter: key + " "),
                    after.utf8.starts(with: (key + " ").utf8)
                else { return (longest, false) }
            }
        }
        return (longest, true)
    }

    /// How many of `tokens` `found` has, whole and in order, right after `key` (which it starts with).
    private static func tokenCount(of tokens: ArraySlice<Token>, continuing key: String, in found: String) -> Int {
        var found = found
        return found.withUTF8 { bytes in
            var key = key
            var position = key.utf8.count
            guard position <= bytes.count, key.withUTF8({ bytes.prefix(position).elementsEqual($0) }) else { return 0 }
            var count = 0
            for token in tokens {
                guard position < bytes.count, bytes[position] == UInt8(ascii: " ") else { break }
                var text = token.text
                let end = position + 1 + text.utf8.count
                guard end <= bytes.count, end == bytes.count || bytes[end] == UInt8(ascii: " "),
                    text.withUTF8({ bytes[(position + 1)..<end].elementsEqual($0) })
                else { break }
                position = end
                count += 1
            }
            return count
        }
    }
}
