// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// The voice's fallback clip, once for each run of words no phrase covers (`FallbackMode.clip`), its takes in
/// rotation; the last strategy of every chain.
final class FallbackClip: FallbackStrategy {
    /// The voice's identifier, for the error.
    let voice: String
    /// The takes of the voice's fallback clip, first imported first.
    let takes: [ClipTake]

    init(voice: String, takes: [ClipTake]) {
        self.voice = voice
        self.takes = takes
    }

    var name: String { "clip" }

    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws {
        let take = try take(for: run.words, output)
        output.note(run, "clip \(take)")
        output.place(
            output.segment(
                .fallback(take), frameCount: take.frameCount, text: run.words, run.sourceRange, run.spoken,
                fallback: .init(mode: .clip, words: run.words)))
    }

    /// The next take of the fallback clip, standing for `words`.
    ///
    /// - Throws: `PlanningError.noFallbackClip` when the voice has none.
    func take(for words: String, _ output: FallbackOutput) throws -> ClipTake {
        guard !takes.isEmpty else { throw PlanningError.noFallbackClip(voice: voice, words: words) }
        return takes[output.choose(from: takes)]
    }
}
