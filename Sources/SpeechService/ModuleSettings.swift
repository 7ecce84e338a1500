// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// The settings speech-dispatcher sends with `SET` before every message, as the module last received them.
///
/// Every key is read; a key this module does not know, or a value it cannot read, is ignored (the reply is
/// `203` either way: a 3xx reply makes the server drop the message without a word).
public struct ModuleSettings: Equatable, Sendable {
    /// -100…100; 0 is the voice's normal speed.
    public var rate = 0
    /// -100…100; 0 is the voice as recorded.
    public var pitch = 0
    /// -100…100; read and kept, not used: a recorded clip's intonation is what it is.
    public var pitchRange = 0
    /// -100…100; speech-dispatcher's default (Debian's `DefaultVolume`) is 100.
    public var volume = 100
    /// `none`, `some`, `most` or `all`; kept, not used (the clips speak words, not punctuation).
    public var punctuationMode = "none"
    /// `spelling_mode=on`: every message is spelled, character by character.
    public var isSpelling = false
    /// `none`, `spell` or `icon`; kept, not used.
    public var capitalLetters = "none"
    /// `voice=`: male1, female1, child_male, …; kept, not used (a pack's voices are chosen by name or language).
    public var voiceType: String?
    /// `language=`, e.g. `en-us`; `nil` for `NULL`.
    public var language: String?
    /// `synthesis_voice=`: a voice's name as `LIST VOICES` gave it (or its identifier); `nil` for `NULL`.
    public var synthesisVoice: String?

    public init() {}

    /// Applies one `key=value` line of a `SET` block; returns whether the key and value were understood.
    @discardableResult
    public mutating func apply(line: String) -> Bool {
        guard let equals = line.firstIndex(of: "=") else { return false }
        return apply(key: String(line[..<equals]), value: String(line[line.index(after: equals)...]))
    }

    /// Applies one setting; returns whether the key and value were understood.
    @discardableResult
    public mutating func apply(key: String, value: String) -> Bool {
        func level(_ value: String) -> Int? {
            guard let number = Int(value.trimmingSpaces) else { return nil }
            return min(100, max(-100, number))
        }
        let text: String? = value == "NULL" || value.isEmpty ? nil : value
        switch key {
        case "rate": guard let value = level(value) else { return false }; rate = value
        case "pitch": guard let value = level(value) else { return false }; pitch = value
        case "pitch_range": guard let value = level(value) else { return false }; pitchRange = value
        case "volume": guard let value = level(value) else { return false }; volume = value
        case "punctuation_mode":
            guard ["none", "some", "most", "all"].contains(value) else { return false }
            punctuationMode = value
        case "spelling_mode":
            guard value == "on" || value == "off" else { return false }
            isSpelling = value == "on"
        case "cap_let_recogn":
            guard ["none", "spell", "icon"].contains(value) else { return false }
            capitalLetters = value
        case "voice": voiceType = text
        case "language": language = text
        case "synthesis_voice": synthesisVoice = text
        default: return false
        }
        return true
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let trimmed = drop { $0 == " " }
        return trimmed.prefix(trimmed.count - trimmed.reversed().prefix { $0 == " " }.count)
    }
}

/// A voice of the pack as the module lists and chooses it.
public struct ModuleVoice: Equatable, Sendable {
    public var identifier: String
    public var name: String
    /// BCP 47 tags, primary languages first.
    public var languages: [String]

    public init(identifier: String, name: String, languages: [String]) {
        self.identifier = identifier
        self.name = name
        self.languages = languages
    }
}

/// What a message is spoken with, worked out from the settings: the values handed to the engine.
public struct EngineParameters: Equatable, Sendable {
    /// The identifier of the pack's voice that speaks.
    public var voice: String
    /// Tempo as a factor of the voice's normal speed (1 = as recorded).
    public var speed: Double
    /// Pitch shift in semitones (0 = as recorded).
    public var pitchSemitones: Double
    /// Gain in dB (0 = as recorded, `-infinity` = silent).
    public var volumeDecibels: Double

