// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore
import Tokens

/// Each word of a run spelled with the voice's letter clips, as Asterisk's SayAlpha spells, with a short pause
/// between words; the fallback clip for a character with no clip (`FallbackMode.spell`). The whole run is one
/// fallback, reported once, however many letters it has.
final class Spelling: FallbackStrategy {
    /// What speaks a character with no letter clip.
    let clip: FallbackClip
    /// The voice's phrases, among them its letters.
    let letters: any PhraseLookup

    init(clip: FallbackClip, letters: any PhraseLookup) {
        self.clip = clip
        self.letters = letters
    }

    var name: String { "spell" }

    /// The pause between two spelled words: an x-weak break (250 ms), which follows the rate.
    static var wordPauseFrames: Int { 5_513 }

    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws {
        output.note(run, "spelled with letter clips")
        var startsRun = true
        for (index, word) in run.tokens.enumerated() {
            if index > 0 {
                output.place(PlanSegment(kind: .silence, frameCount: Self.wordPauseFrames, speed: run.spoken.speed))
            }
            // Each character's own range in the request where the word stands there as normalised, else the word's.
            let isVerbatim = word.text.utf16.count == word.sourceRange.count
            for character in Tokenizer.characterTokens(in: word.text, utf16Offset: word.sourceRange.lowerBound) {
                let range = isVerbatim ? character.sourceRange : word.sourceRange
                let fallback = PlanSegment.Fallback(mode: .spell, words: run.words, startsRun: startsRun)
                startsRun = false
                let takes = try letters.takes(forPhraseKey: character.text)
                let kind: PlanSegment.Kind
                if takes.isEmpty {
                    let take = try clip.take(for: run.words, output)
                    output.note(run, "no letter clip for \"\(character.text)\": clip \(take)")
                    kind = .fallback(take)
                } else {
                    kind = .phrase(takes[output.choose(from: takes)])
                }
                output.place(
                    output.segment(
                        kind, frameCount: kind.take!.frameCount, text: character.text, range, run.spoken,
                        fallback: fallback))
            }
        }
    }
}

extension PlanSegment.Kind {
    /// The take of a phrase or fallback clip.
    fileprivate var take: ClipTake? {
        switch self {
        case .phrase(let take), .fallback(let take): take
        default: nil
        }
    }
}
