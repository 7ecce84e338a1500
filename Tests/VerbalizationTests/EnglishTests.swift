// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Verbalization

/// English words of `text`; expected values in the tables are the elements joined by single spaces, except in
/// the time tables, whose "a m" and "p m" elements contain a space themselves.
private func english(_ text: String, _ interpretation: Interpretation, format: String? = nil) throws -> [String] {
    try Verbalizer.words(for: text, as: interpretation, format: format, language: "en-US")
}

private func words(_ spaced: String) -> [String] {
    spaced.split(separator: " ").map(String.init)
}

@Suite struct EnglishCardinalTests {
    @Test(
        "reads whole numbers at every boundary",
        arguments: [
            ("0", "zero"), ("1", "one"), ("9", "nine"), ("10", "ten"), ("11", "eleven"), ("12", "twelve"),
            ("13", "thirteen"), ("14", "fourteen"), ("15", "fifteen"), ("16", "sixteen"), ("17", "seventeen"),
            ("18", "eighteen"), ("19", "nineteen"), ("20", "twenty"), ("21", "twenty one"), ("40", "forty"),
            ("99", "ninety nine"), ("100", "one hundred"), ("101", "one hundred one"), ("110", "one hundred ten"),
            ("115", "one hundred fifteen"), ("999", "nine hundred ninety nine"), ("1000", "one thousand"),
            ("1001", "one thousand one"), ("1010", "one thousand ten"), ("1100", "one thousand one hundred"),
            ("12345", "twelve thousand three hundred forty five"), ("100000", "one hundred thousand"),
            ("1000000", "one million"), ("1000001", "one million one"), ("2000500", "two million five hundred"),
            ("1000000000", "one billion"), ("1000000000000", "one trillion"),
            (
                "999999999999",
                "nine hundred ninety nine billion nine hundred ninety nine million nine hundred ninety nine thousand "
                    + "nine hundred ninety nine"
            ),
            (
                "999999999999999",
                "nine hundred ninety nine trillion nine hundred ninety nine billion nine hundred ninety nine million "
                    + "nine hundred ninety nine thousand nine hundred ninety nine"
            ),
            ("007", "seven"),
        ])
    func wholeNumbers(text: String, expected: String) throws {
        #expect(try english(text, .cardinal) == words(expected))
    }

    @Test(
        "reads signs, separators, decimals and full-width digits",
        arguments: [
            ("-5", "minus five"), ("+5", "five"), ("−12", "minus twelve"), ("-0", "zero"), ("-0.0", "zero point zero"),
            ("1,234,567", "one million two hundred thirty four thousand five hundred sixty seven"),
            ("1,000", "one thousand"), ("3.14", "three point one four"), ("-0.5", "minus zero point five"),
            ("0.05", "zero point zero five"), ("2.50", "two point five zero"), (".5", "zero point five"),
            ("１２３", "one hundred twenty three"), ("－１，０００．５", "minus one thousand point five"),
            (" 42 ", "forty two"),
        ])
    func signsAndDecimals(text: String, expected: String) throws {
        #expect(try english(text, .cardinal) == words(expected))
    }

    @Test(
        "refuses what is not a number",
        arguments: ["abc", "", "-", "1,23", "12,3456", ",123", "1.", "1.2.3", "--1", "1e5", "12a", "1 000", "٣"])
    func malformed(text: String) {
        #expect(throws: VerbalizationError.malformedNumber(text)) { try english(text, .cardinal) }
    }

    @Test(
        "refuses numbers past 999 trillion",
        arguments: ["1000000000000000", "1,000,000,000,000,000", "-99999999999999999999"])
    func outOfRange(text: String) {
        #expect(throws: VerbalizationError.numberOutOfRange(text, maximum: 999_999_999_999_999)) {
            try english(text, .cardinal)
        }
    }
}

