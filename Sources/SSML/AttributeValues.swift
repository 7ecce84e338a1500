// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// Reads the values of the attributes the reader knows; each returns `nil` for a value the attribute cannot
/// take. Values are trimmed of XML whitespace first; labels and units are matched case-insensitively.
enum AttributeValue {
    /// What `<break time=…>` accepts, for messages.
    static let acceptedTime = "a duration such as \"250ms\" or \"1.5s\" (0 to 600 s)"
    static let acceptedStrength = "one of none, x-weak, weak, medium, strong, x-strong"
    static let acceptedVolume =
        "a gain such as \"+6dB\" or \"-1.0dB\", one of silent, x-soft, soft, medium, loud, x-loud, default, "
        + "a level from 0 to 100, or a change such as \"+10\" or \"-20%\""
    static let acceptedRate =
        "one of x-slow, slow, medium, fast, x-fast, default, a percentage such as \"200%\" or \"-20%\", "
        + "or a multiplier such as \"1.5\", giving a rate above 0"
    static let acceptedPitch =
        "one of x-low, low, medium, high, x-high, default, or a value such as \"+2st\", \"-10%\", \"+50Hz\" "
        + "or \"200Hz\""
    static let acceptedEmphasis = "one of strong, moderate, reduced, none"
    static let acceptedLanguage = "a language tag such as \"en-US\" or \"ja\""

    /// The longest `<break time>`, in seconds; far past the cloud services' caps (10 s, 20 s).
    static let maximumBreakSeconds: UInt128 = 600

    /// `<break time=…>` in frames: `round(seconds × sampleRate)`, half away from zero, in exact integer
    /// arithmetic (`178ms` at 22050 Hz is 3925.0 frames, `10ms` is 220.5 and so 221).
    ///
    /// Accepts a non-negative decimal (`1`, `1.5`, `.5`, `250.5`) with the unit `s` or `ms`, up to 600 s
    /// and 24 significant decimal places.
    static func breakFrames(time: String, sampleRate: Int) -> Int? {
        guard let number = DecimalLiteral(trimmed(time)), number.sign == .none else { return nil }
        let unitsPerSecond: UInt128
        switch number.unit.lowercased() {
        case "s": unitsPerSecond = 1
        case "ms": unitsPerSecond = 1000
        default: return nil
        }
        let integerDigits = number.integerDigits.drop { $0 == 0x30 }
        var fractionDigits = number.fractionDigits[...]
        while fractionDigits.last == 0x30 { fractionDigits.removeLast() }
        // Anything with more integer digits is far past 600 s; the limits keep the products below 2^128.
        guard integerDigits.count <= 9, fractionDigits.count <= 24 else { return nil }
        // value = mantissa / denominator, in the unit given
        var mantissa: UInt128 = 0
        for digit in integerDigits { mantissa = mantissa * 10 + UInt128(digit - 0x30) }
        var denominator = unitsPerSecond
        for digit in fractionDigits {
            mantissa = mantissa * 10 + UInt128(digit - 0x30)
            denominator *= 10
        }
        guard mantissa <= maximumBreakSeconds * denominator else { return nil }
        // round(x) for x >= 0, halves up: floor((2·mantissa·rate + denominator) / (2·denominator))
        let rate = UInt128(sampleRate)
        return Int((2 * mantissa * rate + denominator) / (2 * denominator))
    }

    /// `<break strength=…>` in milliseconds.
    static func breakMilliseconds(strength: String) -> Int? {
        switch trimmed(strength).lowercased() {
        case "none": return 0
        case "x-weak": return 250
        case "weak": return 500
        case "medium": return 750
        case "strong": return 1000
        case "x-strong": return 1250
        default: return nil
        }
    }

    /// Milliseconds in frames, rounded half away from zero.
    static func frames(milliseconds: Int, sampleRate: Int) -> Int {
        (2 * milliseconds * sampleRate + 1000) / 2000
    }

