// SPDX-License-Identifier: GPL-3.0-or-later
import AudioFeatures
import AudioIO
import SpeechCore
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// How a voice speaks the words no clip covers, and the measurements of its clips the fallback voice is matched to:
// what `voicebank configure --fallback` sets, and what import, remove and configure keep current.
extension VoicePack {
    /// Sets how a voice speaks the words no clip covers. For `voice`, espeak-ng must have the voice's language; its
    /// clips' F0 is measured where it was not yet, and espeak-ng's variant, pitch and rate are chosen to sound like
    /// them (`chooseFallbackVoice`).
    ///
    /// ```swift
    /// try pack.setFallbackMode(.voice, voice: "com.example.ann")
    /// ```
    /// - Throws: `AuthoringError.fallbackLanguage` when espeak-ng has no voice for the voice's language (nothing
    ///   changes), `.audio` when espeak-ng cannot be loaded; `.store` with `.measurement` or `.unknownVoice`.
    public func setFallbackMode(_ mode: FallbackMode, voice identifier: String) throws(AuthoringError) {
        let voice: Voice
        do throws(VoicebankError) { voice = try resolveVoice(identifier, isChecked: false) } catch {
            throw .store(error)
        }
        try Self.checkFallbackMode(mode, of: voice)
        do throws(VoicebankError) {
            try database.transaction { () throws(VoicebankError) in
                try database.prepare("UPDATE voice SET fallback_mode = ? WHERE identifier = ?")
                    .bind(.text(mode.rawValue), .text(voice.identifier)).run()
                try updateMeasurements(voice: voice.identifier)
            }
        } catch {
            throw .store(error)
        }
    }

    /// Checks that a voice can speak in `mode`: for `voice` and `units`, that espeak-ng has the voice's language.
    ///
    /// - Throws: `AuthoringError.fallbackLanguage` when espeak-ng has no voice for the voice's language, `.audio` when
    ///   espeak-ng cannot be loaded.
    public static func checkFallbackMode(_ mode: FallbackMode, of voice: Voice) throws(AuthoringError) {
        guard mode.usesFallbackVoice else { return }
        let language = voice.primaryLanguages.first ?? ""
        let hasVoice: Bool
        do throws(AudioIOError) { hasVoice = try EspeakNG.shared.hasVoice(forLanguage: language) } catch {
            throw .audio(error)
        }
        guard hasVoice else { throw .fallbackLanguage(voice: voice.identifier, language: language) }
    }

    /// Chooses espeak-ng's settings for a voice's fallback voice anew from its clips as they are, in one transaction,
    /// with the voice's other measurements brought up to date: what an import or a removal does unless told not to.
    /// A voice whose fallback mode is not `voice` has nothing to choose.
    ///
    /// - Throws: `VoicebankError.measurement` when espeak-ng cannot speak or F0 cannot be measured, `.unknownVoice`.
    public func updateFallbackVoice(voice identifier: String) throws(VoicebankError) {
        try database.transaction { () throws(VoicebankError) in try updateMeasurements(voice: identifier) }
    }

