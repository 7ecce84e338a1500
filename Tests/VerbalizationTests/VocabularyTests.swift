// SPDX-License-Identifier: GPL-3.0-or-later
import Testing

@testable import Verbalization

/// Inputs that together reach every element a language can produce, so `vocabulary(for:)` can be checked in
/// both directions: nothing produced is missing from it, and nothing in it is never produced.
private enum Sample {
    /// 0…10,000, every digit at every power of ten up to 10^14, a spread of larger numbers, signs and decimals.
    static let numbers: [DecimalNumber] = {
        var integers = Array(0...10_000)
        for exponent in 0...14 {
            let power = (0..<exponent).reduce(1) { result, _ in result * 10 }
            integers += (1...9).map { $0 * power }
        }
        // A fixed linear congruential sequence: the same spread of 15-digit numbers on every run.
        var state: UInt64 = 0x5EED
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            integers.append(Int(state >> 14) % (Verbalizer.largestSpokenInteger + 1))
        }
        integers += [999_999_999_999, 1_000_000_000_000, 123_456_789_012, Verbalizer.largestSpokenInteger]
        var numbers = integers.map(DecimalNumber.init)
        numbers += [-1, -12_345, -999_999_999_999_999].map(DecimalNumber.init)
        numbers += ["3.14", "-0.5", "0.0123456789", "100.001"].map { try! DecimalNumber(parsing: $0) }
        return numbers
    }()

    static let ordinals: [Int] =
        Array(0...10_000)
        + numbers.filter { !$0.isNegative && $0.fractionDigits.isEmpty }.map {
            $0.integerValue!
        }

    /// Every date in 2024 in every format, and every year 1…9999 alone.
    static let dates: [(CalendarDate, DateFormat)] = {
        let daysInMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var dates: [(CalendarDate, DateFormat)] = []
        for (month, days) in zip(1...12, daysInMonth) {
            for day in 1...days {
                let date = try! CalendarDate(year: 2024, month: month, day: day)
                dates += DateFormat.allCases.map { (date, $0) }
            }
        }
        dates += (1...9999).map { (try! CalendarDate(year: $0), DateFormat.y) }
        return dates
    }()

    /// Every minute of the day plus 24:00, in every format, with the second running 0…59 through the hour.
    static let times: [(ClockTime, TimeFormat)] = {
        var times: [ClockTime] = [try! ClockTime(hour: 24, minute: 0)]
        for hour in 0...23 {
            for minute in 0...59 {
                times.append(try! ClockTime(hour: hour, minute: minute))
                times.append(try! ClockTime(hour: hour, minute: minute, second: minute))
            }
        }
        return times.flatMap { time in TimeFormat.allCases.map { (time, $0) } }
    }()
}

private let languages: [any LanguageVerbalizer] = Verbalizer.supportedLanguages.map { Verbalizer.forLanguage($0)! }

/// Every element the language produces for the sample of a category.
private func produced(by verbalizer: any LanguageVerbalizer, for category: Interpretation) throws -> Set<String> {
    var elements = Set<String>()
    switch category {
    case .cardinal:
        for number in Sample.numbers { elements.formUnion(try verbalizer.cardinal(number)) }
    case .ordinal:
        for number in Sample.ordinals { elements.formUnion(try verbalizer.ordinal(number)) }
    case .digits:
        elements.formUnion((0...9).map(verbalizer.digit))
    case .telephone:
        elements.formUnion(
            try Verbalizer.words(
                for: "+1 (234) 567-890", as: .telephone, format: nil,
                language: type(of: verbalizer).languages[0]))
    case .date:
        for (date, format) in Sample.dates { elements.formUnion(try verbalizer.date(date, format: format)) }
    case .time:
        for (time, format) in Sample.times { elements.formUnion(try verbalizer.time(time, format: format)) }
    }
    return elements
}

@Suite struct VocabularyTests {
    @Test(
        "lists exactly the elements each language produces",
        arguments: Verbalizer.supportedLanguages, Interpretation.allCases)
    func matchesProducedElements(language: String, category: Interpretation) throws {
        let verbalizer = try #require(Verbalizer.forLanguage(language))
        let vocabulary = verbalizer.vocabulary(for: category)
        let elements = try produced(by: verbalizer, for: category)
        #expect(elements.subtracting(vocabulary).sorted() == [], "produced but not in the vocabulary")
        #expect(Set(vocabulary).subtracting(elements).sorted() == [], "in the vocabulary but never produced")
    }

    @Test("lists every element once", arguments: Verbalizer.supportedLanguages, Interpretation.allCases)
    func noDuplicates(language: String, category: Interpretation) throws {
        let vocabulary = try #require(Verbalizer.forLanguage(language)).vocabulary(for: category)
        #expect(Set(vocabulary).count == vocabulary.count)
    }

    @Test(
        "has the documented size",
        arguments: [
            ("en", Interpretation.cardinal, 35), ("en", .ordinal, 65), ("en", .digits, 10), ("en", .telephone, 11),
            ("en", .date, 63), ("en", .time, 31), ("ja", .cardinal, 138), ("ja", .ordinal, 137), ("ja", .digits, 10),
            ("ja", .telephone, 11), ("ja", .date, 106), ("ja", .time, 145),
        ])
    func size(language: String, category: Interpretation, count: Int) throws {
        #expect(try #require(Verbalizer.forLanguage(language)).vocabulary(for: category).count == count)
    }

    @Test("starts with the forms a pack builder expects")
    func order() {
        let english = EnglishVerbalizer()
        #expect(english.vocabulary(for: .cardinal).prefix(3) == ["zero", "one", "two"])
        #expect(english.vocabulary(for: .date).prefix(2) == ["january", "february"])
        let japanese = JapaneseVerbalizer()
        #expect(
            Array(japanese.vocabulary(for: .cardinal).prefix(12)) == [
                "ゼロ", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "二十",
            ])
        #expect(japanese.vocabulary(for: .cardinal).contains("三百"))
        #expect(japanese.vocabulary(for: .cardinal).contains("九百兆"))
        #expect(!japanese.vocabulary(for: .cardinal).contains("千兆"))
        #expect(japanese.vocabulary(for: .date).prefix(2) == ["一月", "二月"])
        #expect(japanese.vocabulary(for: .time).prefix(3) == ["午前", "午後", "零時"])
    }
}