    /// `<prosody volume=…>` as a gain in dB, `-infinity` for silence.
    ///
    /// SSML 1.1: `+6dB`, `-1.0dB` (the sign may be left out), silent, x-soft -12, soft -6, medium 0, loud +6,
    /// x-loud +12, default 0. SSML 1.0's forms are amplitude on a linear 0–100 scale whose default is 100:
    /// a bare number 0–100 is that level (`50` is 20·log10(0.5) = -6.02 dB, `0` is silent); a signed
    /// number is added to the default level (`+10` is 110, +0.83 dB; `-10` is 90, -0.92 dB); a signed
    /// percentage scales the amplitude (`-20%` is 0.8, -1.94 dB; `+20%` is 1.2, +1.58 dB) and an unsigned
    /// one is a share of it (`50%` is 0.5, -6.02 dB). Anything at or below zero amplitude is silent;
    /// below zero, or a bare level above 100, is invalid.
    static func volumeDecibels(_ value: String) -> Double? {
        let text = trimmed(value)
        switch text.lowercased() {
        case "silent": return -.infinity
        case "x-soft": return -12
        case "soft": return -6
        case "medium", "default": return 0
        case "loud": return 6
        case "x-loud": return 12
        default: break
        }
        guard let number = DecimalLiteral(text) else { return nil }
        let magnitude = number.value
        guard magnitude.isFinite else { return nil }
        switch number.unit.lowercased() {
        case "db":
            return magnitude
        case "%":
            return decibels(amplitudeRatio: number.sign == .none ? magnitude / 100 : (100 + magnitude) / 100)
        case "":
            if number.sign != .none { return decibels(amplitudeRatio: (100 + magnitude) / 100) }
            guard magnitude <= 100 else { return nil }
            return decibels(amplitudeRatio: magnitude / 100)
        default:
            return nil
        }
    }

    /// `<prosody rate=…>` as a multiplier of the voice's normal rate.
    ///
    /// x-slow 0.5, slow 0.75, medium 1, fast 1.5, x-fast 2, default 1; an unsigned percentage is a share
    /// of the normal rate (`200%` is 2, `400.0%` is 4); a signed one is SSML 1.0's relative change (`+10%`
    /// is 1.1, `-20%` is 0.8); an unsigned number is a multiplier (`1.5`). The result must be above 0.
    static func rate(_ value: String) -> Double? {
        let text = trimmed(value)
        switch text.lowercased() {
        case "x-slow": return 0.5
        case "slow": return 0.75
        case "medium", "default": return 1
        case "fast": return 1.5
        case "x-fast": return 2
        default: break
        }
        guard let number = DecimalLiteral(text) else { return nil }
        let magnitude = number.value
        let rate: Double
        switch number.unit {
        case "%":
            rate = number.sign == .none ? magnitude / 100 : (100 + magnitude) / 100
        case "":
            guard number.sign == .none else { return nil }
            rate = magnitude
        default:
            return nil
        }
        guard rate.isFinite, rate > 0 else { return nil }
        return rate
    }

    /// `<prosody pitch=…>`: a label, `default`, semitones (`+2st`), a signed percentage above -100
    /// (`-10%`), a relative (`+50Hz`) or positive absolute (`200Hz`) frequency.
    static func pitch(_ value: String) -> Pitch? {
        let text = trimmed(value)
        let lowercased = text.lowercased()
        if lowercased == "default" { return .default }
        if let label = PitchLabel(rawValue: lowercased) { return .label(label) }
        guard let number = DecimalLiteral(text) else { return nil }
        let magnitude = number.value
        guard magnitude.isFinite else { return nil }
        switch number.unit.lowercased() {
        case "st":
            return .semitones(magnitude)
        case "%":
            guard number.sign != .none, magnitude > -100 else { return nil }
            return .percent(magnitude)
        case "hz":
            if number.sign != .none { return .relativeHertz(magnitude) }
            guard magnitude > 0 else { return nil }
            return .hertz(magnitude)
        default:
            return nil
        }
    }

    /// `<emphasis level=…>` as a gain in dB: strong +6, moderate +3, reduced -3, none 0.
    static func emphasisDecibels(_ level: String) -> Double? {
        switch trimmed(level).lowercased() {
        case "strong": return 6
        case "moderate": return 3
        case "reduced": return -3
        case "none": return 0
        default: return nil
        }
    }

    /// A BCP 47-shaped tag: letters, then subtags of 1–8 letters or digits after `-` (or `_`, as in `en_US`).
    static func isLanguageTag(_ value: String) -> Bool {
        var subtagLength = 0
        var isFirstSubtag = true
        for byte in value.utf8 {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            let isDigit = byte >= 0x30 && byte <= 0x39
            if byte == Byte.hyphen || byte == 0x5F {
                guard subtagLength > 0 else { return false }
                subtagLength = 0
                isFirstSubtag = false
            } else if isLetter || (isDigit && !isFirstSubtag) {
                subtagLength += 1
                guard subtagLength <= 8 else { return false }
            } else {
                return false
            }
        }
        return subtagLength > 0
    }