    /// Brings a voice's measurements up to date after its clips or settings changed, inside the caller's
    /// transaction: the F0 of phrase clips not measured yet, the take features of clips not measured yet (those of a
    /// pack a program that cannot measure upgraded, or whose trimming changed), the medians of F0 and loudness, and,
    /// for a voice that speaks with the fallback voice, espeak-ng's settings chosen anew unless
    /// `isChoosingFallbackVoice` is false.
    func updateMeasurements(voice identifier: String, isChoosingFallbackVoice: Bool = true) throws(VoicebankError) {
        let voice = try resolveVoice(identifier, isChecked: false)
        _ = try measureTakeFeatures(voice: voice.identifier)
        let unmeasured = try database.prepare(
            """
            SELECT clip.id, substr(pcm, trim_start * 4 + 1, frame_count * 4) FROM clip
            JOIN voice ON voice.id = clip.voice_id
            WHERE voice.identifier = ? AND is_fallback = 0 AND is_f0_measured = 0
            """
        ).bind(.text(voice.identifier))
        let update = try database.prepare("UPDATE clip SET f0_hz = ?, is_f0_measured = 1 WHERE id = ?")
        while try unmeasured.step() {
            let f0 = try Self.medianF0(unmeasured.floats(1))
            try update.bind(f0.map { .real($0) }, .integer(unmeasured.int(0))).run()
        }
        for median in [Schema.medianF0Update, Schema.medianLoudnessUpdate] {
            try database.prepare(median + " WHERE identifier = ?").bind(.text(voice.identifier)).run()
        }
        guard isChoosingFallbackVoice, voice.fallbackMode.usesFallbackVoice else { return }
        let measured = try resolveVoice(voice.identifier, isChecked: false)
        let samplePhrases = try samplePhrases(voice: voice.identifier)
        let voiced = try database.prepare(
            """
            SELECT f0_hz FROM clip JOIN voice ON voice.id = clip.voice_id
            WHERE voice.identifier = ? AND is_fallback = 0 AND f0_hz IS NOT NULL
            """
        ).bind(.text(voice.identifier))
        var clipF0s: [Double] = []
        while try voiced.step() { clipF0s.append(voiced.double(0)) }
        let language = measured.primaryLanguages.first ?? ""
        let settings = try Self.chooseFallbackVoice(
            language: language, phrases: samplePhrases, medianF0Hz: measured.medianF0Hz, clipF0s: clipF0s)
        let spokenLoudness = try Self.spokenLoudness(
            language: language, texts: samplePhrases.map(\.text), settings: settings,
            playedAt: measured.settings.fallbackVoice)
        try database.prepare(
            """
            UPDATE voice SET fallback_variant = ?, fallback_pitch = ?, fallback_pitch_range = ?,
                fallback_words_per_minute = ?, fallback_pitch_shift = ?, fallback_spoken_loudness_lufs = ?
            WHERE identifier = ?
            """
        ).bind(
            .text(settings.variant), .integer(settings.pitch), .integer(settings.pitchRange),
            .integer(settings.wordsPerMinute), .real(settings.pitchShiftSemitones), spokenLoudness.map { .real($0) },
            .text(voice.identifier)
        ).run()
    }

    /// How loud espeak-ng speaks the voice's sample phrases with `settings`, as a run plays: the voice's loudness less
    /// the median of the gains that take each phrase there through the limiter under its ceiling (`played`), or the
    /// median of their own loudness for a voice with no loudness to match; `nil` when none can be measured. Each is
    /// measured alone, as a run is: a run that starts its request plays at this gain, a short one throughout, while a
    /// longer one is corrected by its own loudness as it goes (`LoudnessFollower`); any other run is measured itself.
    ///
    /// - Throws: `VoicebankError.measurement` when espeak-ng cannot speak the language or the loudness meter fails.
    static func spokenLoudness(
        language: String, texts: [String], settings: FallbackVoiceSettings, playedAt played: FallbackVoiceSettings
    ) throws(VoicebankError) -> Double? {
        var loudness: [Double] = []
        for samples in try speak(texts, language: language, settings: settings) {
            do throws(AudioIOError) {
                if let target = played.loudnessLUFS {
                    if let gain = try PeakLimiter.gainDecibels(
                        reaching: target, from: samples, ceilingDBTP: played.truePeakCeilingDBTP)
                    {
                        loudness.append(target - gain)
                    }
                } else if let own = try Loudness(samples, measuringTruePeak: false).clipLUFS {
                    loudness.append(own)
                }
            } catch {
                throw .measurement(error.description)
            }
        }
        guard !loudness.isEmpty else { return nil }
        return loudness.sorted()[(loudness.count - 1) / 2]
    }

    /// How many of a voice's phrases (first imported first) its fallback voice is matched on.
    static let samplePhraseCount = 12

