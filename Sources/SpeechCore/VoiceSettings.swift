// SPDX-License-Identifier: GPL-3.0-or-later
/// What speaking needs to know of a voice: who it is, its languages, its normal rate and how its clips join.
///
/// The voice pack stores more (trimming, loudness); the planner and renderer need only this.
public struct VoiceSettings: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Reverse-DNS and unique in the pack: `com.example.voice.en`.
    public var identifier: String
    /// What a person picks in a list: `Otoya`.
    public var name: String
    /// BCP 47 tags the voice is made for: `["ja-JP"]`.
    public var primaryLanguages: [String]
    /// BCP 47 tags it can speak; always includes the primary ones.
    public var supportedLanguages: [String]
    /// The SSML rate at which the clips play as recorded (see `Prosody.speed(rate:normalRate:)`).
    public var normalRate: Double
    /// How clips meet: fades at their edges, or a crossfade between adjacent clips.
    public var joins: Joins
    /// How the words no clip covers are spoken.
    public var fallbackMode: FallbackMode
    /// How the fallback voice speaks them, in `FallbackMode.voice`.
    public var fallbackVoice: FallbackVoiceSettings
    /// How the best takes of a sentence are chosen.
    public var selection: SelectionWeights
    /// How the units fallback weighs its choice of units, in `FallbackMode.units`.
    public var units: UnitWeights

    public init(
        identifier: String, name: String = "", primaryLanguages: [String] = [], supportedLanguages: [String]? = nil,
        normalRate: Double = 1, joins: Joins = .standard, fallbackMode: FallbackMode = .clip,
        fallbackVoice: FallbackVoiceSettings = .standard, selection: SelectionWeights = .standard,
        units: UnitWeights = .standard
    ) {
        self.identifier = identifier
        self.name = name.isEmpty ? identifier : name
        self.primaryLanguages = primaryLanguages
        self.supportedLanguages = supportedLanguages ?? primaryLanguages
        self.normalRate = normalRate
        self.joins = joins
        self.fallbackMode = fallbackMode
        self.fallbackVoice = fallbackVoice
        self.selection = selection
        self.units = units
    }

    /// The language numbers, dates and times are read in: the first primary language.
    public var language: String { primaryLanguages.first ?? "" }

    public var description: String { "\(identifier) \(primaryLanguages.joined(separator: ","))" }
}
