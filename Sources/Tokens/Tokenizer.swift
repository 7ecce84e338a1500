// SPDX-License-Identifier: GPL-3.0-or-later
import CUTF8Proc

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One unit the matcher works with: a word, a run of digits, or a single Han/Hiragana/Katakana character.
public struct Token: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Letters (and marks and inner apostrophes): `hello`, `it's`, `mb`.
        case word
        /// A run of decimal digits: `101`.
        case number
        /// One Han, Hiragana or Katakana character: `設`, `ダ`, `ー`.
        case character
    }

    /// The normalised text: NFKC, case-folded, with `’` read as `'`.
    public var text: String
    public var kind: Kind
    /// UTF-16 offsets of the token's source characters in the text as given.
    public var sourceRange: Range<Int>
    /// The strongest punctuation between this token and the next one of its text (`nil` for none): where a phrase
    /// ending here sits in its sentence, before a comma or at a question mark.
    public var punctuationAfter: Punctuation?

    /// Punctuation that tells a phrase's place, weakest first: a phrase before `,` goes on, one before `?` asks.
    public enum Punctuation: Int, Comparable, Sendable {
        /// `,` `;` `:` `、`, and their full-width forms.
        case comma
        /// `.` `…` `。`
        case fullStop
        /// `!`
        case exclamation
        /// `?`
        case question

        public static func < (left: Punctuation, right: Punctuation) -> Bool { left.rawValue < right.rawValue }

        /// The punctuation a character is, as normalised (full-width `？` is `?`); `nil` for any other.
        static func of(_ scalar: Unicode.Scalar) -> Punctuation? {
            switch scalar {
            case ",", ";", ":", "\u{3001}": .comma
            case ".", "\u{2026}", "\u{3002}", "\u{FF61}": .fullStop
            case "!", "\u{203C}": .exclamation
            case "?", "\u{2047}", "\u{2048}", "\u{2049}": .question
            default: nil
            }
        }
    }

    public init(_ text: String, _ kind: Kind, sourceRange: Range<Int>, punctuationAfter: Punctuation? = nil) {
        self.text = text
        self.kind = kind
        self.sourceRange = sourceRange
        self.punctuationAfter = punctuationAfter
    }

    public var description: String { "\(text)@\(sourceRange.lowerBound)..<\(sourceRange.upperBound)" }
}

/// Splits text into tokens the way SPEC.md's "Text to tokens" says.
///
/// Each character is normalised on its own (NFKC + case folding, so full-width `Ａ` is `a` and half-width
/// `ｶ` is `カ`) and classed by what it becomes; a token's text is then normalised as a whole so that
/// combining marks compose. Punctuation, symbols and spaces separate tokens and are dropped; an apostrophe
/// between two letters stays inside the word.
///
/// ```swift
/// Tokenizer.tokens(in: "Hello, World!").map(\.text)   // ["hello", "world"]
/// Tokenizer.phraseKey("MB使用")                         // "mb 使 用"
/// ```
public enum Tokenizer {
    /// The tokens of `text`; `utf16Offset` is added to every source range (the text's place in a request).
    public static func tokens(in text: String, utf16Offset: Int = 0) -> [Token] {
        var builder = TokenBuilder(base: utf16Offset)
        var offset = 0
        var scalars = text.unicodeScalars.makeIterator()
        var next = scalars.next()
        var previousClass: CharacterClass = .separator
        // Each other character is normalised through utf8proc once per text, however often it comes back.
        var classes: [Unicode.Scalar: (String, CharacterClass)] = [:]
        while let scalar = next {
            next = scalars.next()
            let width = scalar.utf16.count
            defer { offset += width }
            let (normalized, characterClass): (String, CharacterClass)
            if scalar.value < 0x80 {
                (normalized, characterClass) = classify(scalar)
            } else if let known = classes[scalar] {
                (normalized, characterClass) = known
            } else {
                (normalized, characterClass) = classify(scalar)
                classes[scalar] = (normalized, characterClass)
            }
            switch characterClass {
            case .separator:
                builder.finish()
                // Between two digits it belongs to a number or a time (`1,000`, `3.5`, `10:45`), not to the words.
                let isInNumber = previousClass == .digit && next.map { classify($0).1 == .digit } ?? false
                if !isInNumber,
                    let punctuation = Token.Punctuation.of(scalar)
                        ?? normalized.unicodeScalars.first.flatMap(Token.Punctuation.of)
                {
                    builder.follow(with: punctuation)
                }
            case .apostrophe:
                // Inside a word only: a letter before it and a letter after it.
                let nextIsLetter = next.map { classify($0).1 == .letter } ?? false
                if previousClass == .letter && nextIsLetter {
                    builder.append("'", as: .word, at: offset, width: width)
                } else {
                    builder.finish()
                }
            case .mark:
                builder.appendMark(normalized, at: offset, width: width)
            case .letter:
                builder.append(normalized, as: .word, at: offset, width: width)
            case .digit:
                builder.append(normalized, as: .number, at: offset, width: width)
            case .ideograph:
                builder.append(normalized, as: .character, at: offset, width: width)
            }
            if characterClass != .mark { previousClass = characterClass }
        }
        builder.finish()
        return builder.tokens
    }

