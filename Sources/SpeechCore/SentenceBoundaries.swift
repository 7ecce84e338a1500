// SPDX-License-Identifier: GPL-3.0-or-later
// The rule lives here, in SpeechCore, because it is the one module below both of its readers: SSML, which infers the
// sentences of text that has no `<s>` and depends on SpeechCore alone, and WyomingService, which cuts streamed text
// into sentences. It needs no C, no I/O and no tokenizer: Unicode's own properties tell letters, case and digits.

/// Where a sentence ends in text that has no `<s>`: the one rule of SSML's inferred sentences and of the Wyoming
/// server's streamed text (docs/speaking.md, "Sentences").
///
/// It reads the text a scalar at a time and says before which scalar a sentence ended, so that a text read in pieces
/// cut anywhere ends its sentences where the whole text does. A sentence ends after `.` `!` `?`
/// `…` or a run of them, with the closing quotes and brackets after it, when white space follows and the next word
/// does not start with a lowercase letter (nor, after a single full stop, with a digit), unless the full stop ends
/// an abbreviation (`Mr.`, `e.g.`, `U.S.`) or an initial (`J.`); a Japanese or Chinese `。` `！` `？` `｡` ends one
/// wherever it is. A sentence holds at least one letter or digit: punctuation alone ends nothing. Whether a
/// sentence ends is known at the first scalar of the next sentence; what comes between is white space.
///
/// ```swift
/// var boundaries = SentenceBoundaries()
/// let text = "Dr. Who. Yes"
/// boundaries.read(text.unicodeScalars[...])   // the index of "Y": "Dr. Who." is one sentence
/// ```
public struct SentenceBoundaries: Sendable {
    private var state = State.inSentence
    /// The punctuation read last, while `state` is not `inSentence`.
    private var ending = Ending()
    /// Whether the sentence so far holds a letter or a digit (or a word the rule does not see).
    private var hasWord = false
    /// The word being read (letters and full stops since the last other scalar), for abbreviations and initials.
    private var word = Word()

    public init() {}

    private enum State: Sendable {
        case inSentence
        /// Terminal punctuation, and the closers after it, before what follows them.
        case ending
        /// White space after a Latin ending: the next word says whether the sentence ended.
        case waiting
    }

    /// The punctuation that may end a sentence.
    private struct Ending: Sendable {
        var fullStops = 0
        var hasEllipsis = false
        var hasQuestionOrExclamation = false
        /// A Japanese or Chinese full stop, question or exclamation mark: it ends the sentence wherever it is.
        var isWide = false
        var hasCloser = false

        /// A single `.`: the only ending that abbreviations, initials and a following digit can belong to.
        var isFullStop: Bool { fullStops == 1 && !hasEllipsis && !hasQuestionOrExclamation && !isWide }

        mutating func add(_ kind: Kind) {
            switch kind {
            case .fullStop: fullStops += 1
            case .ellipsis: hasEllipsis = true
            case .questionOrExclamation: hasQuestionOrExclamation = true
            case .wideEnding: isWide = true
            case .closer: hasCloser = true
            case .whiteSpace, .letter, .other: break
            }
        }
    }

    /// What a scalar is to the rule.
    private enum Kind {
        case whiteSpace
        case fullStop
        /// `…`.
        case ellipsis
        case questionOrExclamation
        /// `。` `！` `？` `｡`.
        case wideEnding
        /// A closing quote or bracket: `"` `'` `”` `’` `)` `]` `}` `»` `›` `」` `』` `）` `】` `］` `》` `〉`.
        case closer
        /// An ASCII letter.
        case letter
        case other
    }

