// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Verbalization

private func japanese(_ text: String, _ interpretation: Interpretation, format: String? = nil) throws -> [String] {
    try Verbalizer.words(for: text, as: interpretation, format: format, language: "ja-JP")
}

@Suite struct JapaneseCardinalTests {
    @Test(
        "reads whole numbers with tens, hundreds and thousands as whole elements",
        arguments: [
            ("0", ["ゼロ"]), ("1", ["一"]), ("9", ["九"]), ("10", ["十"]), ("11", ["十", "一"]), ("19", ["十", "九"]),
            ("20", ["二十"]), ("21", ["二十", "一"]), ("99", ["九十", "九"]), ("100", ["百"]), ("101", ["百", "一"]),
            ("110", ["百", "十"]), ("300", ["三百"]), ("600", ["六百"]), ("800", ["八百"]),
            ("999", ["九百", "九十", "九"]), ("1000", ["千"]), ("1001", ["千", "一"]), ("3000", ["三千"]),
            ("8000", ["八千"]), ("9999", ["九千", "九百", "九十", "九"]),
        ])
    func belowTenThousand(text: String, expected: [String]) throws {
        #expect(try japanese(text, .cardinal) == expected)
    }

    @Test(
        "groups by 万, 億 and 兆, joining the group word to the group's last element",
        arguments: [
            ("10000", ["一万"]), ("10001", ["一万", "一"]), ("12345", ["一万", "二千", "三百", "四十", "五"]),
            ("100000", ["十万"]), ("120000", ["十", "二万"]), ("300000", ["三十万"]), ("1000000", ["百万"]),
            ("10000000", ["千万"]), ("11000000", ["千", "百万"]), ("35000", ["三万", "五千"]),
            ("100000000", ["一億"]), ("100010000", ["一億", "一万"]), ("1000000000000", ["一兆"]),
            (
                "123456789012",
                ["千", "二百", "三十", "四億", "五千", "六百", "七十", "八万", "九千", "十", "二"]
            ),
            (
                "999999999999999",
                ["九百", "九十", "九兆", "九千", "九百", "九十", "九億", "九千", "九百", "九十", "九万", "九千", "九百", "九十", "九"]
            ),
        ])
    func grouping(text: String, expected: [String]) throws {
        #expect(try japanese(text, .cardinal) == expected)
    }

    @Test(
        "reads signs, separators and decimals",
        arguments: [
            ("-5", ["マイナス", "五"]), ("−300", ["マイナス", "三百"]), ("3.14", ["三", "点", "一", "四"]),
            ("-0.5", ["マイナス", "ゼロ", "点", "五"]), ("1.05", ["一", "点", "ゼロ", "五"]),
            ("1,234", ["千", "二百", "三十", "四"]), ("１２，３４５", ["一万", "二千", "三百", "四十", "五"]),
        ])
    func signsAndDecimals(text: String, expected: [String]) throws {
        #expect(try japanese(text, .cardinal) == expected)
    }

    @Test("refuses garbage and numbers past 999兆")
    func invalid() {
        #expect(throws: VerbalizationError.malformedNumber("abc")) { try japanese("abc", .cardinal) }
        #expect(throws: VerbalizationError.malformedNumber("三")) { try japanese("三", .cardinal) }
        #expect(throws: VerbalizationError.numberOutOfRange("1000000000000000", maximum: 999_999_999_999_999)) {
            try japanese("1000000000000000", .cardinal)
        }
    }
}

@Suite struct JapaneseOrdinalTests {
    @Test(
        "puts 第 before the number",
        arguments: [
            ("1", ["第", "一"]), ("3", ["第", "三"]), ("3rd", ["第", "三"]), ("21st", ["第", "二十", "一"]),
            ("100", ["第", "百"]), ("10000", ["第", "一万"]), ("0", ["第", "ゼロ"]),
        ])
    func ordinals(text: String, expected: [String]) throws {
        #expect(try japanese(text, .ordinal) == expected)
    }

    @Test("checks an English suffix in any language")
    func suffix() {
        #expect(throws: VerbalizationError.ordinalSuffixMismatch("3th", expected: "3rd")) {
            try japanese("3th", .ordinal)
        }
    }
}

