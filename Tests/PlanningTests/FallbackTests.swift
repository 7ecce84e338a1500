// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import SpeechTestSupport
import Testing
import Tokens

@testable import Planning

/// A strategy that speaks only the words it has a clip for and declines each other word where it stands, as one
/// that cuts words from the voice's own takes would.
private final class WordClips: FallbackStrategy {
    let clips: [String: ClipTake]

    init(clips: [String: ClipTake]) { self.clips = clips }

    var name: String { "words" }

    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws {
        for token in run.tokens {
            let word = UncoveredRun(tokens: [token], spoken: run.spoken, startsSentence: run.startsSentence)
            guard let take = clips[token.text] else {
                try output.decline(word, reason: "no clip of \"\(token.text)\"")
                continue
            }
            output.place(
                output.segment(
                    .fallback(take), frameCount: take.frameCount, text: word.words, word.sourceRange, run.spoken,
                    fallback: .init(mode: .clip, words: word.words)))
        }
    }
}

@Suite struct FallbackTests {
    let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"])
    let clip = ClipTake(clipID: 99, frameCount: 50)

    @Test("each mode's chain of strategies, in the order they are tried")
    func chains() {
        func names(_ mode: FallbackMode, asClips: Bool = false) -> [String] {
            var settings = voice
            settings.fallbackMode = mode
            let planned = PlannerVoice(voice: settings, lookup: DictionaryLookup([:]), fallbacks: [clip])
            return FallbackChains.strategies(for: planned, phrases: planned.lookup, plansFallbacksAsClips: asClips)
                .names
        }
        #expect(names(.clip) == ["clip"])
        #expect(names(.spell) == ["spell"])
        #expect(names(.voice) == ["voice", "clip"])
        #expect(names(.voice, asClips: true) == ["clip"])
    }

    @Test("a strategy that declines a word hands it to the next where it stands, and the run keeps its order")
    func declinedWords() throws {
        let placement = Placement(voices: [voice])
        let warnings = PlanWarnings()
        let selection = TakeChooser(
            voices: [voice], rotation: TakeRotation(.best), placesEveryPhrase: false, placement: placement,
            warnings: warnings, trace: nil)
        let words = WordClips(clips: ["ann": ClipTake(clipID: 7, frameCount: 20)])
        let chains = FallbackChains(
            voiceCount: 1, selection: selection, placement: placement, warnings: warnings, trace: nil,
            cancellation: Cancellation()
        ) { _ in
            FallbackChain(words, then: FallbackChain(FallbackClip(voice: self.voice.identifier, takes: [self.clip])))
        }
        let spoken = Spoken(context: SpeechContext(), speaker: 0, speed: 1, pitchSemitones: 0)
        try chains.take(Match(takes: [], tokens: Tokenizer.tokens(in: "bob ann carol")), spoken)
        placement.finish()
        var placed: [String] = []
        while let next = placement.nextSegment() { placed.append("\(next.take!.clipID) \(next.text)") }
        #expect(placed == ["99 bob", "7 ann", "99 carol"])
    }

    @Test("every chain's last strategy speaks what it is given, or names the words when the voice has no clip")
    func lastStrategy() throws {
        let voice = PlannerVoice(voice: voice, lookup: DictionaryLookup([:]), fallbacks: [])
        #expect(throws: PlanningError.noFallbackClip(voice: "com.example.ann", words: "bob")) {
            try Planner(voices: [voice]).plan(SSMLReader().read("Bob"))
        }
    }
}
