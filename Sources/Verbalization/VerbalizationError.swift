// SPDX-License-Identifier: GPL-3.0-or-later
/// Why a text could not be turned into words; each case carries the input as written.
public enum VerbalizationError: Error, Equatable, CustomStringConvertible {
    /// No verbalizer is registered for the language tag.
    case unsupportedLanguage(String)
    /// A `say-as format` this module does not know for the interpretation.
    case unsupportedFormat(String, Interpretation)
    /// The text is not a number.
    case malformedNumber(String)
    /// The number's integer part is larger than the language names.
    case numberOutOfRange(String, maximum: Int)
    /// The text is not an ordinal such as `21` or `21st`.
    case malformedOrdinal(String)
    /// The ordinal's suffix does not fit its number (`21th`); `expected` is the right spelling.
    case ordinalSuffixMismatch(String, expected: String)
    /// The ordinal is negative or larger than the language names.
    case ordinalOutOfRange(String, maximum: Int)
    /// The text has no digit to read.
    case noDigits(String, Interpretation)
    /// The telephone number contains a character that is neither a digit, a leading `+` nor a separator.
    case malformedTelephone(String, character: Character)
    /// The text does not have the fields of the date format.
    case malformedDate(String, format: DateFormat)
    /// The date has a single field of one or two digits and no format saying which field it is.
    case ambiguousDate(String)
    /// The year is outside 1 to 9999.
    case yearOutOfRange(String, year: Int)
    /// The month is outside 1 to 12.
    case monthOutOfRange(String, month: Int)
    /// The day is outside its month (`2023-02-29`).
    case dayOutOfRange(String, day: Int, month: Int?, year: Int?)
    /// The date lacks a field its format speaks.
    case incompleteDate(String, format: DateFormat)
    /// The text is not a time of day.
    case malformedTime(String)
    /// The time's hour, minute or second is out of range (`25:00`, `13pm`).
    case timeOutOfRange(String)

    public var description: String {
        switch self {
        case .unsupportedLanguage(let tag):
            let supported = Verbalizer.supportedLanguages.joined(separator: ", ")
            return "no verbalizer for language \"\(tag)\": expected a language tag whose primary subtag is one of "
                + supported
        case .unsupportedFormat(let format, let interpretation):
            let accepted: String
            switch interpretation {
            case .date: accepted = DateFormat.allCases.map(\.rawValue).joined(separator: ", ")
            case .time: accepted = TimeFormat.allCases.map(\.rawValue).joined(separator: ", ")
            default: accepted = "no format"
            }
            return "unknown \(interpretation.rawValue) format \"\(format)\": expected \(accepted)"
        case .malformedNumber(let text):
            return "cannot read \"\(text)\" as a number: expected digits with an optional sign, "
                + "thousands separators and decimal part, such as \"-1,234.5\""
        case .numberOutOfRange(let text, let maximum):
            return "the number \"\(text)\" is out of range: expected an integer part of at most \(grouped(maximum))"
        case .malformedOrdinal(let text):
            return "cannot read \"\(text)\" as an ordinal: expected a whole number with an optional suffix, "
                + "such as \"21\" or \"21st\""
        case .ordinalSuffixMismatch(let text, let expected):
            return "the ordinal \"\(text)\" has the wrong suffix: expected \"\(expected)\""
        case .ordinalOutOfRange(let text, let maximum):
            return "the ordinal \"\(text)\" is out of range: expected 0 to \(grouped(maximum))"
        case .noDigits(let text, let interpretation):
            return "\"\(text)\" has no digit to read as \(interpretation.rawValue): expected text containing 0-9"
        case .malformedTelephone(let text, let character):
            return "the telephone number \"\(text)\" contains \"\(character)\": expected digits, a leading \"+\", "
                + "spaces, \"-\", \".\", \"/\" or parentheses"
        case .malformedDate(let text, let format):
            let count = format.fields.count
            return "cannot read \"\(text)\" as a date in format \(format.rawValue): expected \(count) "
                + (count == 1 ? "number" : "numbers separated by \"-\", \"/\" or \".\"")
                + ", such as \"\(format.example)\""
        case .ambiguousDate(let text):
            return "the date \"\(text)\" is ambiguous: expected a format such as d, m or y, or a four-digit year"
        case .yearOutOfRange(let text, let year):
            return "the date \"\(text)\" has year \(year): expected a year from 1 to 9999"
        case .monthOutOfRange(let text, let month):
            return "the date \"\(text)\" has month \(month): expected a month from 1 to 12"
        case .dayOutOfRange(let text, let day, let month, let year):
            let days = CalendarDate.dayCount(month: month, year: year)
            var within = ""
            if let month { within = year.map { " of month \(month) in \($0)" } ?? " of month \(month)" }
            return "the date \"\(text)\" has day \(day): expected a day from 1 to \(days)\(within)"
        case .incompleteDate(let text, let format):
            let fields = format.fields.map(\.rawValue).joined(separator: ", ")
            return "the date \"\(text)\" lacks a field of format \(format.rawValue): expected \(fields)"
        case .malformedTime(let text):
            return "cannot read \"\(text)\" as a time: expected \"14:05\", \"14:05:30\", \"2:05 pm\" or \"2pm\""
        case .timeOutOfRange(let text):
            return "the time \"\(text)\" is out of range: expected hours 0-23 (or 24:00), "
                + "or 1-12 with am/pm, and minutes and seconds 0-59"
        }
    }
}

/// `1234567` as `1,234,567`, for messages.
func grouped(_ value: Int) -> String {
    let digits = Array(String(value.magnitude))
    var result = value < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return result
}
