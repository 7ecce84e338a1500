// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Testing

@testable import Planning

/// The take selection stage alone: what it holds and when it hands segments on to the placement.
@Suite struct TakeSelectionStageTests {
    let voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-GB"])

    func stage(_ choice: TakeChoice = .best) -> (TakeChooser, Placement) {
        let placement = Placement(voices: [voice])
        let selection = TakeChooser(
            voices: [voice], rotation: TakeRotation(choice), placesEveryPhrase: false, placement: placement,
            warnings: PlanWarnings(), trace: nil)
        return (selection, placement)
    }

    func phrase(_ takes: [ClipTake]) -> PlanSegment {
        PlanSegment(kind: .phrase(takes[0]), frameCount: takes[0].frameCount, text: "york", voice: voice.identifier)
    }

    func placed(_ placement: Placement) -> [PlanSegment.Kind] {
        placement.finish()
        var kinds: [PlanSegment.Kind] = []
        while let next = placement.nextSegment() { kinds.append(next.segment.kind) }
        return kinds
    }

    let york = [
        ClipTake(clipID: 1, frameCount: 10, position: .initial), ClipTake(clipID: 2, frameCount: 10, position: .final),
    ]

    @Test("a phrase with a choice of takes is held, with what follows it, until its sentence ends")
    func holdsUntilTheSentenceEnds() {
        let (selection, placement) = stage()
        selection.placePhrase(phrase(york), takes: york, punctuation: nil)
        selection.place(PlanSegment(kind: .mark("m")))
        #expect(placement.placedCount == 0)
        selection.endSentence()
        #expect(placed(placement) == [.phrase(york[1]), .mark("m")])
    }

    @Test("a phrase with one take and nothing held goes straight on")
    func oneTake() {
        let (selection, placement) = stage()
        let only = [ClipTake(clipID: 3, frameCount: 10)]
        selection.placePhrase(phrase(only), takes: only, punctuation: nil)
        // The silence lets the timeline place the clip it held for a crossfade.
        selection.place(PlanSegment(kind: .silence, frameCount: 10))
        #expect(placement.placedCount == 2)
        #expect(selection.hasSpokenInSentence && selection.hasPlacedSound)
        selection.endSentence()
        #expect(!selection.hasSpokenInSentence && selection.hasPlacedSound)
    }

    @Test("a long sentence lets go of each phrase once the lookahead's phrases follow it")
    func lookahead() {
        let (selection, placement) = stage()
        for _ in 0...TakeChooser.selectionLookahead {
            selection.placePhrase(phrase(york), takes: york, punctuation: nil)
        }
        // The first phrase went on once the lookahead's phrases followed it; the rest wait for the sentence's end.
        #expect(placed(placement) == [.phrase(york[0])])
    }

    @Test("rotation counts each phrase the request speaks, the fallback's takes with them")
    func rotation() {
        let rotation = TakeRotation(.rotate)
        #expect([rotation.choose(from: york), rotation.choose(from: york), rotation.choose(from: york)] == [0, 1, 0])
        #expect(TakeRotation(.first).choose(from: york) == 0)
        #expect(TakeRotation(.best).choose(from: york) == 0)
    }
}