    /// Reads `scalars` until a sentence ends before one of them: returns the index of that scalar (read: it starts the
    /// next sentence, or is white space before it), or `nil` when no sentence ended and all of them are read.
    public mutating func read(_ scalars: Substring.UnicodeScalarView) -> String.Index? {
        // One loop here rather than a call a scalar from another module, so that the rule's steps are inlined into it;
        // over the UTF-8 bytes, decoded here, rather than the scalar view, whose every step checks its index.
        var contiguous = Substring(scalars)
        let cut = contiguous.withUTF8 { bytes -> Int? in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            var offset = 0
            while case .scalarValue(let scalar) = decoder.decode(&iterator) {
                if read(scalar) { return offset }
                offset += UTF8.width(scalar)
            }
            return nil
        }
        // The index in the text given (`withUTF8` may have copied the bytes elsewhere first).
        guard let cut else { return nil }
        let utf8 = Substring(scalars).utf8
        return utf8.index(utf8.startIndex, offsetBy: cut)
    }

    /// Reads one scalar; `true` when a sentence ended just before it.
    @inline(__always)
    private mutating func read(_ scalar: Unicode.Scalar) -> Bool {
        let kind = Self.kind(of: scalar)
        if case .inSentence = state {
            readInSentence(scalar, kind)
            return false
        }
        return readAfterEnding(scalar, kind)
    }

    private mutating func readAfterEnding(_ scalar: Unicode.Scalar, _ kind: Kind) -> Bool {
        if case .waiting = state {
            if kind == .whiteSpace { return false }
            if Self.isLowercase(scalar) || (ending.isFullStop && Self.isDecimalDigit(scalar)) {
                state = .inSentence
                readInSentence(scalar, kind)
                return false
            }
            return startSentence(with: scalar, kind)
        }
        switch kind {
        case .fullStop, .ellipsis, .questionOrExclamation, .wideEnding, .closer:
            ending.add(kind)
            return false
        case .whiteSpace:
            if ending.isWide { return startSentence(with: scalar, kind) }
            let isAbbreviation = ending.isFullStop && !ending.hasCloser && word.isAbbreviation
            word = Word()
            state = isAbbreviation ? .inSentence : .waiting
            return false
        case .letter, .other:
            if ending.isWide { return startSentence(with: scalar, kind) }
            // Punctuation inside a word: `3.5`, `example.com`, `U.S`; a full stop stays part of the word.
            if ending.isFullStop && !ending.hasCloser { word.append(0x2E) } else { word = Word() }
            state = .inSentence
            readInSentence(scalar, kind)
            return false
        }
    }

    /// Whether the sentence may have ended at the punctuation read last: what comes next decides.
    public var mayHaveEnded: Bool {
        if case .inSentence = state { return false }
        return true
    }

    /// Reads markup between words (a tag), which separates them as white space does; `true` when a sentence ended
    /// before it.
    public mutating func readSeparator() -> Bool { read(" " as Unicode.Scalar) }

    /// Reads a word whose letters the rule does not look at (a `<say-as>`, a `<sub>` alias, an `<audio>`): it is no
    /// abbreviation, starts with no lowercase letter, and counts as a word of its sentence. `true` when a sentence
    /// ended before it.
    public mutating func readWord() -> Bool {
        // An uppercase letter that then stops being a possible initial.
        let ended = read("X" as Unicode.Scalar)
        word.isPlain = false
        return ended
    }

    /// Starts afresh, as at the start of a text: the sentence ended whatever its punctuation (the end of the text, a
    /// `<p>` or `<s>` tag).
    public mutating func reset() {
        state = .inSentence
        hasWord = false
        word = Word()
    }

    /// White space as Unicode's `White_Space` property has it, in a switch rather than a property look-up: ASCII's,
    /// NEL, no-break spaces, the typographic spaces, the line and paragraph separators, the ideographic space.
    public static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09...0x0D, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    // MARK: Reading

    /// `scalar` begins the next sentence (or is white space before it): the sentence before it ended.
    private mutating func startSentence(with scalar: Unicode.Scalar, _ kind: Kind) -> Bool {
        reset()
        readInSentence(scalar, kind)
        return true
    }

