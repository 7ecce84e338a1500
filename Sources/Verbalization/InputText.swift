// SPDX-License-Identifier: GPL-3.0-or-later
/// Language-independent reading of written input: full-width forms, digit runs, telephone numbers, ordinals.
enum InputText {
    /// The text with full-width ASCII made ASCII (`１２` → `12`), typographic minus signs and dashes made `-`,
    /// other spaces made a plain space, and leading and trailing whitespace removed.
    static func normalized(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0xFF01...0xFF5E:  // full-width ASCII, as NFKC folds it
                scalars.append(Unicode.Scalar(scalar.value - 0xFEE0)!)
            case 0x2010...0x2015, 0x2212, 0xFE63:  // hyphens, dashes, minus sign, small hyphen-minus
                scalars.append("-")
            case 0x00A0, 0x2000...0x200A, 0x202F, 0x205F, 0x3000:  // no-break, thin and ideographic spaces
                scalars.append(" ")
            default:
                scalars.append(scalar)
            }
        }
        return trimmed(String(scalars))
    }

    static func trimmed(_ text: String) -> String {
        var characters = Substring(text)
        while let first = characters.first, first.isWhitespace { characters.removeFirst() }
        while let last = characters.last, last.isWhitespace { characters.removeLast() }
        return String(characters)
    }

    /// The value of an ASCII digit, or nil.
    static func digitValue(_ character: Character) -> Int? {
        guard let ascii = character.asciiValue, (48...57).contains(ascii) else { return nil }
        return Int(ascii - 48)
    }

    static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { digitValue($0) != nil }
    }

    /// Every digit of the text, in order; everything else is ignored.
    ///
    /// - Throws: `VerbalizationError.noDigits` when there is none.
    static func digits(in text: String) throws(VerbalizationError) -> [Int] {
        let digits = normalized(text).compactMap(digitValue)
        guard !digits.isEmpty else { throw .noDigits(text, .digits) }
        return digits
    }

    /// The digits of a telephone number and its leading `+`; spaces, `-`, `.`, `/` and parentheses separate groups.
    ///
    /// - Throws: `VerbalizationError.malformedTelephone` for any other character or a `+` after the first digit,
    ///   `VerbalizationError.noDigits` when there is no digit.
    static func telephone(_ text: String) throws(VerbalizationError) -> [TelephoneSymbol] {
        var symbols: [TelephoneSymbol] = []
        for character in normalized(text) {
            if let value = digitValue(character) {
                symbols.append(.digit(value))
            } else if character == "+" && symbols.isEmpty {
                symbols.append(.plus)
            } else if !(character.isWhitespace || "-./()".contains(character)) {
                throw .malformedTelephone(text, character: character)
            }
        }
        guard symbols.contains(where: { $0 != .plus }) else { throw .noDigits(text, .telephone) }
        return symbols
    }

    /// A whole number written as `21`, `1,000` or with an English ordinal suffix (`21st`, `2nd`, `3rd`, `4th`).
    ///
    /// - Throws: `VerbalizationError.malformedOrdinal`, `.ordinalSuffixMismatch` (`21th`),
    ///   `.ordinalOutOfRange` beyond `Verbalizer.largestSpokenInteger`.
    static func ordinal(_ text: String) throws(VerbalizationError) -> Int {
        let written = normalized(text).lowercased()
        let isNegative = written.hasPrefix("-")
        let body = isNegative ? written.dropFirst() : Substring(written)
        let digitPart = body.prefix { digitValue($0) != nil || $0 == "," }
        let suffix = body.dropFirst(digitPart.count)
        guard let integer = integerDigits(digitPart), suffix.isEmpty || ["st", "nd", "rd", "th"].contains(suffix)
        else { throw .malformedOrdinal(text) }
        guard !(isNegative && integer != "0"), integer.count <= String(Verbalizer.largestSpokenInteger).count,
            let value = Int(integer)
        else {
            throw .ordinalOutOfRange(text, maximum: Verbalizer.largestSpokenInteger)
        }
        if !suffix.isEmpty {
            let expected = englishOrdinalSuffix(value)
            guard suffix == expected else {
                throw .ordinalSuffixMismatch(text, expected: String(digitPart) + expected)
            }
        }
        return value
    }

    /// `st`, `nd`, `rd` or `th`, as English writes after the number.
    static func englishOrdinalSuffix(_ value: Int) -> String {
        if (11...13).contains(value % 100) { return "th" }
        switch value % 10 {
        case 1: return "st"
        case 2: return "nd"
        case 3: return "rd"
        default: return "th"
        }
    }

    /// The digits of an integer written with optional thousands separators (`1,234,567`) and leading zeros
    /// removed (`"0"` for zero), or nil when the separators are misplaced or there is no digit.
    static func integerDigits(_ text: Substring) -> String? {
        let groups = text.split(separator: ",", omittingEmptySubsequences: false)
        guard groups.allSatisfy(isDigits) else { return nil }
        if groups.count > 1 {
            guard (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                return nil
            }
        }
        let digits = groups.joined().drop { $0 == "0" }
        return digits.isEmpty ? "0" : String(digits)
    }
}

/// One spoken symbol of a telephone number.
enum TelephoneSymbol: Equatable, Sendable {
    case plus
    case digit(Int)
}