    /// The phrases a voice's fallback voice is matched on, with their clips' frames.
    private func samplePhrases(voice identifier: String) throws(VoicebankError) -> [(text: String, frameCount: Int)] {
        let phrases = try database.prepare(
            """
            SELECT phrase, frame_count FROM clip JOIN voice ON voice.id = clip.voice_id
            WHERE voice.identifier = ? AND is_fallback = 0 ORDER BY clip.id LIMIT \(Self.samplePhraseCount)
            """
        ).bind(.text(identifier))
        var samplePhrases: [(text: String, frameCount: Int)] = []
        while try phrases.step() { samplePhrases.append((phrases.text(0), phrases.int(1))) }
        return samplePhrases
    }

    /// Measures how loud the fallback voice speaks (`spokenLoudness`) for each voice that speaks with it and has no
    /// such measurement (those of a pack from before schema 9), with the settings it has, inside the caller's
    /// transaction. A voice whose language espeak-ng cannot speak here is left unmeasured: its runs are then made
    /// whole and measured as they are spoken.
    ///
    /// - Throws: `VoicebankError.sqlite`.
    package func measureSpokenLoudness() throws(VoicebankError) {
        let unmeasured = try database.prepare(
            """
            SELECT identifier FROM voice WHERE fallback_mode IN ('voice', 'units') AND fallback_spoken_loudness_lufs IS NULL
            ORDER BY id
            """)
        var identifiers: [String] = []
        while try unmeasured.step() { identifiers.append(unmeasured.text(0)) }
        let update = try database.prepare("UPDATE voice SET fallback_spoken_loudness_lufs = ? WHERE identifier = ?")
        for identifier in identifiers {
            let voice = try resolveVoice(identifier, isChecked: false)
            guard
                let loudness = try? Self.spokenLoudness(
                    language: voice.primaryLanguages.first ?? "", texts: samplePhrases(voice: identifier).map(\.text),
                    settings: voice.fallbackVoice, playedAt: voice.settings.fallbackVoice)
            else { continue }
            try update.bind(.real(loudness), .text(identifier)).run()
        }
    }

    /// The median F0 of a clip's samples, in Hz; `nil` when no part of it is voiced.
    static func medianF0(_ samples: [Float]) throws(VoicebankError) -> Double? {
        do throws(AudioFeaturesError) { return try PitchTracker.medianFrequency(of: samples) } catch {
            throw .measurement(error.description)
        }
    }

    /// espeak-ng's variants tried for a voice: the language's own (a man's voice in most languages) and a woman's
    /// (espeak-ng speaks a variant it does not have as the language's own).
    static let fallbackVariants = ["", "f3"]

    /// The pitch ranges a fallback voice is given, from nearly monotone to half espeak-ng's normal (50): its
    /// intonation is made for a sentence spoken alone and swings far across a short run, so that above the top of this
    /// range a short run's median F0 strays more than 2 semitones from the base (heard on the default English voice's
    /// runs of 1 to 5 words).
    static let pitchRanges = 10...25