    /// The `say-as format` values the reader knows for each `interpret-as`.
    static func knownFormats(for interpretation: SayAs.Interpretation) -> String {
        switch interpretation {
        case .date: return "mdy, dmy, ymd, md, dm, ym, my, d, m, y"
        case .time: return "hms12, hms24, hm12, hm24"
        case .telephone: return "a country code such as 1 or +81"
        case .characters, .spellOut: return "characters, glyphs"
        case .digits, .cardinal, .number, .ordinal: return "none"
        }
    }

    static func isKnownFormat(_ format: String, for interpretation: SayAs.Interpretation) -> Bool {
        switch interpretation {
        case .date: return ["mdy", "dmy", "ymd", "md", "dm", "ym", "my", "d", "m", "y"].contains(format)
        case .time: return ["hms12", "hms24", "hm12", "hm24"].contains(format)
        case .characters, .spellOut: return format == "characters" || format == "glyphs"
        case .telephone:
            let digits = format.hasPrefix("+") ? format.utf8.dropFirst() : format.utf8[...]
            return (1...4).contains(digits.count) && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        case .digits, .cardinal, .number, .ordinal: return false
        }
    }

    /// `value` without leading and trailing XML whitespace.
    static func trimmed(_ value: String) -> String {
        let bytes = value.utf8
        guard let first = bytes.firstIndex(where: { !isXMLWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isXMLWhitespace($0) })
        else { return "" }
        if first == bytes.startIndex && last == bytes.index(before: bytes.endIndex) { return value }
        return String(value[first...last])
    }

    /// 20·log10(ratio), `-infinity` for 0, `nil` below 0.
    static func decibels(amplitudeRatio ratio: Double) -> Double? {
        guard ratio.isFinite, ratio >= 0 else { return nil }
        return Decibels.level(amplitude: ratio)
    }
}

/// A decimal number at the start of a value, and the unit after it: `-1.5st` is minus, "1", "5", "st".
struct DecimalLiteral {
    enum Sign {
        case none
        case plus
        case minus
    }

    var sign: Sign
    /// ASCII digits before the point; empty for `.5`.
    var integerDigits: [UInt8]
    /// ASCII digits after the point; empty when there is no point.
    var fractionDigits: [UInt8]
    /// Whatever follows the number, as given: `ms`, `dB`, `%`, or empty.
    var unit: String

    /// `nil` unless `text` starts with `[+-]? (digits ('.' digits)? | '.' digits)`.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        sign = .none
        if let first = bytes.first, first == 0x2B || first == Byte.hyphen {
            sign = first == 0x2B ? .plus : .minus
            offset = 1
        }
        let integerStart = offset
        while offset < bytes.count && bytes[offset] >= 0x30 && bytes[offset] <= 0x39 { offset += 1 }
        integerDigits = Array(bytes[integerStart..<offset])
        fractionDigits = []
        if offset < bytes.count && bytes[offset] == 0x2E {
            let fractionStart = offset + 1
            var fractionEnd = fractionStart
            while fractionEnd < bytes.count && bytes[fractionEnd] >= 0x30 && bytes[fractionEnd] <= 0x39 {
                fractionEnd += 1
            }
            guard fractionEnd > fractionStart else { return nil }
            fractionDigits = Array(bytes[fractionStart..<fractionEnd])
            offset = fractionEnd
        }
        guard !integerDigits.isEmpty || !fractionDigits.isEmpty else { return nil }
        unit = String(decoding: bytes[offset...], as: UTF8.self)
    }

    /// The signed value (which may be infinite for absurdly long digit strings).
    var value: Double {
        let integer = integerDigits.isEmpty ? [0x30] : integerDigits
        let fraction = fractionDigits.isEmpty ? [0x30] : fractionDigits
        let magnitude = Double(String(decoding: integer + [0x2E] + fraction, as: UTF8.self)) ?? .infinity
        return sign == .minus ? -magnitude : magnitude
    }
}

/// `<prosody>`'s rate and pitch values for callers that set them outside SSML (`concat-synth render --rate`),
/// read exactly as the SSML attributes are.
public enum ProsodyValue {
    /// A rate value (`2`, `200%`, `+20%`, `fast`) as a multiple of the default rate; `nil` for anything else.
    public static func rate(_ value: String) -> Double? { AttributeValue.rate(value) }

    /// A pitch value (`+2st`, `-10%`, `high`) as a shift in semitones; `nil` for anything else, Hz included (a
    /// voice of recorded clips has no base frequency to measure Hz against).
    public static func pitchSemitones(_ value: String) -> Double? { AttributeValue.pitch(value)?.semitones }

    public static let acceptedRate = AttributeValue.acceptedRate
    public static let acceptedPitch =
        "one of x-low, low, medium, high, x-high, default, or a value such as \"+2st\" or \"-10%\""
}
