// SPDX-License-Identifier: GPL-3.0-or-later
/// Turns numbers, dates, times, telephone numbers and digit strings into the words of a voice's language.
///
/// ```swift
/// try Verbalizer.words(for: "2024-11-21", as: .date, format: "ymd", language: "en-US")
/// // ["november", "twenty", "first", "twenty", "twenty", "four"]
/// try Verbalizer.words(for: "12345", as: .cardinal, format: nil, language: "ja")
/// // ["一万", "二千", "三百", "四十", "五"]
/// ```
public enum Verbalizer {
    /// Every language this module speaks; adding a language is one line here and one file.
    static let registry: [any LanguageVerbalizer.Type] = [
        EnglishVerbalizer.self,
        JapaneseVerbalizer.self,
    ]

    /// The largest integer part a number, ordinal or year can have: 10^15 - 1 (999 trillion; 999兆).
    public static let largestSpokenInteger = 999_999_999_999_999

    /// The verbalizer for a BCP 47 tag, chosen by its primary subtag (`en-US` → English, `ja-JP` → Japanese),
    /// or nil when no language matches.
    public static func forLanguage(_ tag: String) -> (any LanguageVerbalizer)? {
        let primary = InputText.normalized(tag).split(whereSeparator: { $0 == "-" || $0 == "_" }).first
        guard let primary = primary?.lowercased() else { return nil }
        return registry.first { $0.languages.contains(primary) }?.init()
    }

    /// The primary language subtags of every registered language, in registry order: `["en", "ja"]`.
    public static var supportedLanguages: [String] {
        registry.flatMap { $0.languages }
    }

    /// Parses `text` as `interpretation` and returns its words in `language`.
    ///
    /// `format` is the SSML `say-as format`: for dates it says which field is which (`mdy`, `dmy`, `ymd`, `md`,
    /// `dm`, `ym`, `my`, `d`, `m`, `y`), for times how to speak it (`hms12`, `hms24`, `hm12`, `hm24`; without it,
    /// as written). Other interpretations have no formats and ignore it, so a `telephone` with a country-code
    /// format is still read digit by digit.
    ///
    /// ```swift
    /// try Verbalizer.words(for: "14:05", as: .time, format: "hm12", language: "en")
    /// // ["two", "oh", "five", "p m"]
    /// ```
    ///
    /// - Throws: `VerbalizationError.unsupportedLanguage`, `.unsupportedFormat` for an unknown date or time
    ///   format, and the parse and range errors of each interpretation (`.malformedNumber` for `abc`,
    ///   `.dayOutOfRange` for `2023-02-29`, …), each naming `text`.
    public static func words(for text: String, as interpretation: Interpretation, format: String?, language: String)
        throws(VerbalizationError) -> [String]
    {
        guard let verbalizer = forLanguage(language) else { throw .unsupportedLanguage(language) }
        let format = format.map(InputText.normalized).flatMap { $0.isEmpty ? nil : $0 }
        switch interpretation {
        case .cardinal:
            let number = try DecimalNumber(parsing: text)
            do {
                return try verbalizer.cardinal(number)
            } catch .numberOutOfRange(_, let maximum) {
                throw .numberOutOfRange(text, maximum: maximum)
            }
        case .ordinal:
            let number = try InputText.ordinal(text)
            do {
                return try verbalizer.ordinal(number)
            } catch .ordinalOutOfRange(_, let maximum) {
                throw .ordinalOutOfRange(text, maximum: maximum)
            }
        case .digits:
            return try InputText.digits(in: text).map(verbalizer.digit)
        case .telephone:
            return verbalizer.words(for: try InputText.telephone(text))
        case .date:
            let dateFormat = try format.map { name throws(VerbalizationError) in
                guard let dateFormat = DateFormat(rawValue: name.lowercased()) else {
                    throw .unsupportedFormat(name, .date)
                }
                return dateFormat
            }
            let parsed = try CalendarDate.parse(text, format: dateFormat, defaultFormat: verbalizer.defaultDateFormat)
            return try verbalizer.date(parsed.date, format: parsed.format)
        case .time:
            let timeFormat = try format.map { name throws(VerbalizationError) in
                guard let timeFormat = TimeFormat(rawValue: name.lowercased()) else {
                    throw .unsupportedFormat(name, .time)
                }
                return timeFormat
            }
            let parsed = try ClockTime.parse(text)
            return try verbalizer.time(parsed.time, format: timeFormat ?? parsed.writtenFormat)
        }
    }
}
