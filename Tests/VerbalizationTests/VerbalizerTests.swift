// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Verbalization

@Suite struct VerbalizerTests {
    @Test(
        "chooses the language by primary subtag",
        arguments: [
            ("en", "en"), ("en-GB", "en"), ("en-US", "en"), ("EN_us", "en"), ("ja", "ja"), ("ja-JP", "ja"),
            ("ja-Jpan-JP", "ja"), ("fr", nil), ("fr-FR", nil), ("", nil), ("eng", nil),
        ] as [(String, String?)])
    func forLanguage(tag: String, primary: String?) {
        let verbalizer = Verbalizer.forLanguage(tag)
        #expect(verbalizer.flatMap { type(of: $0).languages.first } == primary)
    }

    @Test("lists the registered languages")
    func supportedLanguages() {
        #expect(Verbalizer.supportedLanguages == ["en", "ja"])
    }

    @Test("refuses a language it has no verbalizer for")
    func unsupportedLanguage() {
        #expect(throws: VerbalizationError.unsupportedLanguage("fr")) {
            try Verbalizer.words(for: "12", as: .cardinal, format: nil, language: "fr")
        }
    }

    @Test("ignores a format where the interpretation has none")
    func ignoredFormat() throws {
        #expect(
            try Verbalizer.words(for: "+39 06", as: .telephone, format: "39", language: "en")
                == ["plus", "three", "nine", "zero", "six"])
        #expect(try Verbalizer.words(for: "7", as: .cardinal, format: "", language: "en") == ["seven"])
    }
}

@Suite struct VerbalizationErrorTests {
    @Test(
        "describes each error in one line naming the input and what is accepted",
        arguments: [
            (
                VerbalizationError.malformedNumber("abc"),
                "cannot read \"abc\" as a number: expected digits with an optional sign, thousands separators and "
                    + "decimal part, such as \"-1,234.5\""
            ),
            (
                .numberOutOfRange("1000000000000000", maximum: 999_999_999_999_999),
                "the number \"1000000000000000\" is out of range: expected an integer part of at most "
                    + "999,999,999,999,999"
            ),
            (
                .dayOutOfRange("2023-02-29", day: 29, month: 2, year: 2023),
                "the date \"2023-02-29\" has day 29: expected a day from 1 to 28 of month 2 in 2023"
            ),
            (
                .monthOutOfRange("2024-13-01", month: 13),
                "the date \"2024-13-01\" has month 13: expected a month from 1 to 12"
            ),
            (
                .unsupportedLanguage("fr"),
                "no verbalizer for language \"fr\": expected a language tag whose primary subtag is one of en, ja"
            ),
            (
                .unsupportedFormat("iso", .date),
                "unknown date format \"iso\": expected mdy, dmy, ymd, md, dm, ym, my, d, m, y"
            ),
            (
                .malformedDate("2024-11-21", format: .md),
                "cannot read \"2024-11-21\" as a date in format md: expected 2 numbers separated by \"-\", \"/\" or "
                    + "\".\", such as \"11/21\""
            ),
            (
                .ordinalSuffixMismatch("21th", expected: "21st"),
                "the ordinal \"21th\" has the wrong suffix: expected \"21st\""
            ),
        ])
    func description(error: VerbalizationError, expected: String) {
        #expect(error.description == expected)
    }

    @Test("keeps every description on one line")
    func oneLine() {
        let errors: [VerbalizationError] = [
            .unsupportedLanguage("x"), .unsupportedFormat("x", .time), .unsupportedFormat("x", .cardinal),
            .malformedNumber("x"), .numberOutOfRange("x", maximum: 9), .malformedOrdinal("x"),
            .ordinalSuffixMismatch("x", expected: "y"), .ordinalOutOfRange("x", maximum: 9), .noDigits("x", .digits),
            .malformedTelephone("x", character: "x"), .malformedDate("x", format: .d), .ambiguousDate("x"),
            .yearOutOfRange("x", year: 0), .monthOutOfRange("x", month: 0),
            .dayOutOfRange("x", day: 0, month: nil, year: nil), .incompleteDate("x", format: .ymd),
            .malformedTime("x"), .timeOutOfRange("x"),
        ]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(error.description.contains("\"x\""))
            #expect(error.description.contains("expected"))
        }
    }
}
