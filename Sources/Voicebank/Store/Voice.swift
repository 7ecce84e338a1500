// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// One voice of a pack, like an entry of a speech-synthesizer extension's `speechVoices`.
public struct Voice: Equatable, Sendable, CustomStringConvertible {
    /// Reverse-DNS and unique in the pack: `com.example.voice.en`.
    public var identifier: String
    /// What a person picks in a list: `Otoya`.
    public var name: String
    /// BCP 47 tags the voice is made for: `["ja-JP"]`.
    public var primaryLanguages: [String]
    /// BCP 47 tags it can speak; always includes the primary ones.
    public var supportedLanguages: [String]
    /// The SSML rate at which the clips play as recorded: a screen reader that sends `rate="400.0%"` for its
    /// normal speed talks to a voice whose normal rate is 4. A request's rate is divided by it.
    public var normalRate: Double
    /// How import trims the silence at clips' ends; `nil` keeps clips whole.
    public var trimming: Trimming?
    /// How clips meet: fades at their edges, or a crossfade between adjacent clips.
    public var joins: Joins
    /// The loudness every clip is played at; `nil` plays clips at their recorded level.
    public var loudness: LoudnessTarget?
    /// How the words no clip covers are spoken.
    public var fallbackMode: FallbackMode
    /// The espeak-ng settings the fallback voice speaks with, chosen to sound like the clips (`voicebank configure
    /// --fallback voice`); the loudness it plays at is the voice's (see `settings`).
    public var fallbackVoice: FallbackVoiceSettings
    /// The median F0 of its phrase clips, in Hz; `nil` until measured, or when no clip has a voiced part.
    public var medianF0Hz: Double?
    /// The median loudness of its phrase clips, in LUFS; `nil` when none is measured.
    public var medianLoudnessLUFS: Double?
    /// How selection weighs a take's place against its joins (`voicebank configure --position-weight …`).
    public var selection: SelectionWeights = .standard
    /// How the units fallback weighs its choice of units (`voicebank configure --unit-context-weight …`).
    public var units: UnitWeights = .standard

    /// Normal rates a voice can have: SSML's rates from a twentieth to twenty times the default.
    public static let normalRates: ClosedRange<Double> = 0.05...20

    /// Validates and canonicalises the identifier and tags (`en-us` → `en-US`).
    ///
    /// - Throws: `VoicebankError.invalidIdentifier`, `.emptyName`, `.noLanguage`, `.invalidLanguage` or
    ///   `.invalidNormalRate`.
    public init(
        identifier: String, name: String, primaryLanguages: [String], supportedLanguages: [String] = [],
        normalRate: Double = 1, trimming: Trimming? = .standard, joins: Joins = .standard,
        loudness: LoudnessTarget? = nil, fallbackMode: FallbackMode = .clip
    ) throws(VoicebankError) {
        guard Self.normalRates.contains(normalRate) else { throw .invalidNormalRate(normalRate) }
        guard Self.isReverseDNS(identifier) else { throw .invalidIdentifier(identifier) }
        let trimmedName = name.trimmingSpaces
        guard !trimmedName.isEmpty else { throw .emptyName }
        guard !primaryLanguages.isEmpty else { throw .noLanguage }
        var primary: [String] = []
        for tag in primaryLanguages { primary.append(try Self.canonicalLanguageTag(tag)) }
        var supported = primary
        for tag in supportedLanguages { supported.append(try Self.canonicalLanguageTag(tag)) }
        self.identifier = identifier
        self.name = trimmedName
        self.primaryLanguages = primary.uniqued
        self.supportedLanguages = supported.uniqued
        self.normalRate = normalRate
        self.trimming = trimming
        self.joins = joins
        self.loudness = loudness
        self.fallbackMode = fallbackMode
        fallbackVoice = .standard
    }

    init(
        stored identifier: String, name: String, primary: String, supported: String, normalRate: Double,
        trimming: Trimming?, joins: Joins, loudness: LoudnessTarget?, fallbackMode: FallbackMode,
        fallbackVoice: FallbackVoiceSettings, medianF0Hz: Double?, medianLoudnessLUFS: Double?
    ) {
        self.loudness = loudness
        self.fallbackMode = fallbackMode
        self.fallbackVoice = fallbackVoice
        self.medianF0Hz = medianF0Hz
        self.medianLoudnessLUFS = medianLoudnessLUFS
        self.normalRate = normalRate
        self.trimming = trimming
        self.joins = joins
        self.identifier = identifier
        self.name = name
        self.primaryLanguages = primary.split(separator: ",").map(String.init)
        self.supportedLanguages = supported.split(separator: ",").map(String.init)
    }

