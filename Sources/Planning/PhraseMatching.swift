// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// The third stage: greedy longest match of a run's tokens against its voice's phrase keys (`Matcher`), a window at a
/// time. Each phrase matched, and each run of tokens no phrase covers, goes on to the fallback stage as a `Match`;
/// digits no phrase covers are read as number words first (`NumberWords`), which may be phrases the voice has.
///
/// Greedy longest match over a window of tokens gives the plan that matching all of them at once gives: where a
/// phrase could reach past the window, the cursor reads more text first.
///
/// Holds, for the whole request, each voice's remembered look-ups (once the plan asks its first) and the number
/// words read so far (`NumberWords`, bounded); a run's own state is its `TextCursor`.
struct PhraseMatching<Lookup: PhraseLookup> {
    /// What matching a run did before it stopped.
    enum Progress {
        /// A segment was placed; the run goes on.
        case placed
        /// The run's text so far is matched, and it goes on in the next event.
        case needsText
        /// The run is matched to its end.
        case ended
    }

    /// Each voice's look-ups, shared by the plans of a planner and its copies.
    private let rememberedLookups: [RememberedLookup<Lookup>]
    /// Each voice's look-ups, by voice index, once this plan has asked its first: a long text, and a long-lived
    /// reader's requests, ask for the same phrases again and again.
    private var lookups: [RememberedLookup<Lookup>?]
    private var numberWords = NumberWords()
    /// The pack's voices, in the pack's order.
    private let voices: [VoiceSettings]
    private let fallback: FallbackChains
    private let selection: TakeChooser
    private let placement: Placement
    private let trace: PlanTraceRecorder?

    init(
        lookups: [RememberedLookup<Lookup>], voices: [VoiceSettings], fallback: FallbackChains,
        selection: TakeChooser, placement: Placement, trace: PlanTraceRecorder?
    ) {
        rememberedLookups = lookups
        self.lookups = Array(repeating: nil, count: lookups.count)
        self.voices = voices
        self.fallback = fallback
        self.selection = selection
        self.placement = placement
        self.trace = trace
    }

    /// The most words the fallback voice speaks as one phrase: a longer run is spoken in pieces this long, so that a
    /// text no clip covers is never synthesized whole (256 words are about 100 s of speech, 9 MB of samples).
    static var spokenRunTokenLimit: Int { 256 }

    /// The look-ups of the voice at `index`.
    mutating func lookup(_ index: Int) -> RememberedLookup<Lookup> {
        if let remembered = lookups[index] { return remembered }
        let remembered = rememberedLookups[index]
        remembered.beginPlan()
        lookups[index] = remembered
        return remembered
    }

    /// Matches the run at `cursor` until a segment is placed, the run ends, or it needs the text of the next event,
    /// which goes on from it.
    mutating func match(_ cursor: inout TextCursor) throws -> Progress {
        let placed = placement.placedCount
        let lookup = lookup(cursor.spoken.speaker)
        while placement.placedCount == placed {
            // A run spoken a word at a time goes on before anything after it is matched.
            if fallback.isSpeakingRun {
                try fallback.speakOn()
                continue
            }
            let isComplete = !cursor.hasMoreText && !cursor.isContinued
            let isEmpty = cursor.head == cursor.window.count
            let search =
                isEmpty && isComplete
                ? .none : try Matcher.longestPhrase(cursor.window[cursor.head...], in: lookup, isComplete: isComplete)
            switch search {
            case .needsMoreTokens:
                guard cursor.readMoreText() else { return .needsText }
                if let punctuation = cursor.punctuationAfterPlaced {
                    selection.follow(with: punctuation)
                    cursor.punctuationAfterPlaced = nil
                }
            case .none where isEmpty:
                try handUnmatched(of: &cursor)
                if !fallback.isSpeakingRun { return .ended }
            case .none:
                cursor.unmatched.append(cursor.window[cursor.head])
                cursor.head += 1
                if cursor.unmatched.count == Self.spokenRunTokenLimit,
                    voices[cursor.spoken.speaker].fallbackMode.usesFallbackVoice
                {
                    try handUnmatched(of: &cursor)
                }
            case .phrase(let length, let takes):
                try handUnmatched(of: &cursor)
                let tokens = Array(cursor.window[cursor.head..<cursor.head + length])
                cursor.head += length
                try hand(Match(takes: takes, tokens: tokens), cursor.spoken)
            }
            cursor.dropMatchedTokens()
        }
        return .placed
    }

    /// Hands on the unmatched tokens gathered so far: digits no clip covers are read as a number, in words the
    /// voice may have; the rest falls back, number words no clip covers in one run with the words around them
    /// (`at 3 PM` is one run, `at three pm`, for the fallback voice to speak as a phrase).
    private mutating func handUnmatched(of cursor: inout TextCursor) throws {
        guard !cursor.unmatched.isEmpty else { return }
        var tokens: [Token] = []
        swap(&tokens, &cursor.unmatched)
        let spoken = cursor.spoken
        let language = voices[spoken.speaker].primaryLanguages.first ?? ""
        var unmatched: [Token] = []
        for token in tokens {
            guard token.kind == .number, let words = numberWords.tokens(for: token, language: language) else {
                unmatched.append(token)
                continue
            }
            trace?.record(.phraseMatching, token.text, "read as \"\(Tokenizer.displayText(words[...]))\"")
            for wordMatch in try Matcher.match(words, in: lookup(spoken.speaker)) {
                guard !wordMatch.takes.isEmpty else {
                    unmatched += wordMatch.tokens
                    continue
                }
                if !unmatched.isEmpty {
                    try hand(Match(takes: [], tokens: unmatched), spoken)
                    unmatched = []
                }
                try hand(wordMatch, spoken)
            }
        }
        if !unmatched.isEmpty { try hand(Match(takes: [], tokens: unmatched), spoken) }
    }

    private func hand(_ match: Match, _ spoken: Spoken) throws {
        trace?.record(
            .phraseMatching, match.words,
            match.takes.isEmpty
                ? "no phrase in \(voices[spoken.speaker].identifier)"
                : "phrase in \(voices[spoken.speaker].identifier), \(match.takes.count) take"
                    + (match.takes.count == 1 ? "" : "s"))
        try fallback.take(match, spoken)
    }
}
