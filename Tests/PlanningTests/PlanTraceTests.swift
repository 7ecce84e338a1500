// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing

@testable import Planning

@Suite struct PlanTraceTests {
    @Test("the plan dump shows the stages in order and what each decided for each run of words")
    func dump() throws {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"], fallbackMode: .voice)
        let lookup = DictionaryLookup(takes: [
            "hello": [ClipTake(clipID: 1, frameCount: 100)],
            "york": [
                ClipTake(clipID: 21, frameCount: 100, position: .initial),
                ClipTake(clipID: 23, frameCount: 100, position: .final),
            ],
        ])
        var planner = Planner(voices: [
            PlannerVoice(voice: voice, lookup: lookup, fallbacks: [ClipTake(clipID: 99, frameCount: 50)])
        ])
        planner.tracesDecisions = true
        let trace = try planner.stream(SSMLReader().read("Hello Bob, York.")).collectTrace()
        #expect(trace.stages == PlanStream<DictionaryLookup>.stages)
        let lines = trace.description.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(8)) == [
                "stages: event reading → text windows → phrase matching → fallback → take selection → placement",
                "phrase matching \"hello\": phrase in com.example.ann, 1 take",
                "take selection \"hello\": take #1, its only take",
                "phrase matching \"bob\": no phrase in com.example.ann",
                "fallback \"bob\": voice declined: it has no fallback voice",
                "fallback \"bob\": clip #99",
                "phrase matching \"york\": phrase in com.example.ann, 2 takes",
                "take selection \"york\": take #23 final by the sentence's cheapest path, take 2 of 2; place final, "
                    + "1 of 2 takes, target 0.00",
            ])
        #expect(lines[8] == "placement: plan for com.example.ann: 250 frames")
        #expect(trace.plan.segments.compactMap(\.take).map(\.clipID) == [1, 99, 23])
    }

    @Test("a plan made to be rendered records no decisions")
    func untraced() throws {
        let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"])
        let planner = Planner(voices: [
            PlannerVoice(voice: voice, lookup: DictionaryLookup(["hello": [1]]), fallbacks: [])
        ])
        #expect(try planner.stream(SSMLReader().read("Hello")).collectTrace().decisions.isEmpty)
    }
}

@Suite struct PlanWarningsTests {
    @Test("each warning is said once, and past the limit one line says the rest are not shown")
    func limit() {
        let warnings = PlanWarnings()
        warnings.warn("a")
        warnings.warn("a")
        for index in 0..<PlanWarnings.limit { warnings.warn("\(index)") }
        var said: [String] = []
        while let next = warnings.next() { said.append(next) }
        #expect(said.count == PlanWarnings.limit + 1)
        #expect(said.first == "a")
        #expect(said.last == "more than 1000 warnings; the rest are not shown")
    }
}
