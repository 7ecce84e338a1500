/// Cuts streamed text into sentences as they complete, so each can be spoken before the rest arrives.
///
/// A sentence ends at `.`, `?` or `!` (with any closing quotes or brackets after it) followed by white space,
/// or at `。`, `？` or `！` (with its closers) wherever it is, since Japanese and Chinese put no space after
/// them. A Latin full stop at the very end of the text so far may still be a decimal point or an abbreviation
/// waiting for its next chunk, so it ends a sentence only once white space follows or `finish()` is called.
/// Text that starts with `<` is SSML: it is spoken whole at `finish()`, since a cut could split an element.
///
/// ```swift
/// var splitter = SentenceSplitter()
/// splitter.add("The door is open. The wash")   // ["The door is open."]
/// splitter.add("ing is done.")                  // []
/// splitter.finish()                             // "The washing is done."
/// ```
public struct SentenceSplitter: Sendable {
    private var pending = ""

    public init() {}

    private static let latinEnds: Set<Character> = [".", "?", "!", "…"]
    private static let wideEnds: Set<Character> = ["。", "？", "！", "｡"]
    private static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "」", "』", "）", "】", "»"]

    /// Adds a chunk of text; returns the sentences it completed, in order, without surrounding white space.
    public mutating func add(_ text: String) -> [String] {
        pending += text
        guard pending.first(where: { !$0.isWhitespace }) != "<" else { return [] }
        var sentences: [String] = []
        var start = pending.startIndex
        var index = pending.startIndex
        while index < pending.endIndex {
            let character = pending[index]
            let isLatin = Self.latinEnds.contains(character)
            guard isLatin || Self.wideEnds.contains(character) else {
                index = pending.index(after: index)
                continue
            }
            var end = pending.index(after: index)
            while end < pending.endIndex, Self.closers.contains(pending[end]) || pending[end] == character {
                end = pending.index(after: end)
            }
            if end == pending.endIndex && isLatin { break }
            if isLatin && !pending[end].isWhitespace {
                index = end
                continue
            }
            let sentence = Self.trimmed(pending[start..<end])
            if !sentence.isEmpty { sentences.append(sentence) }
            start = end
            index = end
        }
        pending = String(pending[start...])
        return sentences
    }

    /// The text left after the last complete sentence, when the stream ends; `nil` when only white space is left.
    public mutating func finish() -> String? {
        defer { pending = "" }
        let rest = Self.trimmed(pending[...])
        return rest.isEmpty ? nil : rest
    }

    private static func trimmed(_ text: Substring) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }
}