    /// The tokens of words read out for a number, a date or a time, in order: each word (or phrase to record whole,
    /// such as "a m") tokenized as it is, with no text put together to be split again.
    public static func tokens(inWords words: [String]) -> [Token] {
        words.flatMap { tokens(in: $0) }
    }

    /// A phrase's key: its tokens' texts joined by single spaces (`"Hello, World!"` → `"hello world"`).
    public static func phraseKey(_ phrase: String) -> String {
        phraseKey(tokens(in: phrase))
    }

    /// The phrase key of tokens already made: their texts joined by single spaces, the rule every phrase key
    /// follows, whether an import stores it or the matcher looks it up.
    public static func phraseKey(_ tokens: [Token]) -> String {
        phraseKey(tokens[...])
    }

    /// The phrase key of some of a text's tokens, as the matcher walks them. A slice rather than any collection: a
    /// generic function of another module runs unspecialized, and this one runs at every step of the matcher's walk.
    public static func phraseKey(_ tokens: ArraySlice<Token>) -> String {
        // One token's key is its text, shared rather than copied; more get one buffer of the right size: the
        // matcher makes a key at every step of its walk.
        if tokens.count == 1, let only = tokens.first { return only.text }
        let byteCount = tokens.reduce(max(0, tokens.count - 1)) { $0 + $1.text.utf8.count }
        return String(unsafeUninitializedCapacity: byteCount) { buffer in
            var position = 0
            var isFirst = true
            for token in tokens {
                if !isFirst {
                    buffer[position] = UInt8(ascii: " ")
                    position += 1
                }
                isFirst = false
                for byte in token.text.utf8 {
                    buffer[position] = byte
                    position += 1
                }
            }
            return position
        }
    }

    /// NFKC with case folding, through utf8proc.
    public static func normalize(_ text: String) -> String {
        guard let folded = utf8proc_NFKC_Casefold(text) else { return text }
        defer { free(folded) }
        return String(cString: folded)
    }

    enum CharacterClass: Equatable {
        case separator, apostrophe, mark, letter, digit, ideograph
    }

    private static func classify(_ scalar: Unicode.Scalar) -> (String, CharacterClass) {
        let value = scalar.value
        if value < 0x80 {
            switch value {
            case 0x41...0x5A: return (String(Unicode.Scalar(value + 0x20)!), .letter)
            case 0x61...0x7A: return (String(scalar), .letter)
            case 0x30...0x39: return (String(scalar), .digit)
            case 0x27: return ("'", .apostrophe)
            default: return ("", .separator)
            }
        }
        if value == 0x2019 { return ("'", .apostrophe) }
        let normalized = normalize(String(scalar))
        guard let first = normalized.unicodeScalars.first else { return ("", .separator) }
        if isIdeograph(first) { return (normalized, .ideograph) }
        switch utf8proc_category(Int32(bitPattern: first.value)) {
        case UTF8PROC_CATEGORY_LU, UTF8PROC_CATEGORY_LL, UTF8PROC_CATEGORY_LT, UTF8PROC_CATEGORY_LM,
            UTF8PROC_CATEGORY_LO, UTF8PROC_CATEGORY_NL:
            return (normalized, .letter)
        case UTF8PROC_CATEGORY_MN, UTF8PROC_CATEGORY_MC, UTF8PROC_CATEGORY_ME:
            return (normalized, .mark)
        case UTF8PROC_CATEGORY_ND:
            return (normalized, .digit)
        default:
            // Kept for the punctuation it may be (full-width `？` is `?`).
            return (normalized, .separator)
        }
    }

    /// Han, Hiragana and Katakana (with the prolonged sound mark and iteration marks), which Japanese writes
    /// without spaces: each is a token of its own.
    private static func isIdeograph(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3005...0x3007,  // 々 〆 〇
            0x3041...0x3096, 0x309D...0x309F,  // Hiragana and its iteration marks, not the combining dakuten
            0x30A1...0x30FA, 0x30FC...0x30FF,  // Katakana without ゠ and the middle dot ・
            0x31F0...0x31FF,  // Katakana phonetic extensions
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,  // Han
            0x20000...0x3134F:  // Han, supplementary planes
            return true
        default:
            return false
        }
    }
}

/// Collects characters into tokens while `Tokenizer.tokens` walks the text.
private struct TokenBuilder {
    let base: Int
    var tokens: [Token] = []
    private var text = ""
    private var kind: Token.Kind = .word
    private var start = 0
    private var end = 0
    private var isASCII = true
    /// The text is one character's normalised form: normalising it again would change nothing.
    private var isOneNormalizedPiece = false

