// SPDX-License-Identifier: GPL-3.0-or-later
import Tokens
import Verbalization

/// Digit runs read as cardinal numbers in a voice's language, by `Verbalization`, remembered: a long text says the
/// same numbers again.
///
/// Holds the words of up to `capacity` numbers for the whole request, and starts afresh when full, so that a text
/// of endless different numbers stays small.
struct NumberWords {
    private var remembered: [String: [Token]?] = [:]

    /// How many numbers are remembered at most.
    static var capacity: Int { 4_096 }

    /// `token`'s digits as number words in `language`, each pointing at the digits, the last followed by what
    /// followed them; `nil` when the language has no words for the number.
    mutating func tokens(for token: Token, language: String) -> [Token]? {
        let key = language + " " + token.text
        let words: [Token]?
        if let known = remembered[key] {
            words = known
        } else {
            words = (try? Verbalizer.words(for: token.text, as: .cardinal, format: nil, language: language)).map {
                Tokenizer.tokens(inWords: $0)
            }
            if remembered.count == Self.capacity { remembered.removeAll(keepingCapacity: true) }
            remembered[key] = words
        }
        guard var spoken = words?.map({ Token($0.text, $0.kind, sourceRange: token.sourceRange) }), !spoken.isEmpty
        else { return words }
        spoken[spoken.count - 1].punctuationAfter = token.punctuationAfter
        return spoken
    }
}
