// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

@Suite struct VoiceSelectionTests {
    let english = PlannerVoice(
        voice: VoiceSettings(
            identifier: "com.example.ann", name: "Ann", primaryLanguages: ["en-US"], supportedLanguages: ["en-GB"]),
        lookup: DictionaryLookup(["hello": [1], "settings": [2]]), fallbacks: [ClipTake(clipID: 90, frameCount: 9)])
    let japanese = PlannerVoice(
        voice: VoiceSettings(
            identifier: "com.example.otoya", name: "Otoya", primaryLanguages: ["ja-JP"], normalRate: 4),
        lookup: DictionaryLookup(["設 定": [11], "hello": [12]]), fallbacks: [ClipTake(clipID: 91, frameCount: 9)])

    func plan(_ request: String, starting: String? = nil) throws -> RenderPlan {
        try Planner(voices: [english, japanese], startingVoice: starting).plan(SSMLReader().read(request))
    }

    func spoken(_ plan: RenderPlan) -> [String] {
        plan.segments.filter { !$0.voice.isEmpty }.map { "\($0.voice.split(separator: ".").last!):\($0.text)" }
    }

    @Test("voices switch mid-request by name, identifier and language")
    func switching() throws {
        let request = """
            <speak>hello <voice name="Otoya">hello 設定</voice> hello <lang xml:lang="ja-JP">設定</lang>\
            <s xml:lang="en-GB">settings</s><voice name="com.example.otoya">hello</voice></speak>
            """
        #expect(
            spoken(try plan(request)) == [
                "ann:hello", "otoya:hello", "otoya:設定", "ann:hello", "otoya:設定", "ann:settings", "otoya:hello",
            ])
    }

    @Test("the starting voice speaks where nothing is named, and wins a tie of languages")
    func starting() throws {
        #expect(spoken(try plan("hello", starting: "com.example.otoya")) == ["otoya:hello"])
        #expect(spoken(try plan("<speak xml:lang=\"ja\">hello</speak>")) == ["otoya:hello"])
        #expect(
            spoken(try plan("<speak xml:lang=\"en\">hello</speak>", starting: "com.example.otoya")) == ["ann:hello"])
        #expect(try plan("hello", starting: "com.example.nobody").voice == "com.example.ann")
    }

    @Test("a voice or language the pack lacks is a warning, once, and the current voice speaks")
    func unknown() throws {
        let plan = try plan(
            #"<speak><voice name="Zed">hello</voice> <lang xml:lang="fr-FR">hello</lang> <lang xml:lang="fr-FR">hello</lang></speak>"#
        )
        #expect(spoken(plan) == ["ann:hello", "ann:hello", "ann:hello"])
        #expect(plan.warnings.count == 2)
        #expect(plan.warnings.contains { $0.contains("\"Zed\"") })
        #expect(plan.warnings.contains { $0.contains("fr-FR") })
    }

    @Test("a request's rate is divided by the voice's normal rate")
    func normalRate() throws {
        let plan = try plan(#"<speak><prosody rate="400.0%">hello <voice name="Otoya">設定</voice></prosody></speak>"#)
        #expect(plan.segments.filter { !$0.voice.isEmpty }.map(\.speed) == [4, 1])
    }

    @Test("unmatched words fall back to their own voice's fallback clip")
    func fallbacks() throws {
        let plan = try plan(#"<speak>bob <voice name="Otoya">bob</voice></speak>"#)
        #expect(plan.fallbacks.map(\.kind) == [.fallback(english.fallbacks[0]), .fallback(japanese.fallbacks[0])])
    }
}
