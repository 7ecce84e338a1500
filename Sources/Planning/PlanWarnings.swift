// SPDX-License-Identifier: GPL-3.0-or-later
/// The warnings of one request's plan, from the SSML reader and every stage, each said once.
///
/// Holds the warnings said and not yet taken, and every different warning said so far, for the whole request: at
/// most `limit` of them, so that a request with a bad attribute on every one of a million elements neither floods a
/// log nor fills the memory. It lets go when the request's plan does.
final class PlanWarnings {
    private var waiting = Queue<String>()
    private var said: Set<String> = []
    private var isPastLimit = false

    /// The most different warnings a request says.
    static var limit: Int { 1_000 }

    /// Says `warning`, unless it was said already or the request is past the limit.
    func warn(_ warning: String) {
        guard said.count < Self.limit else {
            if !isPastLimit {
                isPastLimit = true
                waiting.append("more than \(Self.limit) warnings; the rest are not shown")
            }
            return
        }
        if said.insert(warning).inserted { waiting.append(warning) }
    }

    /// The next warning said and not yet taken.
    func next() -> String? { waiting.popFirst() }
}
