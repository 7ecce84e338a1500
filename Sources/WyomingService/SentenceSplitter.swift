// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Cuts streamed text into sentences as they complete, so each can be spoken before the rest arrives.
///
/// Sentences end where `SentenceBoundaries` ends them, the rule that SSML's inferred sentences follow, so a text
/// streamed in chunks cut anywhere is spoken in the sentences that `concat-synth render` finds in it whole. Whether a
/// sentence ended is known at the first letter of the next (`Mr. Smith` is one sentence, `done. Next` two), so a
/// sentence is handed over once that letter has come, or at `finish()`. Text whose first sentence starts with `<` is
/// SSML: it is spoken whole at `finish()`, since a cut could split an element.
///
/// ```swift
/// var splitter = SentenceSplitter()
/// splitter.add("The door is open. The wash")   // ["The door is open."]
/// splitter.add("ing is done.")                  // []
/// splitter.finish()                             // "The washing is done."
/// ```
public struct SentenceSplitter: Sendable {
    private var boundaries = SentenceBoundaries()
    /// The text of the sentence not yet complete.
    private var pending = ""
    /// Whether `pending` holds more than white space.
    private var hasContent = false
    /// The stream is SSML: nothing is cut.
    private var isMarkup = false

    public init() {}

    /// Adds a chunk of text; returns the sentences it completed, in order, without surrounding white space.
    public mutating func add(_ text: String) -> [String] {
        guard !isMarkup else {
            pending += text
            return []
        }
        var sentences: [String] = []
        let scalars = text.unicodeScalars
        // The text before `kept` is in `pending` or handed over; the rule has read the text before `unread`.
        var kept = scalars.startIndex
        var unread = scalars.startIndex
        while true {
            let cut = unread < scalars.endIndex ? boundaries.read(scalars[unread...]) : nil
            let part = scalars[kept..<(cut ?? scalars.endIndex)]
            if !hasContent, let first = part.firstIndex(where: { !SentenceBoundaries.isWhiteSpace($0) }) {
                if part[first] == "<" {
                    isMarkup = true
                    pending.unicodeScalars += scalars[kept...]
                    return sentences
                }
                hasContent = true
            }
            pending.unicodeScalars += part
            guard let cut else { return sentences }
            if let sentence = Self.trimmed(pending) { sentences.append(sentence) }
            pending = ""
            hasContent = false
            kept = cut
            unread = scalars.index(after: cut)
        }
    }

    /// The text left after the last complete sentence, when the stream ends; `nil` when only white space is left.
    public mutating func finish() -> String? {
        defer {
            pending = ""
            hasContent = false
            isMarkup = false
            boundaries.reset()
        }
        return Self.trimmed(pending)
    }

    /// The text without the white space around it (`SentenceBoundaries.isWhiteSpace`); `nil` when nothing is left.
    private static func trimmed(_ text: String) -> String? {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !SentenceBoundaries.isWhiteSpace($0) }),
            let last = scalars.lastIndex(where: { !SentenceBoundaries.isWhiteSpace($0) })
        else { return nil }
        return String(scalars[first...last])
    }
}