    public init(voice: String, speed: Double = 1, pitchSemitones: Double = 0, volumeDecibels: Double = 0) {
        self.voice = voice
        self.speed = speed
        self.pitchSemitones = pitchSemitones
        self.volumeDecibels = volumeDecibels
    }

    /// The parameters for `settings` with the pack's `voices` (in the pack's order; at least one).
    public init(_ settings: ModuleSettings, voices: [ModuleVoice]) {
        self.init(
            voice: SettingsMapping.voice(for: settings, among: voices),
            speed: SettingsMapping.speed(rate: settings.rate),
            pitchSemitones: SettingsMapping.pitchSemitones(pitch: settings.pitch),
            volumeDecibels: SettingsMapping.volumeDecibels(volume: settings.volume))
    }
}

/// How speech-dispatcher's -100…100 settings become speed, pitch and gain, and how its voice and language pick a
/// voice of the pack. Pure functions, so the curves are tested as values.
public enum SettingsMapping {
    /// The speed factor for `rate`: exponential on each side of 0, so each step is the same ratio.
    ///
    /// Above 0 every 50 steps double the speed (`+50` = 2x, `+100` = 4x: what screen-reader users run at);
    /// below 0 every 100 steps halve it (`-50` = 0.71x, `-100` = 0.5x). 0 is the voice's normal speed.
    public static func speed(rate: Int) -> Double {
        let rate = Double(min(100, max(-100, rate)))
        return rate >= 0 ? pow(4, rate / 100) : pow(2, rate / 100)
    }

    /// Semitones for `pitch`: linear, ±12 (an octave) at ±100.
    public static func pitchSemitones(pitch: Int) -> Double {
        Double(min(100, max(-100, pitch))) * 12 / 100
    }

    /// Gain in dB for `volume`: the amplitude in proportion, from silent at -100 through half (-6 dB) at 0 to the
    /// clips' own level at 100, speech-dispatcher's default. Never above it: louder would clip recorded audio.
    public static func volumeDecibels(volume: Int) -> Double {
        let amplitude = Double(min(100, max(-100, volume)) + 100) / 200
        return Decibels.level(amplitude: amplitude)
    }

    /// The voice that speaks: `synthesis_voice` as an identifier or a name (ignoring case), else the first voice
    /// whose language is `language` (`en-us` matches `en-US`), else the first whose language has the same primary
    /// subtag (`en` matches `en-GB`, `en-us` matches `en-AU`), else the pack's first voice.
    public static func voice(for settings: ModuleSettings, among voices: [ModuleVoice]) -> String {
        precondition(!voices.isEmpty, "a pack the module opened has at least one voice")
        if let wanted = settings.synthesisVoice?.lowercased() {
            if let voice = voices.first(where: {
                $0.identifier.lowercased() == wanted || $0.name.lowercased() == wanted
            }
            ) {
                return voice.identifier
            }
        }
        if let language = settings.language.map(normalizedTag) {
            if let voice = voices.first(where: { $0.languages.map(normalizedTag).contains(language) }) {
                return voice.identifier
            }
            let primary = primarySubtag(language)
            if let voice = voices.first(where: {
                $0.languages.map { primarySubtag(normalizedTag($0)) }.contains(primary)
            }
            ) {
                return voice.identifier
            }
        }
        return voices[0].identifier
    }

    /// The names `LIST VOICES` gives: each voice's name, or its identifier where two voices share a name (so
    /// `synthesis_voice` always picks one voice).
    public static func listedNames(_ voices: [ModuleVoice]) -> [String] {
        voices.map { voice in
            let isShared = voices.filter { $0.name.lowercased() == voice.name.lowercased() }.count > 1
            return isShared || voice.name.isEmpty ? voice.identifier : voice.name
        }
    }

    private static func normalizedTag(_ tag: String) -> String {
        tag.lowercased().replacingUnderscores
    }

    private static func primarySubtag(_ tag: String) -> Substring {
        tag.prefix { $0 != "-" }
    }
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
