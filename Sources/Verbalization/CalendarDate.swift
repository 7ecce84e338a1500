// SPDX-License-Identifier: GPL-3.0-or-later
/// A date of the Gregorian calendar, possibly partial (a month and day without a year, a year alone).
public struct CalendarDate: Sendable, Hashable, CustomStringConvertible {
    /// 1 to 9999, as written: `24` is the year 24, never guessed to be 2024.
    public let year: Int?
    /// 1 to 12.
    public let month: Int?
    /// 1 to the length of the month (29 for February when there is no year).
    public let day: Int?

    /// A date from its fields, validated.
    ///
    /// - Throws: `VerbalizationError.yearOutOfRange`, `.monthOutOfRange` or `.dayOutOfRange` (`2023-02-29`).
    public init(year: Int? = nil, month: Int? = nil, day: Int? = nil) throws(VerbalizationError) {
        try self.init(year: year, month: month, day: day, written: nil)
    }

    init(year: Int?, month: Int?, day: Int?, written: String?) throws(VerbalizationError) {
        self.year = year
        self.month = month
        self.day = day
        let input = written ?? description
        if let year, !(1...9999).contains(year) { throw .yearOutOfRange(input, year: year) }
        if let month, !(1...12).contains(month) { throw .monthOutOfRange(input, month: month) }
        if let day, !(1...Self.dayCount(month: month, year: year)).contains(day) {
            throw .dayOutOfRange(input, day: day, month: month, year: year)
        }
    }

    /// Reads a written date whose fields are separated by `-`, `/` or `.`: `2024-11-21`, `11/21/2024`,
    /// `21.11.2024`, `2024/11/21`; `format` says which field is which.
    ///
    /// With no format: a four-digit first field means `ymd` (`ym` for two fields), a four-digit last field means
    /// `mdy` (`my`), except that dates written with dots are day first (`dmy`, `dm`) as in German and French; a
    /// single four-digit field is a year; anything else takes `defaultFormat` (`mdy` in English, `ymd` in
    /// Japanese, without the year for two fields).
    ///
    /// - Returns: the date and the format that was applied, which says the order the fields were written in.
    /// - Throws: `VerbalizationError.malformedDate`, `.ambiguousDate`, or a range error of `init(year:month:day:)`.
    public static func parse(_ text: String, format: DateFormat?, defaultFormat: DateFormat) throws(VerbalizationError)
        -> (date: CalendarDate, format: DateFormat)
    {
        let written = InputText.normalized(text)
        guard !written.isEmpty else { throw .malformedDate(text, format: format ?? defaultFormat) }
        let separator = written.first { "-/.".contains($0) } ?? "-"
        let fields = written.split(separator: separator, omittingEmptySubsequences: false)
        let resolved: DateFormat
        if let format {
            resolved = format
        } else if !fields.allSatisfy(InputText.isDigits) {
            throw .malformedDate(text, format: defaultFormat)
        } else {
            resolved = try inferredFormat(fields, separator: separator, default: defaultFormat, text: text)
        }
        guard fields.count == resolved.fields.count else { throw .malformedDate(text, format: resolved) }
        var year: Int?
        var month: Int?
        var day: Int?
        for (field, kind) in zip(fields, resolved.fields) {
            let maximumDigits = kind == .year ? 4 : 2
            guard InputText.isDigits(field), field.count <= maximumDigits, let value = Int(field) else {
                throw .malformedDate(text, format: resolved)
            }
            switch kind {
            case .year: year = value
            case .month: month = value
            case .day: day = value
            }
        }
        return (try CalendarDate(year: year, month: month, day: day, written: text), resolved)
    }

    private static func inferredFormat(
        _ fields: [Substring], separator: Character, default defaultFormat: DateFormat, text: String
    ) throws(VerbalizationError) -> DateFormat {
        let isYearFirst = fields.first?.count == 4
        let isYearLast = fields.count > 1 && fields.last?.count == 4
        let isDayFirst = separator == "." && !isYearFirst
        switch fields.count {
        case 1:
            guard isYearFirst else { throw .ambiguousDate(text) }
            return .y
        case 2:
            if isYearFirst { return .ym }
            if isYearLast { return .my }
            return isDayFirst ? .dm : defaultFormat.withoutYear
        default:
            if isYearFirst { return .ymd }
            if isDayFirst { return .dmy }
            return isYearLast ? .mdy : defaultFormat
        }
    }

    /// The value of one field, or nil when the date lacks it.
    public func value(of field: DateField) -> Int? {
        switch field {
        case .year: year
        case .month: month
        case .day: day
        }
    }

    /// Whether the year has a February 29 in the Gregorian calendar.
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The days in a month; 29 for February with no year, and 31 with no month.
    static func dayCount(month: Int?, year: Int?) -> Int {
        switch month {
        case 2: year.map { isLeapYear($0) ? 29 : 28 } ?? 29
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The date in ISO 8601 form, partial dates included: `2024-11-21`, `2024-11`, `2024`, `--11-21`, `---21`.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var result = year.map { padded($0, 4) } ?? "-"
        if let month { result += "-" + padded(month, 2) } else if day != nil, year == nil { result += "-" }
        if let day { result += "-" + padded(day, 2) }
        return result
    }
}

/// One field of a date.
public enum DateField: String, Sendable, CaseIterable {
    case year, month, day
}

/// Which fields a written date has and in which order, after SSML `say-as format=` (`mdy`, `ymd`, …).
public enum DateFormat: String, Sendable, CaseIterable {
    case mdy, dmy, ymd, md, dm, ym, my, d, m, y

    /// The fields in written order.
    public var fields: [DateField] {
        rawValue.map { letter in
            switch letter {
            case "y": .year
            case "m": .month
            default: .day
            }
        }
    }

    /// Whether the day was written before the month (`dmy`, `dm`), which English keeps when speaking.
    public var isDayBeforeMonth: Bool {
        fields.firstIndex(of: .day).map { day in fields.firstIndex(of: .month).map { day < $0 } ?? false } ?? false
    }

    /// The format with the year removed, for a date written without one.
    var withoutYear: DateFormat {
        DateFormat(rawValue: rawValue.filter { $0 != "y" }) ?? .md
    }

    /// November 21, 2024 written in this format, for messages.
    var example: String {
        fields.map { field in
            switch field {
            case .year: "2024"
            case .month: "11"
            case .day: "21"
            }
        }.joined(separator: "/")
    }
}
