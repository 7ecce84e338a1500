// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

@Suite struct PlannerTests {
    let lookup = DictionaryLookup([
        "hello": [1], "good": [2], "morning": [3], "good morning": [4], "a": [5], "b": [6], "1": [7], "2": [8],
        "12": [9], "nice to meet you": [10], "no": [21, 22, 23],
    ])
    let fallback = ClipTake(clipID: 99, frameCount: 50)

    func plan(_ request: String, fallback: ClipTake?? = .none) throws -> RenderPlan {
        let document = try SSMLReader().read(request)
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])
        return try Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: (fallback ?? self.fallback).map { [$0] } ?? [])
        ])
        .plan(document)
    }

    @Test("breaks become silences of their exact frame count, between the phrases")
    func breaks() throws {
        let plan = try plan(
            #"<speak>Hello <break time="178ms"/> good <break time="1.5s"/> morning<break time="1s"/></speak>"#)
        // In the sentence inferred around the request's text.
        #expect(
            plan.segments.map(\.kind) == [
                .structureStart(.sentence), .phrase(ClipTake(clipID: 1, frameCount: 100)), .silence,
                .phrase(ClipTake(clipID: 2, frameCount: 200)), .silence, .phrase(ClipTake(clipID: 3, frameCount: 300)),
                .silence, .structureEnd(.sentence),
            ])
        #expect(plan.segments.filter { $0.kind == .silence }.map(\.frameCount) == [3_925, 33_075, 22_050])
        #expect(plan.frameCount == 100 + 3_925 + 200 + 33_075 + 300 + 22_050)
    }

    @Test("a phrase never spans an element boundary")
    func boundaries() throws {
        // Each between the start and end of the sentence inferred around it.
        #expect(try plan("<speak>good morning</speak>").segments.map(\.text) == ["", "good morning", ""])
        #expect(
            try plan("<speak>good <emphasis>morning</emphasis></speak>").segments.map(\.text) == [
                "", "good", "morning", "",
            ])
        #expect(
            try plan("<speak>good<mark name=\"m\"/> morning</speak>").segments.map(\.text) == [
                "", "good", "m", "morning", "",
            ])
        #expect(
            try plan("<speak><s>good</s><s>morning</s></speak>").segments.map(\.text) == [
                "", "good", "", "", "", "morning", "",
            ])
    }

    @Test("unmatched words become the fallback clip, with the words and their place in the request")
    func fallbacks() throws {
        let request = "Hello Bob, good morning Carol"
        let plan = try plan(request)
        #expect(plan.fallbacks.map(\.text) == ["bob", "carol"])
        #expect(plan.fallbacks.map(\.kind) == [.fallback(fallback), .fallback(fallback)])
        let utf16 = Array(request.utf16)
        #expect(
            plan.fallbacks.compactMap(\.sourceRange).map { String(decoding: utf16[$0], as: UTF16.self) } == [
                "Bob", "Carol",
            ])
    }

    @Test("words with no fallback clip to speak them are an error naming them")
    func noFallback() throws {
        #expect(throws: PlanningError.noFallbackClip(voice: "com.example.ann", words: "bob")) {
            try plan("Hello Bob", fallback: .some(nil))
        }
        #expect(try plan("Hello", fallback: .some(nil)).frameCount == 100)
    }

    @Test("say-as characters and digits speak one token at a time")
    func sayAs() throws {
        #expect(
            try plan(#"<speak><say-as interpret-as="characters">ab12</say-as></speak>"#).clips.map(\.text) == [
                "a", "b", "1", "2",
            ])
        #expect(try plan(#"<speak><say-as interpret-as="digits">12</say-as></speak>"#).clips.map(\.text) == ["1", "2"])
        #expect(try plan("<speak>12</speak>").clips.map(\.text) == ["12"])
    }

    @Test("volume and rate are carried into the plan")
    func prosody() throws {
        let plan = try plan(
            #"<speak><prosody volume="+6dB" rate="200%">hello <emphasis>good</emphasis></prosody></speak>"#)
        #expect(plan.clips.map(\.volumeDecibels) == [6, 9])
        #expect(plan.clips.map(\.speed) == [2, 2])
        #expect(abs(plan.clips[0].gain - 1.995_262_3) < 1e-6)
        #expect(try self.plan(#"<speak><prosody volume="silent">hello</prosody></speak>"#).clips[0].gain == 0)
    }

    @Test("a plan prints one line per segment")
    func description() throws {
        #expect(
            try plan(#"<speak>Hello Bob <break time="10ms"/></speak>"#).description.contains(
                "fallback #99 for \"bob\" 50 frames"))
    }

    @Test("takes rotate across repetitions in a request, the same way every time; first always plays the first")
    func takeRotation() throws {
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])
        let fallbacks = [ClipTake(clipID: 98, frameCount: 5), ClipTake(clipID: 99, frameCount: 6)]
        func clips(_ request: String, _ choice: TakeChoice) throws -> [Int] {
            let planner = Planner(
                voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: fallbacks)], takeChoice: choice)
            return try planner.plan(SSMLReader().read(request)).segments.compactMap {
                switch $0.kind {
                case .phrase(let take), .fallback(let take): take.clipID
                default: nil
                }
            }
        }
        #expect(try clips("no, no, no, no. hello bob hello zed", .rotate) == [21, 22, 23, 21, 1, 98, 1, 99])
        #expect(
            try clips("no, no, no, no. hello bob, zed", .rotate) == clips("no, no, no, no. hello bob, zed", .rotate))
        #expect(try clips("no no no", .first) == [21, 21, 21])
    }
}

/// A lookup that counts the questions it is asked and says which version of its phrases it reads.
private final class CountingLookup: PhraseLookup {
    let phrases = DictionaryLookup(["hello": [1], "good morning": [2]])
    var questions = 0
    var phrasesVersion: UInt64?

    func firstPhraseKey(atOrAfter key: String) throws -> String? {
        questions += 1
        return try phrases.firstPhraseKey(atOrAfter: key)
    }

    func takes(forPhraseKey key: String) throws -> [ClipTake] {
        questions += 1
        return try phrases.takes(forPhraseKey: key)
    }
}

@Suite struct RememberedLookupTests {
    @Test("the plans of one planner ask the lookup once while its version stays; a new version, or none, asks again")
    func keptAcrossPlans() throws {
        let lookup = CountingLookup()
        let voice = VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"])
        let planner = Planner(voices: [PlannerVoice(voice: voice, lookup: lookup, fallbacks: [])])
        let document = try SSMLReader().read("hello, good morning")
        func questions(_ version: UInt64?) throws -> Int {
            lookup.phrasesVersion = version
            let before = lookup.questions
            #expect(try planner.plan(document).clips.count == 2)
            return lookup.questions - before
        }
        let first = try questions(7)
        #expect(first > 0)
        #expect(try questions(7) == 0)
        #expect(try questions(8) == first)
        #expect(try questions(nil) == first)
        #expect(try questions(nil) == first)
    }
}

extension RenderPlan {
    /// The clips (phrases and fallbacks) of the plan, without its silences and points (marks, sentences).
    var clips: [TimedSegment] { segments.filter(\.segment.isClip) }
}
