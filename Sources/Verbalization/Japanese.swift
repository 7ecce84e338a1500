// SPDX-License-Identifier: GPL-3.0-or-later
/// Japanese: written forms in kanji, each element a unit a pack records whole because its reading changes
/// where the parts meet (三百 さんびゃく, 八千 はっせん, 二十日 はつか, 十分 じゅっぷん).
///
/// - Numbers group by 万 (10^4), 億 (10^8) and 兆 (10^12); the group word joins the group's last element:
///   12345 → 一万 二千 三百 四十 五; 120000 → 十 二万; 100000000 → 一億. Tens, hundreds and thousands are whole
///   elements (四十, 三百, 八千); 十, 百 and 千 take no 一, also before 万, 億 and 兆 (千万, 百億).
///   Zero is ゼロ (what phone menus and announcements say; 零 and 〇 are read れい or まる depending on
///   context). Negative: マイナス first; decimals: 点, then each digit (三 点 一 四).
/// - Ordinals: 第 followed by the number (第 三, 第 二十 一): one prefix, the number's own clips unchanged.
/// - Digits and telephone numbers: ゼロ 一 二 三 四 五 六 七 八 九, a leading + is プラス.
/// - Dates: always year, month, day: the year's number elements with 年 joined to the last (its reading changes:
///   四年 is よねん), months and days whole (their readings are irregular): 二千 二十 四年 十一月 二十一日.
/// - Times: 十四時 五分 三十秒 on the 24-hour clock; 午前 or 午後 first on the 12-hour clock, whose hours run
///   零時 to 十一時 (midnight 午前零時, noon 午後零時). Midnight is 零時, the usual written form (れいじ); the end of
///   the day is 二十四時. A zero minute or second is not spoken (十四時 for 14:00).
public struct JapaneseVerbalizer: LanguageVerbalizer {
    public static let languages = ["ja"]

    public init() {}

    public var defaultDateFormat: DateFormat { .ymd }

    public var plusSign: String { "プラス" }

    static let zero = "ゼロ"
    static let digits = [zero, "一", "二", "三", "四", "五", "六", "七", "八", "九"]
    /// Units inside a group of four digits, by place: ones, 十, 百, 千.
    static let places = ["", "十", "百", "千"]
    /// The group words by power of ten.
    static let groups: [(exponent: Int, name: String)] = [(12, "兆"), (8, "億"), (4, "万"), (0, "")]
    static let morning = "午前"
    static let afternoon = "午後"

    public var minusSign: String { "マイナス" }
    public var decimalPoint: String { "点" }

    public func integerWords(_ number: Int) -> [String] { Self.elements(number) }

    /// 第 before the number: 第 三.
    public func ordinalWords(_ number: Int) -> [String] { ["第"] + Self.elements(number) }

    public func digit(_ digit: Int) -> String {
        precondition((0...9).contains(digit), "a digit is 0 to 9, not \(digit)")
        return Self.digits[digit]
    }

    public func date(_ date: CalendarDate, format: DateFormat) throws(VerbalizationError) -> [String] {
        guard format.fields.allSatisfy({ date.value(of: $0) != nil }) else {
            throw .incompleteDate(date.description, format: format)
        }
        // Japanese says year, month, day whatever order they were written in.
        return DateField.allCases.filter(format.fields.contains).flatMap { field in
            let value = date.value(of: field)!
            return switch field {
            case .year: Self.yearElements(value)
            case .month: [Self.monthElement(value)]
            case .day: [Self.dayElement(value)]
            }
        }
    }

    public func time(_ time: ClockTime, format: TimeFormat) throws(VerbalizationError) -> [String] {
        var elements: [String]
        if format.isTwelveHour {
            let hour = time.hour % 24
            elements = [hour < 12 ? Self.morning : Self.afternoon, Self.hourElement(hour % 12)]
        } else {
            elements = [Self.hourElement(time.hour)]
        }
        if time.minute > 0 { elements.append(Self.minuteElement(time.minute)) }
        if format.includesSeconds, let second = time.second, second > 0 { elements.append(Self.secondElement(second)) }
        return elements
    }

    public func vocabulary(for category: Interpretation) -> [String] {
        switch category {
        case .cardinal:
            return [Self.zero] + Self.numberElements + [minusSign, decimalPoint]
        case .ordinal:
            return ["第", Self.zero] + Self.numberElements
        case .digits:
            return Self.digits
        case .telephone:
            return Self.digits + [plusSign]
        case .date:
            var seen = Set<String>()
            let years = (1...9999).flatMap(Self.yearElements).filter { seen.insert($0).inserted }
            return (1...12).map(Self.monthElement) + (1...31).map(Self.dayElement) + years
        case .time:
            return [Self.morning, Self.afternoon] + (0...24).map(Self.hourElement) + (1...59).map(Self.minuteElement)
                + (1...59).map(Self.secondElement)
        }
    }

    /// Every element of a non-zero number, smallest group first: 一…九, 十…九十, 百…九百, 千…九千, then the
    /// same with 万, 億 and 兆 joined, as far as `Verbalizer.largestSpokenInteger` reaches.
    static let numberElements: [String] = groups.reversed().flatMap { group in
        places.indices.flatMap { place in
            (1...9).compactMap { digit -> String? in
                let value = digit * power(of: 10, group.exponent + place)
                guard value <= Verbalizer.largestSpokenInteger else { return nil }
                return unit(digit, place: place) + group.name
            }
        }
    }

    /// The elements of 0 through `Verbalizer.largestSpokenInteger`.
    static func elements(_ number: Int) -> [String] {
        if number == 0 { return [zero] }
        var elements: [String] = []
        for group in groups {
            let value = number / power(of: 10, group.exponent) % 10_000
            guard value > 0 else { continue }
            var groupElements = places.indices.reversed().compactMap { place -> String? in
                let digit = value / power(of: 10, place) % 10
                return digit > 0 ? unit(digit, place: place) : nil
            }
            groupElements[groupElements.count - 1] += group.name
            elements += groupElements
        }
        return elements
    }

    /// 三百 for 3 in the hundreds; 百, not 一百, for 1 (and likewise 十, 千).
    static func unit(_ digit: Int, place: Int) -> String {
        (place > 0 && digit == 1 ? "" : digits[digit]) + places[place]
    }

    /// A number written as one string of kanji, for the parts of dates and times: 2024 is 二千二十四.
    static func kanji(_ number: Int) -> String {
        elements(number).joined()
    }

    static func yearElements(_ year: Int) -> [String] {
        var elements = elements(year)
        elements[elements.count - 1] += "年"
        return elements
    }
    static func monthElement(_ month: Int) -> String { kanji(month) + "月" }
    static func dayElement(_ day: Int) -> String { kanji(day) + "日" }
    static func hourElement(_ hour: Int) -> String { (hour == 0 ? "零" : kanji(hour)) + "時" }
    static func minuteElement(_ minute: Int) -> String { kanji(minute) + "分" }
    static func secondElement(_ second: Int) -> String { kanji(second) + "秒" }

    static func power(of base: Int, _ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { result, _ in result * base }
    }
}