    init(base: Int) { self.base = base }

    mutating func append(_ normalized: String, as newKind: Token.Kind, at offset: Int, width: Int) {
        // A character token is one character; any other kind goes on while the kind stays the same.
        if !text.isEmpty && (newKind != kind || kind == .character) { finish() }
        isOneNormalizedPiece = text.isEmpty
        if text.isEmpty {
            kind = newKind
            start = offset
        }
        text += normalized
        isASCII = isASCII && normalized.utf8.allSatisfy { $0 < 0x80 }
        end = offset + width
    }

    /// A combining mark belongs to the token before it (`e` + U+0301, `カ` + U+3099); alone it is dropped.
    mutating func appendMark(_ normalized: String, at offset: Int, width: Int) {
        guard !text.isEmpty else { return }
        text += normalized
        isASCII = false
        isOneNormalizedPiece = false
        end = offset + width
    }

    /// Notes punctuation after the last token made, the strongest of all that follow it.
    mutating func follow(with punctuation: Token.Punctuation) {
        guard let last = tokens.indices.last else { return }
        tokens[last].punctuationAfter = max(tokens[last].punctuationAfter ?? punctuation, punctuation)
    }

    mutating func finish() {
        guard !text.isEmpty else { return }
        let composed = isASCII || isOneNormalizedPiece ? text : Tokenizer.normalize(text)
        tokens.append(Token(composed, kind, sourceRange: base + start..<base + end))
        text = ""
        isASCII = true
    }
}

extension Tokenizer {
    /// Tokens of one character each, for text spoken character by character (`say-as characters`):
    /// `"Ab1"` → `a`, `b`, `1`. Characters that are punctuation or space are dropped.
    public static func characterTokens(in text: String, utf16Offset: Int = 0) -> [Token] {
        var tokens: [Token] = []
        var offset = utf16Offset
        for character in text {
            let width = character.utf16.count
            let parts = Self.tokens(in: String(character), utf16Offset: offset)
            if let first = parts.first {
                tokens.append(Token(parts.map(\.text).joined(), first.kind, sourceRange: offset..<offset + width))
            }
            offset += width
        }
        return tokens
    }

    /// The strongest punctuation before the first token of `text` (`nil` for none): it follows the words before
    /// `text` where `text` goes on from them, as after `</say-as>?` or in the next piece of a long text.
    public static func leadingPunctuation(in text: String) -> Token.Punctuation? {
        var strongest: Token.Punctuation?
        for scalar in text.unicodeScalars {
            let (normalized, characterClass) = classify(scalar)
            guard characterClass == .separator || characterClass == .apostrophe || characterClass == .mark else {
                break
            }
            if let punctuation = Token.Punctuation.of(scalar)
                ?? normalized.unicodeScalars.first.flatMap(Token.Punctuation.of)
            {
                strongest = max(strongest ?? punctuation, punctuation)
            }
        }
        return strongest
    }

    /// Tokens with every run of digits read digit by digit (`say-as digits`, `telephone`):
    /// `"call 911"` → `call`, `9`, `1`, `1`.
    public static func digitTokens(in text: String, utf16Offset: Int = 0) -> [Token] {
        let utf16 = Array(text.utf16)
        return tokens(in: text, utf16Offset: utf16Offset).flatMap { token -> [Token] in
            guard token.kind == .number else { return [token] }
            let range = (token.sourceRange.lowerBound - utf16Offset)..<(token.sourceRange.upperBound - utf16Offset)
            var digits = characterTokens(
                in: String(decoding: utf16[range], as: UTF16.self), utf16Offset: token.sourceRange.lowerBound)
            if !digits.isEmpty { digits[digits.count - 1].punctuationAfter = token.punctuationAfter }
            return digits
        }
    }
}

extension Tokenizer {
    /// Tokens' texts as a person reads them: words apart, CJK characters together (`hello world`, `設定`,
    /// `mb 使用` → `mb 使用`). Phrase keys always use single spaces; this is for messages and markers.
    public static func displayText(_ tokens: ArraySlice<Token>) -> String {
        // One buffer of the right size: this runs for every segment of a plan. A concrete slice rather than any
        // collection, since callers in other modules got the unspecialized generic code, which is far slower.
        let byteCount = tokens.reduce(tokens.count) { $0 + $1.text.utf8.count }
        return String(unsafeUninitializedCapacity: byteCount) { buffer in
            var position = 0
            var previous: Token.Kind?
            for token in tokens {
                if let previous, !(previous == .character && token.kind == .character) {
                    buffer[position] = UInt8(ascii: " ")
                    position += 1
                }
                for byte in token.text.utf8 {
                    buffer[position] = byte
                    position += 1
                }
                previous = token.kind
            }
            return position
        }
    }
}