    private mutating func readInSentence(_ scalar: Unicode.Scalar, _ kind: Kind) {
        switch kind {
        case .whiteSpace:
            word = Word()
        case .fullStop, .ellipsis, .questionOrExclamation, .wideEnding:
            guard hasWord else {
                word = Word()
                return
            }
            ending = Ending()
            ending.add(kind)
            state = .ending
        case .letter:
            hasWord = true
            word.append(UInt8(scalar.value))
        case .closer, .other:
            if !hasWord && Self.isLetterOrDigit(scalar) { hasWord = true }
            if scalar.isASCII {
                word = Word()
            } else if word.isPlain {
                // A letter of another alphabet keeps the word going (it is no abbreviation); anything else ends it. Once
                // the word is no abbreviation, what else it holds does not matter: Japanese text, which has few
                // spaces, asks for no property after its first letter.
                if scalar.properties.isAlphabetic { word.isPlain = false } else { word = Word() }
            }
        }
    }

    private static func kind(of scalar: Unicode.Scalar) -> Kind {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A: return .letter
        case 0x20, 0x09...0x0D: return .whiteSpace
        case 0x2E: return .fullStop
        case 0x21, 0x3F: return .questionOrExclamation
        case 0x22, 0x27, 0x29, 0x5D, 0x7D: return .closer
        case 0...0x7F: return .other
        case 0x2026: return .ellipsis
        case 0x3002, 0xFF01, 0xFF1F, 0xFF61: return .wideEnding
        case 0x201D, 0x2019, 0xBB, 0x203A, 0x300D, 0x300F, 0xFF09, 0x3011, 0xFF3D, 0x300B, 0x3009: return .closer
        default: return isWhiteSpace(scalar) ? .whiteSpace : .other
        }
    }

    private static func isLowercase(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? (0x61...0x7A).contains(scalar.value) : scalar.properties.isLowercase
    }

    private static func isDecimalDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? (0x30...0x39).contains(scalar.value) : scalar.properties.generalCategory == .decimalNumber
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (0x30...0x39).contains(scalar.value) }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}

/// The word before a full stop, as much of it as abbreviations need: its last eight ASCII letters and full stops,
/// lowercased, packed into an integer so that reading a letter costs a shift.
private struct Word: Sendable {
    /// The last eight bytes, lowercased, the newest in the low byte.
    private var bytes: UInt64 = 0
    private var count = 0
    /// Only ASCII letters and full stops so far.
    var isPlain = true
    /// Letters and full stops alternate, starting with a letter: `u.s`, `e.g`, `a.m`.
    private var isDotted = true
    /// A single uppercase letter other than `I` (which is a word of its own).
    private var isInitial = false

    mutating func append(_ byte: UInt8) {
        let isLetter = byte != 0x2E
        if isDotted { isDotted = (count % 2 == 0) == isLetter }
        isInitial = count == 0 && (0x41...0x5A).contains(byte) && byte != 0x49
        bytes = bytes << 8 | UInt64(isLetter ? byte | 0x20 : byte)
        count += 1
    }

    /// Whether a full stop after this word ends no sentence: an initial, a word of the abbreviation list, or single
    /// letters with full stops between them.
    var isAbbreviation: Bool {
        guard isPlain, count > 0 else { return false }
        if isInitial { return true }
        if isDotted && count >= 3 && count % 2 == 1 { return true }
        return count <= 8 && Self.abbreviations.contains(bytes)
    }

    /// English abbreviations that a full stop ends and a sentence does not (docs/speaking.md lists them). `No.` is not
    /// one of them: "No. 5" is kept whole by the digit that follows, and "No. Thanks." is two sentences.
    static let abbreviations: Set<UInt64> = Set(
        ["mr", "mrs", "ms", "dr", "prof", "st", "mt", "jr", "sr", "vs", "etc", "inc", "ltd", "co"].map { word in
            word.utf8.reduce(0) { $0 << 8 | UInt64($1) }
        })
}