@Suite struct EnglishOrdinalTests {
    @Test(
        "makes the last word ordinal",
        arguments: [
            ("0", "zeroth"), ("1", "first"), ("2", "second"), ("3", "third"), ("4", "fourth"), ("5", "fifth"),
            ("8", "eighth"), ("9", "ninth"), ("11", "eleventh"), ("12", "twelfth"), ("13", "thirteenth"),
            ("20", "twentieth"), ("21", "twenty first"), ("21st", "twenty first"), ("2nd", "second"),
            ("3rd", "third"), ("4th", "fourth"), ("11th", "eleventh"), ("22nd", "twenty second"),
            ("23RD", "twenty third"), ("99", "ninety ninth"), ("100", "one hundredth"), ("101", "one hundred first"),
            ("112th", "one hundred twelfth"), ("1000", "one thousandth"), ("1001", "one thousand first"),
            ("1,000,000th", "one millionth"), ("1000000000", "one billionth"), ("1000000000000", "one trillionth"),
            ("２１ｓｔ", "twenty first"),
        ])
    func ordinals(text: String, expected: String) throws {
        #expect(try english(text, .ordinal) == words(expected))
    }

    @Test(
        "checks the suffix against the number",
        arguments: [
            ("21th", "21st"), ("1th", "1st"), ("2rd", "2nd"), ("11st", "11th"), ("12nd", "12th"), ("113rd", "113th"),
        ])
    func suffixMismatch(text: String, expected: String) {
        #expect(throws: VerbalizationError.ordinalSuffixMismatch(text, expected: expected)) {
            try english(text, .ordinal)
        }
    }

    @Test("refuses what is not an ordinal", arguments: ["abc", "", "21 st", "21s", "first", "2.5", "th"])
    func malformed(text: String) {
        #expect(throws: VerbalizationError.malformedOrdinal(text)) { try english(text, .ordinal) }
    }

    @Test("refuses negative and too large ordinals", arguments: ["-1", "-3rd", "1000000000000000"])
    func outOfRange(text: String) {
        #expect(throws: VerbalizationError.ordinalOutOfRange(text, maximum: 999_999_999_999_999)) {
            try english(text, .ordinal)
        }
    }
}

@Suite struct EnglishDateTests {
    @Test(
        "reads a date in every format",
        arguments: [
            ("2024-11-21", nil, "november twenty first twenty twenty four"),
            ("2024-11-21", "ymd", "november twenty first twenty twenty four"),
            ("2024/11/21", nil, "november twenty first twenty twenty four"),
            ("11/21/2024", nil, "november twenty first twenty twenty four"),
            ("11/21/2024", "mdy", "november twenty first twenty twenty four"),
            ("21.11.2024", nil, "twenty first november twenty twenty four"),
            ("21/11/2024", "dmy", "twenty first november twenty twenty four"),
            ("11-21", "md", "november twenty first"), ("21-11", "dm", "twenty first november"),
            ("11/21", nil, "november twenty first"), ("21.11.", nil, nil),
            ("2024-11", "ym", "november twenty twenty four"), ("11/2024", "my", "november twenty twenty four"),
            ("2024-11", nil, "november twenty twenty four"), ("21", "d", "twenty first"), ("11", "m", "november"),
            ("2024", "y", "twenty twenty four"), ("2024", nil, "twenty twenty four"),
            ("01/02/03", nil, "january second three"), ("１１／２１／２０２４", nil, "november twenty first twenty twenty four"),
            ("2024-02-29", nil, "february twenty ninth twenty twenty four"), ("02-29", "md", "february twenty ninth"),
            ("2000-02-29", nil, "february twenty ninth two thousand"),
            ("2024-11-21", "YMD", "november twenty first twenty twenty four"),
        ] as [(String, String?, String?)])
    func formats(text: String, format: String?, expected: String?) throws {
        if let expected {
            #expect(try english(text, .date, format: format) == words(expected))
        } else {
            #expect(throws: VerbalizationError.self) { try english(text, .date, format: format) }
        }
    }

