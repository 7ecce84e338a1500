// SPDX-License-Identifier: GPL-3.0-or-later
/// A time of day on the 24-hour clock, with seconds when they were written.
public struct ClockTime: Sendable, Hashable, CustomStringConvertible {
    /// 0 to 23, or 24 for the end of the day (`24:00`, only with zero minutes and seconds).
    public let hour: Int
    /// 0 to 59.
    public let minute: Int
    /// 0 to 59, or nil when the time was written without seconds.
    public let second: Int?

    /// A time from its fields, validated.
    ///
    /// - Throws: `VerbalizationError.timeOutOfRange` (`25:00`, `12:60`, `24:01`).
    public init(hour: Int, minute: Int = 0, second: Int? = nil) throws(VerbalizationError) {
        self.hour = hour
        self.minute = minute
        self.second = second
        try validate(written: description)
    }

    private init(hour: Int, minute: Int, second: Int?, written: String) throws(VerbalizationError) {
        self.hour = hour
        self.minute = minute
        self.second = second
        try validate(written: written)
    }

    private func validate(written: String) throws(VerbalizationError) {
        let isEndOfDay = hour == 24 && minute == 0 && (second ?? 0) == 0
        guard (0...23).contains(hour) || isEndOfDay, (0...59).contains(minute), (0...59).contains(second ?? 0) else {
            throw .timeOutOfRange(written)
        }
    }

    /// Reads a written time: `14:05`, `14:05:30`, `2:05pm`, `2:05 PM`, `2 p.m.`, `2pm`; full-width digits too.
    ///
    /// Minutes and seconds are two digits; an hour alone needs am/pm; 12 am is midnight (hour 0), 12 pm is noon.
    ///
    /// - Returns: the time and the format it was written in (`hm12` for `2:05 pm`, `hms24` for `14:05:30`), which
    ///   is how it is spoken when the request names no format.
    /// - Throws: `VerbalizationError.malformedTime`, or `.timeOutOfRange` (`25:00`, `13pm`, `0am`).
    public static func parse(_ text: String) throws(VerbalizationError) -> (time: ClockTime, writtenFormat: TimeFormat)
    {
        var body = Substring(InputText.normalized(text).lowercased())
        if body.last == "." { body.removeLast() }
        var isAfternoon: Bool?
        for (suffix, afternoon) in [("a.m", false), ("p.m", true), ("am", false), ("pm", true)]
        where body.hasSuffix(suffix) {
            body = body.dropLast(suffix.count)
            isAfternoon = afternoon
            break
        }
        while body.last?.isWhitespace == true { body.removeLast() }
        let fields = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (isAfternoon == nil ? 2...3 : 1...3).contains(fields.count),
            fields.allSatisfy(InputText.isDigits), fields[0].count <= 2,
            fields.dropFirst().allSatisfy({ $0.count == 2 }),
            let writtenHour = Int(fields[0])
        else { throw .malformedTime(text) }
        let minute = fields.count > 1 ? Int(fields[1])! : 0
        let second = fields.count > 2 ? Int(fields[2])! : nil
        var hour = writtenHour
        if let isAfternoon {
            guard (1...12).contains(writtenHour) else { throw .timeOutOfRange(text) }
            hour = writtenHour % 12 + (isAfternoon ? 12 : 0)
        }
        let time = try ClockTime(hour: hour, minute: minute, second: second, written: text)
        let format: TimeFormat =
            switch (isAfternoon != nil, second != nil) {
            case (true, true): .hms12
            case (true, false): .hm12
            case (false, true): .hms24
            case (false, false): .hm24
            }
        return (time, format)
    }

    /// The time as `HH:MM` or `HH:MM:SS`.
    public var description: String {
        func padded(_ value: Int) -> String { value < 10 && value >= 0 ? "0\(value)" : String(value) }
        return padded(hour) + ":" + padded(minute) + (second.map { ":" + padded($0) } ?? "")
    }
}

/// How a time is spoken, after SSML `say-as format=`: with or without seconds, on the 12- or 24-hour clock.
public enum TimeFormat: String, Sendable, CaseIterable {
    case hms12, hms24, hm12, hm24

    /// Whether the hour is spoken 1 to 12 with a.m. or p.m.
    public var isTwelveHour: Bool { self == .hms12 || self == .hm12 }

    /// Whether seconds, when the time has them, are spoken.
    public var includesSeconds: Bool { self == .hms12 || self == .hms24 }
}
