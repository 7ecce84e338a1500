// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import SpeechTestSupport
import Testing
import Tokens

@testable import Planning

/// A phrase look-up from a dictionary: phrase key → takes.
@Suite struct MatcherTests {
    let lookup = DictionaryLookup([
        "good": [1], "morning": [2], "good morning": [3], "good morning everyone": [4], "hello": [5, 6, 7],
        "nice to meet you": [8], "設": [9], "定": [10], "設 定": [11],
    ])

    func match(_ text: String) throws -> String {
        try Matcher.match(Tokenizer.tokens(in: text), in: lookup).map(\.description).joined(separator: ", ")
    }

    @Test("prefers the longest phrase")
    func longest() throws {
        #expect(try match("Good morning!") == "#3 \"good morning\"")
        #expect(try match("good morning everyone") == "#4 \"good morning everyone\"")
        #expect(try match("good good morning morning") == "#1 \"good\", #3 \"good morning\", #2 \"morning\"")
    }

    @Test("falls back once per maximal run of unmatched tokens, with its words")
    func fallbackRuns() throws {
        #expect(
            try match("hello Bob and Alice, good morning Carol") == """
                #5 "hello", fallback "bob and alice", #3 "good morning", fallback "carol"
                """)
        #expect(try match("nice to meet") == "fallback \"nice to meet\"")
    }

    @Test("hands every take of a phrase over, first imported first")
    func takes() throws {
        let matches = try Matcher.match(Tokenizer.tokens(in: "hello hello"), in: lookup)
        #expect(matches.map { $0.takes.map(\.clipID) } == [[5, 6, 7], [5, 6, 7]])
        #expect(matches.map(\.take?.clipID) == [5, 5])
    }

    @Test("matches Japanese character by character")
    func japanese() throws {
        #expect(try match("設定") == "#11 \"設定\"")
        #expect(try match("設定を") == "#11 \"設定\", fallback \"を\"")
        #expect(try match("定設") == "#10 \"定\", #9 \"設\"")
    }

    @Test("no tokens, no matches")
    func empty() throws {
        #expect(try Matcher.match([], in: lookup).isEmpty)
        #expect(try Matcher.match(Tokenizer.tokens(in: "hello"), in: DictionaryLookup([:])).map(\.take) == [nil])
    }

    @Test(
        "finds the longest phrase whatever keys sort between its tokens",
        arguments: [
            ("a b c", "#2 \"a b c\""),
            ("a b c d e", "#3 \"a b c d e\""),
            ("a b c d x", "#2 \"a b c\", fallback \"d x\""),
            ("a b x", "#1 \"a\", fallback \"b x\""),
            ("a bb", "#1 \"a\", #5 \"bb\""),
            ("ab c", "#6 \"ab c\""),
        ])
    func trieWalk(text: String, expected: String) throws {
        let lookup = DictionaryLookup([
            "a": [1], "a b c": [2], "a b c d e": [3], "a b c d e f g": [4], "bb": [5], "ab c": [6], "a bz": [7],
        ])
        #expect(
            try Matcher.match(Tokenizer.tokens(in: text), in: lookup).map(\.description).joined(separator: ", ")
                == expected)
    }
}
