// SPDX-License-Identifier: GPL-3.0-or-later
/// English: lower-case words, one word per element ("twenty", "one"), no hyphens and no "and" in numbers.
///
/// - Numbers: 101 "one hundred one"; -5 "minus five"; 3.14 "three point one four"; up to "trillion".
/// - Ordinals: the last word becomes ordinal: "twenty first", "one hundredth", "one thousand first"; 0 "zeroth".
/// - Dates: month name, day as ordinal, year as people read it ("nineteen ninety nine", "two thousand five",
///   "twenty twenty four", "nineteen oh five", "eighteen hundred"); month first unless the day was written
///   first (`dmy`, `dm`: "twenty first november twenty twenty four").
/// - Times, 12-hour: "two oh five p m", "two p m" on the hour, "twelve a m" at midnight, "twelve p m" at noon.
///   24-hour: "fourteen oh five", "fourteen hundred" on the hour, "zero hundred" at midnight.
///   Seconds, when written, non-zero and the format has them, follow: "and thirty seconds", "and one second".
///   "a m" and "p m" are one element each (a phrase of two letter names), so a pack records the letters, never
///   the article "a".
public struct EnglishVerbalizer: LanguageVerbalizer {
    public static let languages = ["en"]

    public init() {}

    public var defaultDateFormat: DateFormat { .mdy }

    public var plusSign: String { "plus" }

    static let units = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    static let scales = ["", "thousand", "million", "billion", "trillion"]
    static let months = [
        "january", "february", "march", "april", "may", "june",
        "july", "august", "september", "october", "november", "december",
    ]
    static let irregularOrdinals = [
        "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth", "nine": "ninth",
        "twelve": "twelfth",
    ]
    static let morning = "a m"
    static let afternoon = "p m"

    public var minusSign: String { "minus" }
    public var decimalPoint: String { "point" }

    public func integerWords(_ number: Int) -> [String] { Self.words(number) }

    /// The last word made ordinal: "twenty first", "one hundredth".
    public func ordinalWords(_ number: Int) -> [String] {
        var words = Self.words(number)
        words[words.count - 1] = Self.ordinalWord(words[words.count - 1])
        return words
    }

    public func digit(_ digit: Int) -> String {
        precondition((0...9).contains(digit), "a digit is 0 to 9, not \(digit)")
        return Self.units[digit]
    }

    public func date(_ date: CalendarDate, format: DateFormat) throws(VerbalizationError) -> [String] {
        let fields = format.fields
        guard fields.allSatisfy({ date.value(of: $0) != nil }) else {
            throw .incompleteDate(date.description, format: format)
        }
        let month = fields.contains(.month) ? [Self.months[date.month! - 1]] : []
        let day = fields.contains(.day) ? try ordinal(date.day!) : []
        let year = fields.contains(.year) ? Self.yearWords(date.year!) : []
        return (format.isDayBeforeMonth ? day + month : month + day) + year
    }

    public func time(_ time: ClockTime, format: TimeFormat) throws(VerbalizationError) -> [String] {
        var words: [String]
        if format.isTwelveHour {
            let hour = time.hour % 24
            words = Self.words(hour % 12 == 0 ? 12 : hour % 12) + Self.minuteWords(time.minute)
            words.append(hour < 12 ? Self.morning : Self.afternoon)
        } else {
            words = Self.words(time.hour) + (time.minute == 0 ? ["hundred"] : Self.minuteWords(time.minute))
        }
        if format.includesSeconds, let second = time.second, second > 0 {
            words += ["and"] + Self.words(second) + [second == 1 ? "second" : "seconds"]
        }
        return words
    }

    public func vocabulary(for category: Interpretation) -> [String] {
        let numbers = Self.units + Self.tens.dropFirst(2)
        switch category {
        case .cardinal:
            return Array(numbers + ["hundred"] + Self.scales.dropFirst() + [minusSign, decimalPoint])
        case .ordinal:
            // "zero" only ever appears as "zeroth".
            let cardinals = Array(numbers.dropFirst() + ["hundred"] + Self.scales.dropFirst())
            return cardinals + (numbers + ["hundred"] + Self.scales.dropFirst()).map(Self.ordinalWord)
        case .digits:
            return Array(Self.units.prefix(10))
        case .telephone:
            return Array(Self.units.prefix(10)) + [plusSign]
        case .date:
            let days = (1...31).flatMap { try! ordinal($0) }
            let years = Array(Self.units.dropFirst() + Self.tens.dropFirst(2)) + ["hundred", "thousand", "oh"]
            return deduplicated(Self.months + days + years)
        case .time:
            let clock = Array(Self.units + Self.tens[2...5]) + ["oh", "hundred", Self.morning, Self.afternoon]
            return clock + ["and", "second", "seconds"]
        }
    }

    /// The words of 0 through `Verbalizer.largestSpokenInteger`, in groups of three digits.
    static func words(_ number: Int) -> [String] {
        if number == 0 { return [units[0]] }
        var words: [String] = []
        var remainder = number
        var scale = 0
        while remainder > 0 {
            let group = remainder % 1000
            if group > 0 { words = wordsBelowThousand(group) + (scale > 0 ? [scales[scale]] : []) + words }
            remainder /= 1000
            scale += 1
        }
        return words
    }

    /// The words of 1 through 999.
    static func wordsBelowThousand(_ number: Int) -> [String] {
        var words: [String] = []
        if number >= 100 { words += [units[number / 100], "hundred"] }
        let rest = number % 100
        if rest >= 20 {
            words.append(tens[rest / 10])
            if rest % 10 > 0 { words.append(units[rest % 10]) }
        } else if rest > 0 {
            words.append(units[rest])
        }
        return words
    }

    /// "first" for "one", "twentieth" for "twenty", "hundredth" for "hundred".
    static func ordinalWord(_ word: String) -> String {
        if let irregular = irregularOrdinals[word] { return irregular }
        if word.hasSuffix("y") { return word.dropLast() + "ieth" }
        return word + "th"
    }

    /// Minutes after the hour: nothing on the hour, "oh five" below ten, else the number.
    static func minuteWords(_ minute: Int) -> [String] {
        switch minute {
        case 0: []
        case 1...9: ["oh", units[minute]]
        default: words(minute)
        }
    }

    /// A year as people read it: in two pairs ("nineteen ninety nine", "nineteen oh five", "eighteen hundred"),
    /// except the first ten years of a millennium and years before 1000, read as numbers ("two thousand five").
    static func yearWords(_ year: Int) -> [String] {
        if year < 1000 || year % 1000 < 10 { return words(year) }
        let century = words(year / 100)
        switch year % 100 {
        case 0: return century + ["hundred"]
        case 1...9: return century + ["oh", units[year % 100]]
        default: return century + words(year % 100)
        }
    }
}
