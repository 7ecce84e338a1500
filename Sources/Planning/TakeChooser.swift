// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// The take selection, the fifth stage: chooses the take each phrase plays and hands every segment on to the placement in order.
///
/// With `best`, the takes of a sentence's phrases are chosen together (`TakeSelector`), a few phrases at a time
/// (`selectionLookahead`); with `rotate` and `first`, by `TakeRotation` as each phrase is placed. A phrase whose take
/// is yet to be chosen is held, with every segment after it (the fallback's among them), until it is.
///
/// Holds, across a sentence: the held segments (at most `selectionLookahead` phrases past the first still open, and
/// what came between them), whether the sentence has spoken words yet, and the take placed last while nothing has
/// sounded after it (what the next phrase joins). It lets them go where the sentence ends (`endSentence()`: an
/// `<s>` or `<p>` starts or ends, or the request ends). For the whole request it holds whether any sound has been
/// placed yet, which the fallback voice asks.
final class TakeChooser {
    /// The pack's voices, in the pack's order: their selection weights.
    private let voices: [VoiceSettings]
    let rotation: TakeRotation
    /// Holds every phrase until its place is known (`Planner.placesEveryPhrase`).
    private let placesEveryPhrase: Bool
    private let placement: Placement
    private let warnings: PlanWarnings
    private let trace: PlanTraceRecorder?
    /// The segments from the first phrase with a choice of takes whose take is not chosen yet on, held until the
    /// sentence ends or `selectionLookahead` phrases follow it, so that their takes are chosen together.
    private var held: [HeldSegment] = []
    private var heldPhraseCount = 0
    /// Whether words have been spoken in the current sentence, so that the next phrase is not its first.
    private(set) var hasSpokenInSentence = false
    /// The take of the last clip placed, while nothing else has sounded after it: what the next phrase joins.
    private var lastPlacedTake: ClipTake?
    /// Whether a clip, speech or a silence of some length has been placed, so that the request's first audio no longer
    /// waits for what comes next.
    private(set) var hasPlacedSound = false

    init(
        voices: [VoiceSettings], rotation: TakeRotation, placesEveryPhrase: Bool, placement: Placement,
        warnings: PlanWarnings, trace: PlanTraceRecorder?
    ) {
        self.voices = voices
        self.rotation = rotation
        self.placesEveryPhrase = placesEveryPhrase
        self.placement = placement
        self.warnings = warnings
        self.trace = trace
    }

    /// How many phrases after a phrase are planned before its take is chosen, when its sentence has not ended by
    /// then: fixed-lag Viterbi. A take's cost reaches the phrases after it only through the joins, each through the
    /// next, so looking further ahead rarely changes a choice, and first audio waits for these few phrases instead of
    /// the whole sentence. It also bounds what is held for a long sentence, or text with no sentence ends.
    static var selectionLookahead: Int { 3 }

    /// Places a phrase whose take is yet to be chosen from `takes` (the first stands in until then); its last word is
    /// followed by `punctuation`.
    func placePhrase(_ segment: consuming PlanSegment, takes: [ClipTake], punctuation: Token.Punctuation?) {
        let isFirst = !hasSpokenInSentence
        hasSpokenInSentence = true
        hasPlacedSound = true
        guard takes.count > 1 || !held.isEmpty || placesEveryPhrase else {
            trace?.record(.takeSelection, segment.text, "take \(takes[0]), its only take")
            commit(segment)
            return
        }
        held.append(
            HeldSegment(segment: segment, choice: .init(takes: takes, punctuation: punctuation, isFirst: isFirst)))
        heldPhraseCount += 1
        if heldPhraseCount > Self.selectionLookahead { chooseTakes(placing: heldPhraseCount - Self.selectionLookahead) }
    }

    /// Notes punctuation after the last phrase placed, when its take is yet to be chosen: a text run that begins with
    /// it (`</say-as>?`) ends the words of the run before.
    func follow(with punctuation: Token.Punctuation) {
        guard let last = held.lastIndex(where: { $0.choice != nil }) else { return }
        held[last].choice!.punctuation = max(held[last].choice!.punctuation ?? punctuation, punctuation)
    }

    /// Places a segment after those held, or on the timeline when none is.
    func place(_ segment: consuming PlanSegment) {
        if segment.isClip { hasSpokenInSentence = true }
        if segment.isClip || (segment.isSounding && segment.frameCount > 0) { hasPlacedSound = true }
        if held.isEmpty {
            commit(segment)
        } else {
            held.append(HeldSegment(segment: segment, choice: nil))
        }
    }