    @Test(
        "reads years as people do",
        arguments: [
            (1999, "nineteen ninety nine"), (2000, "two thousand"), (2005, "two thousand five"),
            (2009, "two thousand nine"), (2010, "twenty ten"), (2024, "twenty twenty four"),
            (1905, "nineteen oh five"), (1800, "eighteen hundred"), (1066, "ten sixty six"), (1000, "one thousand"),
            (1001, "one thousand one"), (1100, "eleven hundred"), (2100, "twenty one hundred"),
            (3000, "three thousand"),
            (1, "one"), (476, "four hundred seventy six"), (999, "nine hundred ninety nine"),
            (9999, "ninety nine ninety nine"),
        ])
    func years(year: Int, expected: String) throws {
        #expect(try EnglishVerbalizer().date(CalendarDate(year: year), format: .y) == words(expected))
    }

    @Test(
        "refuses impossible dates",
        arguments: [
            ("2023-02-29", nil, VerbalizationError.dayOutOfRange("2023-02-29", day: 29, month: 2, year: 2023)),
            ("1900-02-29", nil, .dayOutOfRange("1900-02-29", day: 29, month: 2, year: 1900)),
            ("2024-04-31", nil, .dayOutOfRange("2024-04-31", day: 31, month: 4, year: 2024)),
            ("2024-13-01", nil, .monthOutOfRange("2024-13-01", month: 13)),
            ("13/01/2024", nil, .monthOutOfRange("13/01/2024", month: 13)),
            ("2024-00-10", nil, .monthOutOfRange("2024-00-10", month: 0)),
            ("2024-11-00", nil, .dayOutOfRange("2024-11-00", day: 0, month: 11, year: 2024)),
            ("32", "d", .dayOutOfRange("32", day: 32, month: nil, year: nil)),
            ("02-30", "md", .dayOutOfRange("02-30", day: 30, month: 2, year: nil)),
            ("0000-01-01", nil, .yearOutOfRange("0000-01-01", year: 0)),
            ("21", nil, .ambiguousDate("21")),
            ("2024-11-21", "mdy", .malformedDate("2024-11-21", format: .mdy)),
            ("11/21/2024", "ymd", .malformedDate("11/21/2024", format: .ymd)),
            ("11/21/24", "ymd", .monthOutOfRange("11/21/24", month: 21)),
            ("2024-11-21", "md", .malformedDate("2024-11-21", format: .md)),
            ("2024-11/21", nil, .malformedDate("2024-11/21", format: .mdy)),
            ("november 21", nil, .malformedDate("november 21", format: .mdy)),
            ("", nil, .malformedDate("", format: .mdy)),
            ("2024-11-21", "iso", .unsupportedFormat("iso", .date)),
        ] as [(String, String?, VerbalizationError)])
    func invalid(text: String, format: String?, error: VerbalizationError) {
        #expect(throws: error) { try english(text, .date, format: format) }
    }
}

