// SPDX-License-Identifier: GPL-3.0-or-later
/// How a voice speaks the words no clip covers.
public enum FallbackMode: String, Equatable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The voice's fallback clip, once for each run of words no clip covers.
    case clip
    /// Each word spelled with the voice's letter clips, as Asterisk's SayAlpha spells; the fallback clip for a
    /// character with no clip.
    case spell
    /// The words spoken by the fallback voice (espeak-ng) in the voice's language, each run as one phrase, at the
    /// pitch, rate and loudness of the voice's clips.
    case voice
    /// The words cut from the voice's own takes by their alignment: a word a take says whole is played from it, any
    /// other built from phone-pair units; a word the units cannot build is spoken as `voice` speaks it.
    case units

    public var description: String { rawValue }

    /// Whether the mode speaks with the fallback voice (espeak-ng), for all its words or for those the units cannot
    /// build.
    public var usesFallbackVoice: Bool { self == .voice || self == .units }
}

/// How the fallback voice speaks for a voice: espeak-ng's settings chosen (by `voicebank configure`) to sound like
/// the voice's clips, and the loudness its speech plays at.
public struct FallbackVoiceSettings: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// espeak-ng's variant of the language's voice (`f3`); empty for the language's voice itself.
    public var variant: String
    /// espeak-ng's base pitch, 0…100 (50 is its normal).
    public var pitch: Int
    /// espeak-ng's pitch range, how far its intonation moves: 0 (monotone)…100, 50 its normal.
    public var pitchRange: Int
    /// espeak-ng's rate in words per minute, 80…450 (175 is its normal).
    public var wordsPerMinute: Int
    /// A further pitch shift in semitones, made as a prosody pitch shift is, where espeak-ng's own pitch does not
    /// reach the clips'.
    public var pitchShiftSemitones: Double
    /// The loudness the speech plays at (LUFS): the voice's loudness target, else its clips' median; `nil` plays it
    /// as espeak-ng made it.
    public var loudnessLUFS: Double?
    /// The highest true peak the loudness may raise the speech to (dBTP).
    public var truePeakCeilingDBTP: Double
    /// How loud espeak-ng's speech is at these settings, as it plays with its peaks limited: the voice's loudness less
    /// the gain that took its sample phrases there (`voicebank configure` measures it). Known, a run plays at one gain
    /// chosen before it is spoken, while it is made; `nil`, each run is made whole and measured first.
    public var spokenLoudnessLUFS: Double?

    public init(
        variant: String = "", pitch: Int = 50, pitchRange: Int = 50, wordsPerMinute: Int = 175,
        pitchShiftSemitones: Double = 0, loudnessLUFS: Double? = nil, truePeakCeilingDBTP: Double = -1,
        spokenLoudnessLUFS: Double? = nil
    ) {
        self.spokenLoudnessLUFS = spokenLoudnessLUFS
        self.variant = variant
        self.pitch = pitch
        self.pitchRange = pitchRange
        self.wordsPerMinute = wordsPerMinute
        self.pitchShiftSemitones = pitchShiftSemitones
        self.loudnessLUFS = loudnessLUFS
        self.truePeakCeilingDBTP = truePeakCeilingDBTP
    }

    /// espeak-ng's own voice for the language, as it speaks by default, at its own level.
    public static let standard = FallbackVoiceSettings()
    /// The base pitches and pitch ranges espeak-ng takes.
    public static let pitches: ClosedRange<Int> = 0...100
    /// The rates espeak-ng takes, in words per minute (`espeakRATE_MINIMUM`…`espeakRATE_MAXIMUM`).
    public static let wordsPerMinuteRange: ClosedRange<Int> = 80...450

    /// `variant f3, pitch 45, range 20, 160 words a minute, +1.5 st`: the espeak-ng settings.
    public var description: String {
        "variant \(variant.isEmpty ? "none" : variant), pitch \(pitch), range \(pitchRange), "
            + "\(wordsPerMinute) words a minute"
            + (pitchShiftSemitones == 0 ? "" : ", \(pitchShiftSemitones < 0 ? "" : "+")\(pitchShiftSemitones) st")
    }
}

/// Audio the fallback voice makes for one run of words, placed and played like a clip: whole, or arriving while it
/// plays (`arrivesWhilePlaying`), its length known once the run is spoken.
public struct SynthesizedSpeech: Equatable, Sendable {
    /// Render-ready samples, 22050 Hz mono, as they are made.
    public let stream: SpeechStream
    /// Whether its samples arrive while it plays: the timeline places it at its start, and settles its length and
    /// what follows it when the run is spoken. `false` for speech made whole before it is placed.
    public let arrivesWhilePlaying: Bool
    /// The gain in dB that plays them at the voice's loudness, as `ClipTake.levelDecibels` plays a clip.
    public var levelDecibels: Double
    /// The pitch shift in semitones that takes them to the voice's pitch (`FallbackVoiceSettings`), added to the
    /// request's.
    public var pitchSemitones: Double

    /// Speech made whole.
    public init(samples: [Float], levelDecibels: Double = 0, pitchSemitones: Double = 0) {
        stream = SpeechStream(finished: samples)
        arrivesWhilePlaying = false
        self.levelDecibels = levelDecibels
        self.pitchSemitones = pitchSemitones
    }

    /// Speech whose samples arrive in `stream` while it plays.
    public init(arriving stream: SpeechStream, levelDecibels: Double = 0, pitchSemitones: Double = 0) {
        self.stream = stream
        arrivesWhilePlaying = true
        self.levelDecibels = levelDecibels
        self.pitchSemitones = pitchSemitones
    }

    /// Every sample, once the run is spoken (waits for it).
    public var samples: [Float] { stream.wholeSamples }

    /// The same speech made whole: placed once the run is spoken, as a stretch or a crossfade needs.
    public func whole() -> SynthesizedSpeech {
        guard arrivesWhilePlaying else { return self }
        return SynthesizedSpeech(samples: samples, levelDecibels: levelDecibels, pitchSemitones: pitchSemitones)
    }

    /// The same samples, gain and pitch shift: two streams are compared once each is whole.
    public static func == (lhs: SynthesizedSpeech, rhs: SynthesizedSpeech) -> Bool {
        lhs.levelDecibels == rhs.levelDecibels && lhs.pitchSemitones == rhs.pitchSemitones
            && lhs.arrivesWhilePlaying == rhs.arrivesWhilePlaying
            && (lhs.stream === rhs.stream || lhs.samples == rhs.samples)
    }
}

/// Why the fallback voice cannot speak for a voice (espeak-ng missing, or without the voice's language): the voice's
/// fallback clip speaks instead.
public struct FallbackVoiceUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Speaks words no clip covers, each run whole as one phrase: a voice's fallback voice (`FallbackMode.voice`).
///
/// The planner asks it when it meets the run; the speech it answers with may still be arriving
/// (`SynthesizedSpeech.arrivesWhilePlaying`).
public protocol FallbackSpeaker: AnyObject {
    /// `words` spoken as one phrase in the voice's language; what was made so far once `cancellation` is raised.
    ///
    /// - Parameter startsRequest: whether the run is the first thing its request plays, so that the request's first
    ///   audio waits for the run's first samples; a run that plays after other audio may be made a little ahead and
    ///   measured before it plays.
    /// - Throws: `FallbackVoiceUnavailable` when it cannot speak at all.
    func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech
}
