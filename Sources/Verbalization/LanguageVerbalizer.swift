// SPDX-License-Identifier: GPL-3.0-or-later
/// How a piece of text is read as words, after SSML `say-as interpret-as=` (the planner maps SSML's kinds onto these:
/// `number` is `cardinal`; `characters` and `spell-out` are not read as words but spelled).
public enum Interpretation: String, Sendable, CaseIterable {
    /// A number read as a quantity: `1,234.5`, `-7`.
    case cardinal
    /// A number read as a position: `21`, `21st`.
    case ordinal
    /// Every digit read on its own: `2024` is "two zero two four".
    case digits
    /// A telephone number read digit by digit, with a leading `+` spoken.
    case telephone
    /// A calendar date: `2024-11-21`, `11/21/2024`, `21.11.2024`.
    case date
    /// A time of day: `14:05`, `14:05:30`, `2:05 pm`, `2pm`.
    case time
}

extension Interpretation {
    /// What `voicebank words --for` and the studio's `--words` call the list of its words: `numbers`, `dates`.
    public var listName: String {
        switch self {
        case .cardinal: "numbers"
        case .ordinal: "ordinals"
        case .digits: "digits"
        case .telephone: "telephone"
        case .date: "dates"
        case .time: "times"
        }
    }
}

/// Turns parsed numbers, dates and times into the words of one language.
///
/// Each element of a returned array is one word or one phrase a voice pack should record whole
/// (English "twenty", "a m"; Japanese "三百", "二十一日"). The elements are matched like any other text,
/// so a pack that lacks a compound still speaks it from smaller clips by greedy longest match.
///
/// Adding a language is one new file with a type conforming to this protocol and one line in
/// `Verbalizer.registry`. Parsing the written text is not the language's job: `Verbalizer.words` parses
/// and hands over the values.
public protocol LanguageVerbalizer: Sendable {
    /// BCP 47 primary language subtags this covers, e.g. ["en"].
    static var languages: [String] { get }

    init()

    /// The field order assumed for a date written with a two-digit or missing year and no `format`:
    /// `.mdy` in English (`11/21/24`), `.ymd` in Japanese (`24/11/21`).
    var defaultDateFormat: DateFormat { get }

    /// The word for a leading `+` in a telephone number ("plus").
    var plusSign: String { get }

    /// The word before a negative number ("minus").
    var minusSign: String { get }

    /// The word between a number's integer part and its fraction digits ("point").
    var decimalPoint: String { get }

    /// The words of a whole number from 0 to `Verbalizer.largestSpokenInteger`: 121 is "one hundred twenty one".
    func integerWords(_ number: Int) -> [String]

    /// The words of a whole number in that range read as a position: 21 is "twenty first".
    func ordinalWords(_ number: Int) -> [String]

    /// The word for one digit, 0 to 9.
    func digit(_ digit: Int) -> String

    /// The words of a date, speaking the fields `format` names.
    ///
    /// - Throws: `VerbalizationError.incompleteDate` when `date` lacks a field `format` names.
    func date(_ date: CalendarDate, format: DateFormat) throws(VerbalizationError) -> [String]

    /// The words of a time of day, spoken in the 12- or 24-hour style `format` names.
    func time(_ time: ClockTime, format: TimeFormat) throws(VerbalizationError) -> [String]

    /// Every word or phrase this language can produce for a category, deduplicated, in a sensible order,
    /// so a pack builder knows what to record.
    func vocabulary(for category: Interpretation) -> [String]
}

extension LanguageVerbalizer {
    /// The words of a number read as a quantity: the minus sign, the integer, then the decimal point and each
    /// fraction digit: -3.14 is "minus three point one four".
    ///
    /// - Throws: `VerbalizationError.numberOutOfRange` when the integer part is beyond what the language names.
    public func cardinal(_ number: DecimalNumber) throws(VerbalizationError) -> [String] {
        var words = number.isNegative ? [minusSign] : []
        words += integerWords(try number.spokenInteger())
        if !number.fractionDigits.isEmpty {
            words.append(decimalPoint)
            words += number.fractionDigitValues.map(digit)
        }
        return words
    }

    /// The words of a number read as a position: 21 is "twenty first".
    ///
    /// - Throws: `VerbalizationError.ordinalOutOfRange` for a negative or too large number.
    public func ordinal(_ number: Int) throws(VerbalizationError) -> [String] {
        guard (0...Verbalizer.largestSpokenInteger).contains(number) else {
            throw .ordinalOutOfRange(String(number), maximum: Verbalizer.largestSpokenInteger)
        }
        return ordinalWords(number)
    }

    /// The words of a telephone number: each digit, and `plusSign` for the leading `+`.
    func words(for telephone: [TelephoneSymbol]) -> [String] {
        telephone.map { symbol in
            switch symbol {
            case .plus: plusSign
            case .digit(let value): digit(value)
            }
        }
    }
}

/// Removes repeated elements, keeping the first of each, so vocabulary lists stay in their written order.
func deduplicated(_ elements: [String]) -> [String] {
    var seen = Set<String>()
    return elements.filter { seen.insert($0).inserted }
}