    /// Where a sentence ends (or a paragraph starts or ends, or the request ends): its held takes are chosen, its
    /// last phrase as the last, and the next phrase is a sentence's first.
    func endSentence() {
        chooseTakes(placing: nil)
        hasSpokenInSentence = false
    }

    private func commit(_ segment: consuming PlanSegment) {
        if case .phrase(let take) = segment.kind {
            lastPlacedTake = take
        } else if segment.isSounding {
            lastPlacedTake = nil
        }
        placement.append(segment)
    }

    /// Chooses the takes of the held phrases over the cheapest path through all of them, and places the first
    /// `placing` phrases with what came between them; `nil` places them all, as the sentence ends here. The rest stay
    /// held: the path may change as more phrases come, and whether the last ends the sentence is not known yet.
    private func chooseTakes(placing: Int?) {
        guard !held.isEmpty else { return }
        let endsSentence = placing == nil
        let lastSpoken = held.lastIndex { $0.segment.isClip }
        var phrases: [TakeSelector.Phrase] = []
        var phraseIndices: [Int] = []
        var joinsPrevious = lastPlacedTake != nil
        for (index, held) in held.enumerated() {
            guard let choice = held.choice else {
                if held.segment.isSounding { joinsPrevious = false }
                continue
            }
            let place = PhrasePlace(
                isFirst: choice.isFirst, isLast: endsSentence && index == lastSpoken, punctuation: choice.punctuation)
            phrases.append(TakeSelector.Phrase(takes: choice.takes, place: place, joinsPrevious: joinsPrevious))
            phraseIndices.append(index)
            joinsPrevious = true
        }
        let weights =
            voices.first { $0.identifier == held[phraseIndices[0]].segment.voice }?.selection ?? .standard
        var chosen: [(index: Int, selection: TakeSelection)]
        if rotation.choice == .best {
            chosen = TakeSelector.choose(phrases, after: lastPlacedTake, weights: weights)
        } else {
            // Only the phrases placed now: rotation counts each choice, and a held phrase is chosen when placed.
            var previous = lastPlacedTake
            chosen = phrases.prefix(placing ?? phrases.count).map { phrase in
                let index = rotation.choose(from: phrase.takes)
                let selection = TakeSelector.selection(
                    of: phrase.takes[index], for: phrase, after: previous, weights: weights)
                previous = phrase.takes[index]
                return (index, selection)
            }
        }
        let kept = placing.map { phraseIndices[$0] } ?? held.endIndex
        for (number, index) in phraseIndices.enumerated() where index < kept {
            let take = phrases[number].takes[chosen[number].index]
            if phrases[number].hasTaggedTake && !phrases[number].hasTakeForPlace {
                let played = take.position.map { "its \($0.rawValue) take" } ?? "an untagged take"
                warnings.warn(
                    "no \(phrases[number].place.position.rawValue) take of \"\(held[index].segment.text)\" in "
                        + "\(held[index].segment.voice); \(played) plays")
            }
            held[index].segment.kind = .phrase(take)
            held[index].segment.frameCount = take.frameCount
            held[index].segment.selection = chosen[number].selection
            trace?.record(
                .takeSelection, held[index].segment.text,
                "take \(take) by \(rotation.choice.reason), take \(chosen[number].index + 1) of "
                    + "\(phrases[number].takes.count); \(chosen[number].selection)")
        }
        let placed = held[..<kept]
        held.removeFirst(kept)
        heldPhraseCount = held.count { $0.choice != nil }
        for segment in placed { commit(segment.segment) }
    }
}

/// A segment placed after a phrase whose take is yet to be chosen, or such a phrase, with what its choice needs.
private struct HeldSegment {
    var segment: PlanSegment
    var choice: Choice?

    struct Choice {
        var takes: [ClipTake]
        /// What follows the phrase's last word.
        var punctuation: Token.Punctuation?
        var isFirst: Bool
    }
}

extension TakeChoice {
    /// Why a take was chosen, as the plan dump says it.
    fileprivate var reason: String {
        switch self {
        case .best: "the sentence's cheapest path"
        case .rotate: "rotation"
        case .first: "first take"
        }
    }
}
