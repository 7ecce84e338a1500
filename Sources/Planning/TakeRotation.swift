// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Which take plays where no sentence's path chooses it: by rotation where the planner rotates, else the first. For
/// the phrases of `rotate` and `first`, and for the fallback clip and spelled letters whatever the choice.
///
/// Holds how often each phrase (by its first take) has been spoken so far, for the whole request: "no, no, no" plays
/// three takes. Shared by the take selection and the fallback strategies, which count the same phrases.
final class TakeRotation {
    let choice: TakeChoice
    private var occurrences: [ClipTake: Int] = [:]

    init(_ choice: TakeChoice) { self.choice = choice }

    /// The index in `takes` of the take that plays now; counts this time when the planner rotates.
    func choose(from takes: [ClipTake]) -> Int {
        guard choice == .rotate, takes.count > 1 else { return 0 }
        let count = occurrences[takes[0], default: 0]
        occurrences[takes[0]] = count + 1
        return count % takes.count
    }
}
