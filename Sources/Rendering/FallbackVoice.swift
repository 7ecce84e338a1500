// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

/// The fallback voice of `FallbackMode.voice`: the words no clip covers spoken by espeak-ng in the voice's language,
/// with the variant, pitch and rate `voicebank configure` chose to sound like the voice's clips, played at their
/// loudness (`FallbackVoiceSettings`).
///
/// A run is trimmed of its silent ends as an import trims a clip (`Trimming.standard`) and played at the voice's
/// loudness like a clip under a loudness target, its peaks limited under the voice's true-peak ceiling where a gain
/// alone would pass it (`PeakLimiter`). Where `voicebank configure` measured how loud espeak-ng speaks at the voice's
/// settings (`FallbackVoiceSettings.spokenLoudnessLUFS`), or the voice has no loudness to match, espeak-ng speaks the
/// run on a thread of its own and it plays as its pieces arrive, a trimmed and limited look-ahead behind them
/// (`SynthesizedSpeech.arrivesWhilePlaying`). A run that starts its request plays at once, at the gain that measure
/// gives, corrected as its own loudness becomes known; any other run has the audio before it to be measured in, and
/// plays at the gain its first `heldSeconds` measure (`LoudnessFollower`). Otherwise the run is made whole and
/// measured before it plays. espeak-ng is loaded when the first run is spoken; a language it does not have
/// is found then, and later runs are refused at once with the same reason.
///
/// ```swift
/// let voice = FallbackVoice(language: "en-US", settings: settings.fallbackVoice)
/// let speech = try voice.speak("sunny with a high of", startsRequest: true, cancellation: Cancellation())
/// ```
public final class FallbackVoice: FallbackSpeaker {
    /// The BCP 47 tag it speaks.
    public let language: String
    public let settings: FallbackVoiceSettings
    /// Why it cannot speak, once a run has found that it never will.
    private var refusal: FallbackVoiceUnavailable?
    /// Whether espeak-ng was found to have the language, which a run spoken on a thread of its own cannot report.
    private var hasLanguage = false
    /// The thread runs are spoken on while they play, one after another, as espeak-ng speaks one at a time anyway.
    private static let speaking = WorkerThread()

    public init(language: String, settings: FallbackVoiceSettings) {
        self.language = language
        self.settings = settings
    }

    /// The gain in dB a run plays at when it is known before the run is spoken; `nil` when each run must be measured.
    var gainDecibelsBeforeSpeaking: Double? {
        guard let target = settings.loudnessLUFS else { return 0 }
        return settings.spokenLoudnessLUFS.map { target - $0 }
    }

    /// How much of a run that plays after other audio is made and measured before it plays: most runs whole, for
    /// espeak-ng speaks far faster than real time, so that is made well inside what plays before them.
    static let heldSeconds = 3.0

    /// - Throws: `FallbackVoiceUnavailable` naming espeak-ng's reason: the library missing, the language missing, a
    ///   call refused, or the loudness meter failing.
    public func speak(
        _ words: String, startsRequest: Bool, cancellation: Cancellation
    ) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech {
        if let refusal { throw refusal }
        do throws(AudioIOError) {
            guard let gain = gainDecibelsBeforeSpeaking else {
                return try speakWhole(words, cancellation: cancellation)
            }
            if !hasLanguage {
                guard try EspeakNG.shared.hasVoice(forLanguage: language) else {
                    throw AudioIOError.espeakLanguage(language: language)
                }
                hasLanguage = true
            }
            return SynthesizedSpeech(
                arriving: speakArriving(
                    words, gainDecibels: gain, heldSeconds: startsRequest ? 0 : Self.heldSeconds,
                    cancellation: cancellation),
                pitchSemitones: settings.pitchShiftSemitones)
        } catch {
            let refusal = FallbackVoiceUnavailable(reason: error.description)
            switch error {
            case .espeakUnavailable, .espeakLanguage: self.refusal = refusal
            default: break
            }
            throw refusal
        }
    }

    /// The run spoken on the speaking thread into a stream: trimmed, at `gainDecibels` corrected as the run's own
    /// loudness becomes known, or at the gain its first `heldSeconds` measure (`LoudnessFollower`), its peaks limited.
    /// A failure of espeak-ng once it has the language (a call refused) ends the run where it stopped.
    private func speakArriving(
        _ words: String, gainDecibels: Double, heldSeconds: Double, cancellation: Cancellation
    ) -> SpeechStream {
        let stream = SpeechStream()
        let settings = settings
        let language = language
        Self.speaking.run {
            var trimmer = ClipConditioning.Trimmer(.standard)
            // With a loudness to follow, the follower sets the gain and limits; without, the samples keep their level.
            var follower = settings.loudnessLUFS.map {
                LoudnessFollower(
                    targetLUFS: $0, gainDecibels: gainDecibels,
                    ceiling: PeakLimiter.sampleCeiling(underDBTP: settings.truePeakCeilingDBTP),
                    heldSeconds: heldSeconds)
            }
            func condition(_ samples: [Float]) -> [Float] {
                let trimmed = trimmer.process(samples)
                return follower?.process(trimmed) ?? trimmed
            }
            try? EspeakNG.shared.synthesize(
                words, language: language, variant: settings.variant, pitch: settings.pitch,
                pitchRange: settings.pitchRange, wordsPerMinute: settings.wordsPerMinute,
                isCancelled: { cancellation.isCancelled },
                receive: { stream.append(condition($0)) })
            let rest = trimmer.finish()
            stream.append((follower?.process(rest) ?? rest) + (follower?.finish() ?? []))
            stream.finish()
            // The next run's library is made fresh once this one is out, not while it is made.
            EspeakNG.shared.makeFresh()
        }
        return stream
    }

    /// The run made whole, trimmed, then measured and matched to the voice's loudness.
    private func speakWhole(_ words: String, cancellation: Cancellation) throws(AudioIOError) -> SynthesizedSpeech {
        // The next run's library is made fresh once this one is measured, not while it is.
        defer { EspeakNG.shared.makeFresh() }
        let synthesized = try EspeakNG.shared.synthesize(
            words, language: language, variant: settings.variant, pitch: settings.pitch,
            pitchRange: settings.pitchRange, wordsPerMinute: settings.wordsPerMinute,
            isCancelled: { cancellation.isCancelled })
        var samples = Array(synthesized[ClipConditioning.playedRange(synthesized, trimming: .standard)])
        var level = 0.0
        if let target = settings.loudnessLUFS, !samples.isEmpty {
            (samples, level) = try PeakLimiter.match(
                samples, loudnessLUFS: target, ceilingDBTP: settings.truePeakCeilingDBTP)
        }
        return SynthesizedSpeech(samples: samples, levelDecibels: level, pitchSemitones: settings.pitchShiftSemitones)
    }
}