@Suite struct JapaneseDateTests {
    @Test(
        "reads year, month and day as whole elements, always in that order",
        arguments: [
            ("2024-11-21", nil, ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("2024/11/21", nil, ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("24/11/21", nil, ["二十", "四年", "十一月", "二十一日"]),
            ("11/21/2024", nil, ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("11/21/2024", "mdy", ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("21.11.2024", nil, ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("21/11/2024", "dmy", ["二千", "二十", "四年", "十一月", "二十一日"]),
            ("11/21", nil, ["十一月", "二十一日"]), ("11-21", "md", ["十一月", "二十一日"]),
            ("21-11", "dm", ["十一月", "二十一日"]), ("2024-11", "ym", ["二千", "二十", "四年", "十一月"]),
            ("11.2024", "my", ["二千", "二十", "四年", "十一月"]), ("1", "d", ["一日"]), ("20", "d", ["二十日"]),
            ("31", "d", ["三十一日"]), ("12", "m", ["十二月"]), ("2000", "y", ["二千年"]),
            ("1999", nil, ["千", "九百", "九十", "九年"]), ("1905", "y", ["千", "九百", "五年"]),
            ("2024-02-29", nil, ["二千", "二十", "四年", "二月", "二十九日"]),
        ] as [(String, String?, [String])])
    func formats(text: String, format: String?, expected: [String]) throws {
        #expect(try japanese(text, .date, format: format) == expected)
    }

    @Test("refuses impossible dates")
    func invalid() {
        #expect(throws: VerbalizationError.dayOutOfRange("2023-02-29", day: 29, month: 2, year: 2023)) {
            try japanese("2023-02-29", .date)
        }
        #expect(throws: VerbalizationError.monthOutOfRange("2024-13-01", month: 13)) {
            try japanese("2024-13-01", .date)
        }
        #expect(throws: VerbalizationError.monthOutOfRange("11/21/24", month: 21)) { try japanese("11/21/24", .date) }
    }
}

@Suite struct JapaneseTimeTests {
    @Test(
        "reads hours, minutes and seconds as whole elements",
        arguments: [
            ("14:05", nil, ["十四時", "五分"]), ("14:05", "hm24", ["十四時", "五分"]),
            ("14:05", "hm12", ["午後", "二時", "五分"]), ("14:00", nil, ["十四時"]), ("14:00", "hm12", ["午後", "二時"]),
            ("14:05:30", nil, ["十四時", "五分", "三十秒"]), ("14:05:30", "hms12", ["午後", "二時", "五分", "三十秒"]),
            ("14:05:30", "hm24", ["十四時", "五分"]), ("14:00:30", "hms24", ["十四時", "三十秒"]),
            ("2:05pm", nil, ["午後", "二時", "五分"]), ("2:05 PM", "hm24", ["十四時", "五分"]), ("2pm", nil, ["午後", "二時"]),
            ("9:10 am", nil, ["午前", "九時", "十分"]), ("00:00", nil, ["零時"]), ("00:00", "hm12", ["午前", "零時"]),
            ("12:00", "hm12", ["午後", "零時"]), ("12am", nil, ["午前", "零時"]), ("12pm", nil, ["午後", "零時"]),
            ("23:59:59", nil, ["二十三時", "五十九分", "五十九秒"]), ("24:00", nil, ["二十四時"]),
            ("24:00", "hm12", ["午前", "零時"]), ("04:44", nil, ["四時", "四十四分"]),
        ] as [(String, String?, [String])])
    func formats(text: String, format: String?, expected: [String]) throws {
        #expect(try japanese(text, .time, format: format) == expected)
    }
}

@Suite struct JapaneseDigitTests {
    @Test("reads every digit on its own")
    func digits() throws {
        #expect(try japanese("2024", .digits) == ["二", "ゼロ", "二", "四"])
        #expect(try japanese("0123456789", .digits) == ["ゼロ", "一", "二", "三", "四", "五", "六", "七", "八", "九"])
    }

    @Test(
        "reads telephone numbers with プラス for a leading plus",
        arguments: [
            ("+81 3-1234-5678", ["プラス", "八", "一", "三", "一", "二", "三", "四", "五", "六", "七", "八"]),
            ("(03) 1234", ["ゼロ", "三", "一", "二", "三", "四"]),
        ])
    func telephone(text: String, expected: [String]) throws {
        #expect(try japanese(text, .telephone) == expected)
    }
}
