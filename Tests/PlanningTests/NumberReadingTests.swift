// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

@Suite struct NumberReadingTests {
    static let englishWords = [
        "zero", "one", "two", "three", "four", "five", "twenty", "thirty", "hundred", "thousand", "minus", "point",
        "first", "twenty first", "november", "twenty twenty", "p m", "oh", "clicks", "101",
    ]
    let english = PlannerVoice(
        voice: VoiceSettings(identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"]),
        lookup: DictionaryLookup(Dictionary(uniqueKeysWithValues: englishWords.enumerated().map { ($1, [$0 + 1]) })),
        fallbacks: [ClipTake(clipID: 99, frameCount: 9)])
    let japanese = PlannerVoice(
        voice: VoiceSettings(identifier: "com.example.otoya", name: "Otoya", primaryLanguages: ["ja-JP"]),
        lookup: DictionaryLookup(["一": [1], "二": [2], "三": [3], "十": [4], "百": [5], "三 百": [6], "万": [7], "四": [8]]),
        fallbacks: [ClipTake(clipID: 99, frameCount: 9)])

    func spoken(_ request: String, voice: String? = nil) throws -> [String] {
        let plan = try Planner(voices: [english, japanese], startingVoice: voice).plan(SSMLReader().read(request))
        return plan.segments.filter { !$0.voice.isEmpty }.map { segment in
            if case .fallback = segment.kind { "(\(segment.text))" } else { segment.text }
        }
    }

    @Test("digits in running text with no clip of their own are read as a number")
    func runningText() throws {
        #expect(try spoken("1234 clicks") == ["one", "thousand", "two", "hundred", "thirty", "four", "clicks"])
        #expect(try spoken("101 clicks") == ["101", "clicks"])
        #expect(try spoken("zork 5 zork") == ["(zork)", "five", "(zork)"])
        #expect(try spoken("三百二十一", voice: "com.example.otoya") == ["三百", "二", "十", "一"])
        #expect(try spoken("321", voice: "com.example.otoya") == ["三百", "二", "十", "一"])
    }

    @Test("say-as cardinal, ordinal, date and time speak words in the voice's language")
    func sayAs() throws {
        #expect(
            try spoken(#"<speak><say-as interpret-as="cardinal">-3.14</say-as></speak>"#) == [
                "minus", "three", "point", "one", "four",
            ])
        #expect(try spoken(#"<speak><say-as interpret-as="ordinal">21</say-as></speak>"#) == ["twenty first"])
        #expect(
            try spoken(#"<speak><say-as interpret-as="date" format="md">11/21</say-as></speak>"#) == [
                "november", "twenty first",
            ])
        #expect(
            try spoken(#"<speak><say-as interpret-as="time">2:05pm</say-as></speak>"#) == ["two", "oh", "five", "p m"])
        #expect(
            try spoken(#"<speak><say-as interpret-as="number">1,300</say-as></speak>"#, voice: "com.example.otoya")
                == ["千", "三百"].map { $0 == "千" ? "(千)" : $0 })
    }

    @Test("telephone and digits speak their digits one by one, and a plus sign; letters stay words")
    func telephone() throws {
        let lookup = DictionaryLookup(["plus": [1], "one": [2], "eight": [3], "zero": [4], "flowers": [5]])
        let voice = PlannerVoice(voice: english.voice, lookup: lookup, fallbacks: english.fallbacks)
        func spoken(_ request: String) throws -> [String] {
            try Planner(voices: [voice]).plan(SSMLReader().read(request)).clips.map(\.text)
        }
        #expect(
            try spoken(#"<speak><say-as interpret-as="telephone">+1 (800) 100</say-as></speak>"#) == [
                "plus", "one", "eight", "zero", "zero", "one", "zero", "zero",
            ])
        #expect(
            try spoken(#"<speak><say-as interpret-as="telephone">1-800-FLOWERS</say-as></speak>"#) == [
                "one", "eight", "zero", "zero", "flowers",
            ])
        #expect(try spoken(#"<speak><say-as interpret-as="digits">180</say-as></speak>"#) == ["one", "eight", "zero"])
    }

    @Test("text that is not what say-as says is spoken plainly, with a warning")
    func unreadable() throws {
        let plan = try Planner(voices: [english]).plan(
            SSMLReader().read(#"<speak><say-as interpret-as="date">soon</say-as></speak>"#))
        #expect(plan.clips.map(\.text) == ["soon"])
        #expect(plan.warnings.count == 1 && plan.warnings[0].contains("read as plain text"))
    }

    @Test("each spoken number word points at the digits it reads")
    func sourceRanges() throws {
        let request = "😀 42 clicks"
        let plan = try Planner(voices: [english]).plan(SSMLReader().read(request))
        let utf16 = Array(request.utf16)
        #expect(
            plan.clips.compactMap(\.sourceRange).map { String(decoding: utf16[$0], as: UTF16.self) } == [
                "42", "42", "clicks",
            ])
    }
}