    /// espeak-ng's settings that sound most like a voice's clips, found by listening to espeak-ng speak the voice's
    /// own phrases, each on its own as the fallback voice speaks a run:
    ///
    /// - the rate that speaks them in the time the clips take;
    /// - the variant whose F0 at its normal pitch is nearest the clips' median (`medianF0Hz`);
    /// - the pitch range whose spread of F0 from phrase to phrase is the clips' (`clipF0s`, between quartiles),
    ///   within `pitchRanges`;
    /// - the base pitch whose median F0 over the phrases is nearest the clips', by halving 0…100, and a pitch shift
    ///   for what it does not reach (within 1 semitone it is left alone).
    ///
    /// Without phrases or F0, espeak-ng's own settings stand for what cannot be measured.
    /// - Throws: `VoicebankError.measurement` when espeak-ng cannot speak the language or F0 cannot be measured.
    static func chooseFallbackVoice(
        language: String, phrases: [(text: String, frameCount: Int)], medianF0Hz: Double?, clipF0s: [Double]
    ) throws(VoicebankError) -> FallbackVoiceSettings {
        var settings = FallbackVoiceSettings.standard
        guard !phrases.isEmpty else { return settings }
        let texts = phrases.map(\.text)
        // espeak-ng's time scales with its rate.
        let spokenFrames = try speak(texts, language: language, settings: settings).reduce(0) { $0 + $1.count }
        let clipFrames = phrases.reduce(0) { $0 + $1.frameCount }
        if clipFrames > 0 && spokenFrames > 0 {
            let rate = Double(settings.wordsPerMinute) * Double(spokenFrames) / Double(clipFrames)
            settings.wordsPerMinute = clamp(Int(rate.rounded()), FallbackVoiceSettings.wordsPerMinuteRange)
        }
        guard let target = medianF0Hz else { return settings }
        let distance = { (f0: Double?) in f0.map { abs(log2($0 / target)) } ?? .infinity }
        var best: (variant: String, f0: Double?, phraseF0s: [Double]) = ("", nil, [])
        for variant in fallbackVariants {
            var trial = settings
            trial.variant = variant
            let spoken = try speak(texts, language: language, settings: trial)
            let f0 = try medianF0(Array(spoken.joined()))
            if best.f0 == nil || distance(f0) < distance(best.f0) {
                var phraseF0s: [Double] = []
                for samples in spoken { if let f0 = try medianF0(samples) { phraseF0s.append(f0) } }
                best = (variant, f0, phraseF0s)
            }
        }
        guard best.f0 != nil else { return settings }
        settings.variant = best.variant
        // The variants spoke at espeak-ng's normal range; with too few phrases to tell a spread, the widest allowed.
        var range = Double(pitchRanges.upperBound)
        if let clipSpread = quartileSpread(clipF0s), let spokenSpread = quartileSpread(best.phraseF0s),
            spokenSpread > 0
        {
            range = Double(settings.pitchRange) * clipSpread / spokenSpread
        }
        settings.pitchRange = clamp(Int(range.rounded()), pitchRanges)
        var heard: [Int: Double?] = [:]
        func f0(pitch: Int) throws(VoicebankError) -> Double? {
            if let known = heard[pitch] { return known }
            var trial = settings
            trial.pitch = pitch
            let f0 = try medianF0(Array(speak(texts, language: language, settings: trial).joined()))
            heard[pitch] = .some(f0)
            return f0
        }
        var low = FallbackVoiceSettings.pitches.lowerBound
        var high = FallbackVoiceSettings.pitches.upperBound
        while high - low > 1 {
            let middle = (low + high) / 2
            if let f0 = try f0(pitch: middle), f0 < target { low = middle } else { high = middle }
        }
        let lowF0 = try f0(pitch: low)
        let highF0 = try f0(pitch: high)
        let (pitch, reached) = distance(lowF0) <= distance(highF0) ? (low, lowF0) : (high, highF0)
        settings.pitch = pitch
        if let reached {
            let shift = Prosody.semitones(from: reached, to: target)
            settings.pitchShiftSemitones = abs(shift) < 1 ? 0 : (shift * 10).rounded() / 10
        }
        return settings
    }

    /// How far apart the quartiles of `frequencies` are, in semitones; `nil` for fewer than four.
    private static func quartileSpread(_ frequencies: [Double]) -> Double? {
        guard frequencies.count >= 4 else { return nil }
        let sorted = frequencies.sorted()
        return Prosody.semitones(from: sorted[sorted.count / 4], to: sorted[sorted.count * 3 / 4])
    }

    private static func clamp(_ value: Int, _ range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    /// Each of `texts` spoken by espeak-ng with `settings`, trimmed as the fallback voice trims a run.
    private static func speak(
        _ texts: [String], language: String, settings: FallbackVoiceSettings
    ) throws(VoicebankError) -> [[Float]] {
        var spoken: [[Float]] = []
        for text in texts {
            do throws(AudioIOError) {
                let samples = try EspeakNG.shared.synthesize(
                    text, language: language, variant: settings.variant, pitch: settings.pitch,
                    pitchRange: settings.pitchRange, wordsPerMinute: settings.wordsPerMinute)
                spoken.append(Array(samples[ClipConditioning.playedRange(samples, trimming: .standard)]))
            } catch {
                throw .measurement(error.description)
            }
        }
        return spoken
    }
}
