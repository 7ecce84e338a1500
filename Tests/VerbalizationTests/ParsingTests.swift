// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Verbalization

@Suite struct DecimalNumberTests {
    @Test(
        "keeps sign, integer digits and fraction digits as written",
        arguments: [
            ("0", false, "0", ""), ("-12", true, "12", ""), ("+12", false, "12", ""), ("−7", true, "7", ""),
            ("1,234,567", false, "1234567", ""), ("3.14", false, "3", "14"), ("-0.50", true, "0", "50"),
            ("007.0", false, "7", "0"), (".5", false, "0", "5"), ("-0.00", false, "0", "00"),
            ("１２３．４５", false, "123", "45"), ("123456789012345678901234", false, "123456789012345678901234", ""),
        ])
    func parts(text: String, isNegative: Bool, integerDigits: String, fractionDigits: String) throws {
        let number = try DecimalNumber(parsing: text)
        #expect(number.isNegative == isNegative)
        #expect(number.integerDigits == integerDigits)
        #expect(number.fractionDigits == fractionDigits)
    }

    @Test("converts whole numbers and prints plain ASCII")
    func wholeNumbers() throws {
        #expect(DecimalNumber(-1234).description == "-1234")
        #expect(DecimalNumber(0).isNegative == false)
        #expect(DecimalNumber(Int.min).integerDigits == "9223372036854775808")
        #expect(DecimalNumber(Int.min).integerValue == nil)
        #expect(try DecimalNumber(parsing: "-1,234.50").description == "-1234.50")
        #expect(
            try DecimalNumber(isNegative: false, integerDigits: "0042", fractionDigits: "1")
                == DecimalNumber(parsing: "42.1"))
        #expect(throws: VerbalizationError.malformedNumber("1a")) {
            try DecimalNumber(isNegative: false, integerDigits: "1a")
        }
        #expect(throws: VerbalizationError.malformedNumber("1.x")) {
            try DecimalNumber(isNegative: false, integerDigits: "1", fractionDigits: "x")
        }
    }

    @Test("refuses integers the languages cannot name")
    func range() throws {
        let english = EnglishVerbalizer()
        let tooLarge = try DecimalNumber(parsing: "1000000000000000")
        #expect(throws: VerbalizationError.numberOutOfRange("1000000000000000", maximum: 999_999_999_999_999)) {
            try english.cardinal(tooLarge)
        }
        #expect(throws: VerbalizationError.ordinalOutOfRange("-1", maximum: 999_999_999_999_999)) {
            try JapaneseVerbalizer().ordinal(-1)
        }
    }
}

@Suite struct CalendarDateTests {
    @Test(
        "infers the field order when no format is given",
        arguments: [
            ("2024-11-21", DateFormat.mdy, DateFormat.ymd), ("2024/11/21", .mdy, .ymd), ("11/21/2024", .mdy, .mdy),
            ("11/21/2024", .ymd, .mdy), ("21.11.2024", .mdy, .dmy), ("21.11.24", .mdy, .dmy), ("11/21/24", .mdy, .mdy),
            ("24/11/21", .ymd, .ymd), ("11/21", .mdy, .md), ("11/21", .ymd, .md), ("21.11", .mdy, .dm),
            ("2024-11", .mdy, .ym), ("11/2024", .ymd, .my), ("2024", .mdy, .y),
        ])
    func inferredFormat(text: String, defaultFormat: DateFormat, expected: DateFormat) throws {
        #expect(try CalendarDate.parse(text, format: nil, defaultFormat: defaultFormat).format == expected)
    }

    @Test(
        "validates days per month and leap years",
        arguments: [
            (2024, 2, 29, true), (2023, 2, 29, false), (2000, 2, 29, true), (1900, 2, 29, false), (2023, 2, 28, true),
            (2024, 4, 30, true), (2024, 4, 31, false), (2024, 12, 31, true), (2024, 1, 32, false), (2024, 6, 0, false),
        ])
    func daysPerMonth(year: Int, month: Int, day: Int, isValid: Bool) {
        #expect(((try? CalendarDate(year: year, month: month, day: day)) != nil) == isValid)
    }

    @Test(
        "prints ISO 8601, partial dates included",
        arguments: [
            (2024, 11, 21, "2024-11-21"), (24, 1, 2, "0024-01-02"), (2024, 11, nil, "2024-11"),
            (2024, nil, nil, "2024"),
            (nil, 11, 21, "--11-21"), (nil, 11, nil, "--11"), (nil, nil, 21, "---21"),
        ] as [(Int?, Int?, Int?, String)])
    func description(year: Int?, month: Int?, day: Int?, expected: String) throws {
        #expect(try CalendarDate(year: year, month: month, day: day).description == expected)
    }

    @Test("refuses a format whose fields the date lacks")
    func incomplete() throws {
        let date = try CalendarDate(month: 11, day: 21)
        #expect(throws: VerbalizationError.incompleteDate("--11-21", format: .ymd)) {
            try EnglishVerbalizer().date(date, format: .ymd)
        }
        #expect(throws: VerbalizationError.incompleteDate("--11-21", format: .ymd)) {
            try JapaneseVerbalizer().date(date, format: .ymd)
        }
    }
}

@Suite struct ClockTimeTests {
    @Test(
        "reads the 24-hour time and the format it was written in",
        arguments: [
            ("14:05", 14, 5, nil, TimeFormat.hm24), ("14:05:30", 14, 5, 30, .hms24), ("2:05pm", 14, 5, nil, .hm12),
            ("2:05 PM", 14, 5, nil, .hm12), ("2pm", 14, 0, nil, .hm12), ("2:05:09 a.m.", 2, 5, 9, .hms12),
            ("12am", 0, 0, nil, .hm12), ("12:15 pm", 12, 15, nil, .hm12), ("0:00", 0, 0, nil, .hm24),
            ("24:00:00", 24, 0, 0, .hms24), ("１４：０５", 14, 5, nil, .hm24),
        ] as [(String, Int, Int, Int?, TimeFormat)])
    func parse(text: String, hour: Int, minute: Int, second: Int?, format: TimeFormat) throws {
        let parsed = try ClockTime.parse(text)
        #expect(parsed.time == (try ClockTime(hour: hour, minute: minute, second: second)))
        #expect(parsed.writtenFormat == format)
    }

    @Test("prints HH:MM or HH:MM:SS")
    func description() throws {
        #expect(try ClockTime(hour: 9, minute: 5).description == "09:05")
        #expect(try ClockTime(hour: 14, minute: 5, second: 7).description == "14:05:07")
        #expect(throws: VerbalizationError.timeOutOfRange("24:30")) { try ClockTime(hour: 24, minute: 30) }
    }
}
