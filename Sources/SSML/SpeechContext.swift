// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a text run is to be spoken: what the elements around it asked for.
///
/// The default context (`SpeechContext()`) is that of plain text: 0 dB, no rate given (the voice's normal
/// speed), no pitch shift, no `say-as`, no language and no voice named.
public struct SpeechContext: Equatable, Sendable, CustomStringConvertible {
    /// Gain in dB: the sum of every enclosing `prosody volume` and `emphasis`; `-infinity` for `silent`.
    public var volumeDecibels: Double
    /// SSML's rate, a multiple of the default rate (`2` for `200%`): nested `prosody rate` multiplies; `nil`
    /// where no rate is given, which is the voice's normal speed (`Prosody.speed(rate:normalRate:)`).
    public var rate: Double?
    /// Pitch shift in semitones: the sum of every enclosing `prosody pitch`.
    public var pitchSemitones: Double
    /// The innermost `say-as` with a known `interpret-as` (and known `format`, if any).
    public var sayAs: SayAs?
    /// The innermost `xml:lang` (on any element, including `<speak>` and `<lang>`); `nil` when none is set
    /// or `xml:lang=""` cleared it.
    public var language: String?
    /// The innermost `<voice name=…>`.
    public var voiceName: String?

    public init(
        volumeDecibels: Double = 0, rate: Double? = nil, pitchSemitones: Double = 0, sayAs: SayAs? = nil,
        language: String? = nil, voiceName: String? = nil
    ) {
        self.volumeDecibels = volumeDecibels
        self.rate = rate
        self.pitchSemitones = pitchSemitones
        self.sayAs = sayAs
        self.language = language
        self.voiceName = voiceName
    }

    /// The context of a request spoken with `prosody`, as if it were wrapped in `<prosody>`; when `isSpelling`, as if
    /// it were also wrapped in `<say-as interpret-as="characters">`.
    public init(_ prosody: Prosody, isSpelling: Bool = false) {
        self.init(
            volumeDecibels: prosody.volumeDecibels, rate: prosody.rate, pitchSemitones: prosody.pitchSemitones,
            sayAs: isSpelling ? SayAs(interpretAs: .characters) : nil)
    }

    /// The rate, pitch and volume: what the renderer applies.
    public var prosody: Prosody {
        Prosody(rate: rate, pitchSemitones: pitchSemitones, volumeDecibels: volumeDecibels)
    }

    /// The non-default parts, e.g. `volume -1.0 dB, rate 4.0, lang ja`; empty for the default context.
    public var description: String {
        var parts: [String] = []
        if volumeDecibels != 0 { parts.append("volume \(volumeDecibels) dB") }
        if let rate { parts.append("rate \(rate)") }
        if pitchSemitones != 0 { parts.append("pitch \(pitchSemitones < 0 ? "" : "+")\(pitchSemitones)st") }
        if let sayAs { parts.append("say-as \(sayAs)") }
        if let language { parts.append("lang \(language)") }
        if let voiceName { parts.append("voice \(voiceName)") }
        return parts.joined(separator: ", ")
    }
}

/// A `prosody pitch` value, in the form it was given.
public enum Pitch: Equatable, Sendable, CustomStringConvertible {
    /// No pitch given, or `default`.
    case `default`
    /// `x-low`, `low`, `medium`, `high`, `x-high`.
    case label(PitchLabel)
    /// A relative change in semitones: `+2st` is `semitones(2)`, `-1.5st` is `semitones(-1.5)`.
    case semitones(Double)
    /// A relative change in percent: `+10%` is `percent(10)`; always above -100.
    case percent(Double)
    /// An absolute pitch: `200Hz` is `hertz(200)`; always above 0.
    case hertz(Double)
    /// A relative change in Hz: `+50Hz` is `relativeHertz(50)`, `-20Hz` is `relativeHertz(-20)`.
    case relativeHertz(Double)

    public var description: String {
        switch self {
        case .default: return "default"
        case .label(let label): return label.rawValue
        case .semitones(let value): return "\(value < 0 ? "" : "+")\(value)st"
        case .percent(let value): return "\(value < 0 ? "" : "+")\(value)%"
        case .hertz(let value): return "\(value)Hz"
        case .relativeHertz(let value): return "\(value < 0 ? "" : "+")\(value)Hz"
        }
    }

    /// The shift in semitones: labels x-low -4, low -2, medium 0, high +2, x-high +4; a percentage is a
    /// frequency ratio (`+100%` is +12). `nil` for Hz values: a voice of recorded clips has no known base
    /// frequency to measure them against.
    public var semitones: Double? {
        switch self {
        case .default: return 0
        case .label(let label):
            switch label {
            case .xLow: return -4
            case .low: return -2
            case .medium: return 0
            case .high: return 2
            case .xHigh: return 4
            }
        case .semitones(let value): return value
        case .percent(let value): return 12 * log2(1 + value / 100)
        case .hertz, .relativeHertz: return nil
        }
    }
}

/// The pitch labels of SSML 1.1.
public enum PitchLabel: String, Equatable, Sendable, CaseIterable {
    case xLow = "x-low"
    case low
    case medium
    case high
    case xHigh = "x-high"
}

/// A `say-as` the reader knows: its `interpret-as`, and its `format` and `detail` as given.
public struct SayAs: Equatable, Sendable, CustomStringConvertible {
    /// The `interpret-as` values the reader knows; any other speaks the content as plain text.
    public enum Interpretation: String, Equatable, Sendable, CaseIterable {
        case characters
        case spellOut = "spell-out"
        case digits
        case telephone
        case cardinal
        case number
        case ordinal
        case date
        case time
    }

    public var interpretAs: Interpretation
    /// `format` as given (trimmed); for `date` one of `mdy dmy ymd md dm ym my d m y`, for `time` one of
    /// `hms12 hms24 hm12 hm24`, for `telephone` a country code such as `1` or `+81`, for `characters` and
    /// `spell-out` `characters` or `glyphs`.
    public var format: String?
    /// `detail` as given (trimmed); not validated.
    public var detail: String?

    public init(interpretAs: Interpretation, format: String? = nil, detail: String? = nil) {
        self.interpretAs = interpretAs
        self.format = format
        self.detail = detail
    }

    public var description: String {
        var text = interpretAs.rawValue
        if let format { text += " format \(format)" }
        if let detail { text += " detail \(detail)" }
        return text
    }
}