    /// What speaking needs of the voice. The fallback voice plays at the loudness the clips play at: the voice's
    /// target, else their median.
    public var settings: VoiceSettings {
        var fallbackVoice = fallbackVoice
        fallbackVoice.loudnessLUFS = loudness?.targetLUFS ?? medianLoudnessLUFS
        fallbackVoice.truePeakCeilingDBTP = loudness?.truePeakCeilingDBTP ?? LoudnessTarget.standardCeilingDBTP
        return VoiceSettings(
            identifier: identifier, name: name, primaryLanguages: primaryLanguages,
            supportedLanguages: supportedLanguages, normalRate: normalRate, joins: joins, fallbackMode: fallbackMode,
            fallbackVoice: fallbackVoice, selection: selection, units: units)
    }

    public var description: String {
        "\(identifier) \"\(name)\" \(primaryLanguages.joined(separator: ","))"
            + (supportedLanguages == primaryLanguages
                ? "" : " (also \(supportedLanguages.dropFirst(primaryLanguages.count).joined(separator: ",")))")
            + (normalRate == 1 ? "" : ", normal rate \(normalRate)")
            + (fallbackMode == .clip ? "" : ", fallback \(fallbackMode)")
    }

    package static func isReverseDNS(_ identifier: String) -> Bool {
        let parts = identifier.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy(isNameByte)
            }
    }

    /// Whether `byte` may be in a part of an identifier, or in an espeak-ng variant's name: an ASCII letter or digit,
    /// `-` or `_`.
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F
    }

    /// Checks the shape of a BCP 47 tag (language, then subtags of 1 to 8 letters or digits) and writes it in
    /// the customary case: language lower, script title, region upper (`zh-hant-tw` → `zh-Hant-TW`).
    package static func canonicalLanguageTag(_ tag: String) throws(VoicebankError) -> String {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        let isAlpha = { (text: String) in text.utf8.allSatisfy { $0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A } }
        let isAlphanumeric = { (text: String) in
            text.utf8.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        }
        guard let language = subtags.first, (2...8).contains(language.count), isAlpha(language),
            subtags.dropFirst().allSatisfy({ (1...8).contains($0.count) && isAlphanumeric($0) })
        else { throw .invalidLanguage(tag) }
        var canonical = [language.lowercased()]
        var isPrivateUse = false
        for subtag in subtags.dropFirst() {
            if subtag.count == 1 { isPrivateUse = true }
            if isPrivateUse {
                canonical.append(subtag.lowercased())
            } else if subtag.count == 4 && isAlpha(subtag) {
                canonical.append(subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased())
            } else if subtag.count == 2 && isAlpha(subtag) {
                canonical.append(subtag.uppercased())
            } else {
                canonical.append(subtag.lowercased())
            }
        }
        return canonical.joined(separator: "-")
    }
}

extension String {
    package var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

extension Array where Element: Hashable {
    package var uniqued: [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

/// The loudness a voice's clips are played at: each clip is turned up or down to `targetLUFS`, but never so far
/// that its true peak passes `truePeakCeilingDBTP`.
public struct LoudnessTarget: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var targetLUFS: Double
    public var truePeakCeilingDBTP: Double

    /// The ceiling where none is given: -1 dBTP.
    public static let standardCeilingDBTP = -1.0

    public init(targetLUFS: Double, truePeakCeilingDBTP: Double = standardCeilingDBTP) {
        self.targetLUFS = targetLUFS
        self.truePeakCeilingDBTP = truePeakCeilingDBTP
    }

    /// Targets a voice can have: from very quiet to louder than broadcast allows.
    public static let targets: ClosedRange<Double> = -70...0

    /// The gain in dB that brings a clip of `loudness` and `truePeak` to the target under the ceiling; 0 for a
    /// clip with no loudness (silence).
    public func gainDecibels(loudness: Double?, truePeak: Double?) -> Double {
        guard let loudness else { return 0 }
        let gain = targetLUFS - loudness
        guard let truePeak, truePeak.isFinite else { return gain }
        return min(gain, truePeakCeilingDBTP - truePeak)
    }

    public var description: String { "\(targetLUFS) LUFS, true peak at most \(truePeakCeilingDBTP) dBTP" }
}
