// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing
import Tokens

@testable import Planning

@Suite struct PhraseMatchingTests {
    let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"])

    /// What the phrase matching stage handed on for `request`.
    func matched(_ request: String, _ phrases: [String: [Int]]) throws -> [String] {
        var planner = Planner(voices: [
            PlannerVoice(
                voice: voice, lookup: DictionaryLookup(phrases), fallbacks: [ClipTake(clipID: 99, frameCount: 5)])
        ])
        planner.tracesDecisions = true
        let trace = try planner.stream(SSMLReader().read(request)).collectTrace()
        return trace.decisions.filter { $0.stage == .phraseMatching }.map { "\($0.words): \($0.decision)" }
    }

    @Test("the longest phrase at each token wins; the words no phrase starts at go on as one run")
    func longest() throws {
        #expect(
            try matched("good morning Ann and Bob, good", ["good": [1], "good morning": [2]]) == [
                "good morning: phrase in com.example.ann, 1 take", "ann and bob: no phrase in com.example.ann",
                "good: phrase in com.example.ann, 1 take",
            ])
    }

    @Test("digits no phrase covers are read as number words, which go on as phrases where the voice has them")
    func numbers() throws {
        #expect(
            try matched("at 21 o'clock", ["twenty": [1], "twenty one": [2, 3]]) == [
                "21: read as \"twenty one\"", "at: no phrase in com.example.ann",
                "twenty one: phrase in com.example.ann, 2 takes", "o'clock: no phrase in com.example.ann",
            ])
    }
}

@Suite struct NumberWordsTests {
    @Test("digits become the language's words, each pointing at the digits, the last keeping what followed them")
    func words() {
        var numbers = NumberWords()
        var token = Token("105", .number, sourceRange: 3..<6)
        token.punctuationAfter = .comma
        let words = numbers.tokens(for: token, language: "en-US")
        #expect(words?.map(\.text) == ["one", "hundred", "five"])
        #expect(words?.allSatisfy { $0.sourceRange == 3..<6 } == true)
        #expect(words?.map(\.punctuationAfter) == [nil, nil, .comma])
        // Remembered: the same number again gives the same words.
        #expect(numbers.tokens(for: token, language: "en-US") == words)
        #expect(numbers.tokens(for: token, language: "tlh") == nil)
    }
}