@Suite struct EnglishTimeTests {
    @Test(
        "reads a time in every format",
        arguments: [
            ("14:05", nil, ["fourteen", "oh", "five"]), ("14:05", "hm24", ["fourteen", "oh", "five"]),
            ("14:05", "hm12", ["two", "oh", "five", "p m"]), ("14:00", "hm12", ["two", "p m"]),
            ("14:00", "hm24", ["fourteen", "hundred"]), ("14:30", "hm24", ["fourteen", "thirty"]),
            ("14:05:30", nil, ["fourteen", "oh", "five", "and", "thirty", "seconds"]),
            ("14:05:30", "hms12", ["two", "oh", "five", "p m", "and", "thirty", "seconds"]),
            ("14:05:30", "hm12", ["two", "oh", "five", "p m"]), ("14:05:30", "hm24", ["fourteen", "oh", "five"]),
            ("14:05:01", "hms24", ["fourteen", "oh", "five", "and", "one", "second"]),
            ("14:05:00", "hms24", ["fourteen", "oh", "five"]), ("14:05", "hms24", ["fourteen", "oh", "five"]),
            ("2:05pm", nil, ["two", "oh", "five", "p m"]), ("2:05 PM", nil, ["two", "oh", "five", "p m"]),
            ("2:05 p.m.", nil, ["two", "oh", "five", "p m"]), ("2pm", nil, ["two", "p m"]),
            ("2 am", nil, ["two", "a m"]), ("2pm", "hm24", ["fourteen", "hundred"]),
            ("12am", nil, ["twelve", "a m"]), ("12pm", nil, ["twelve", "p m"]),
            ("12:30 am", "hm24", ["zero", "thirty"]),
            ("00:00", nil, ["zero", "hundred"]), ("00:00", "hm12", ["twelve", "a m"]),
            ("12:00", "hm12", ["twelve", "p m"]),
            ("09:45", nil, ["nine", "forty", "five"]), ("9:45", "hm12", ["nine", "forty", "five", "a m"]),
            ("23:59:59", "hms12", ["eleven", "fifty", "nine", "p m", "and", "fifty", "nine", "seconds"]),
            ("24:00", nil, ["twenty", "four", "hundred"]), ("24:00", "hm12", ["twelve", "a m"]),
            ("１４：０５", nil, ["fourteen", "oh", "five"]),
        ] as [(String, String?, [String])])
    func formats(text: String, format: String?, expected: [String]) throws {
        #expect(try english(text, .time, format: format) == expected)
    }

    @Test(
        "refuses impossible times",
        arguments: [
            ("25:00", VerbalizationError.timeOutOfRange("25:00")), ("12:60", .timeOutOfRange("12:60")),
            ("24:01", .timeOutOfRange("24:01")), ("13pm", .timeOutOfRange("13pm")), ("0am", .timeOutOfRange("0am")),
            ("14:05:60", .timeOutOfRange("14:05:60")), ("14", .malformedTime("14")), ("14:5", .malformedTime("14:5")),
            ("noon", .malformedTime("noon")), ("", .malformedTime("")), ("14:05:30:10", .malformedTime("14:05:30:10")),
            ("123:00", .malformedTime("123:00")),
        ])
    func invalid(text: String, error: VerbalizationError) {
        #expect(throws: error) { try english(text, .time) }
    }

    @Test("refuses an unknown time format")
    func unknownFormat() {
        #expect(throws: VerbalizationError.unsupportedFormat("hms", .time)) {
            try english("14:05", .time, format: "hms")
        }
    }
}

@Suite struct EnglishDigitTests {
    @Test(
        "reads every digit on its own",
        arguments: [
            ("2024", "two zero two four"), ("007", "zero zero seven"), ("A1-B2", "one two"), ("３.１４", "three one four"),
        ])
    func digits(text: String, expected: String) throws {
        #expect(try english(text, .digits) == words(expected))
    }

    @Test(
        "reads telephone numbers digit by digit, with a leading plus",
        arguments: [
            ("+1 800", "plus one eight zero zero"),
            ("(555) 123-4567", "five five five one two three four five six seven"),
            ("+44 20 7946.0018", "plus four four two zero seven nine four six zero zero one eight"),
            ("０３－１２３４", "zero three one two three four"), ("+ 1 (0)", "plus one zero"),
        ])
    func telephone(text: String, expected: String) throws {
        #expect(try english(text, .telephone) == words(expected))
    }

    @Test(
        "refuses telephone numbers with other characters",
        arguments: [
            ("1-800-FLOWERS", VerbalizationError.malformedTelephone("1-800-FLOWERS", character: "F")),
            ("1+2", .malformedTelephone("1+2", character: "+")), ("*21#", .malformedTelephone("*21#", character: "*")),
            ("+", .noDigits("+", .telephone)), ("", .noDigits("", .telephone)),
        ])
    func invalidTelephone(text: String, error: VerbalizationError) {
        #expect(throws: error) { try english(text, .telephone) }
    }

    @Test("refuses text with no digit")
    func noDigits() {
        #expect(throws: VerbalizationError.noDigits("abc", .digits)) { try english("abc", .digits) }
    }
}
