import AudioIO
import SpeechCore

/// The fallback voice of `FallbackMode.voice`: the words no clip covers spoken by espeak-ng in the voice's language,
/// with the variant, pitch and rate `voicebank configure` chose to sound like the voice's clips, played at their
/// loudness (`FallbackVoiceSettings`).
///
/// Each run is synthesized whole, trimmed of its silent ends as an import trims a clip (`Trimming.standard`) and
/// measured, so that it plays at the voice's loudness like a clip under a loudness target, its peaks limited under the
/// voice's true-peak ceiling where a gain alone would pass it (`PeakLimiter`). Whole, though espeak-ng hands over its
/// first 50 ms far sooner (docs/benchmarks.md, item 12): the timeline places a segment of known length, and the
/// limiter looks at the whole run. espeak-ng is loaded when
/// the first run is spoken; a language it does not have is found then, and later runs are refused at once with the
/// same reason.
///
/// ```swift
/// let voice = FallbackVoice(language: "en-US", settings: settings.fallbackVoice)
/// let speech = try voice.speak("sunny with a high of", cancellation: Cancellation())
/// ```
public final class FallbackVoice: FallbackSpeaker {
    /// The BCP 47 tag it speaks.
    public let language: String
    public let settings: FallbackVoiceSettings
    /// Why it cannot speak, once a run has found that it never will.
    private var refusal: FallbackVoiceUnavailable?

    public init(language: String, settings: FallbackVoiceSettings) {
        self.language = language
        self.settings = settings
    }

    /// - Throws: `FallbackVoiceUnavailable` naming espeak-ng's reason: the library missing, the language missing, a
    ///   call refused, or the loudness meter failing.
    public func speak(_ words: String, cancellation: Cancellation) throws(FallbackVoiceUnavailable) -> SynthesizedSpeech
    {
        if let refusal { throw refusal }
        // The next run's library is made fresh once this one is measured, not while it is.
        defer { EspeakNG.shared.makeFresh() }
        do throws(AudioIOError) {
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
            return SynthesizedSpeech(
                samples: samples, levelDecibels: level, pitchSemitones: settings.pitchShiftSemitones)
        } catch {
            let refusal = FallbackVoiceUnavailable(reason: error.description)
            switch error {
            case .espeakUnavailable, .espeakLanguage: self.refusal = refusal
            default: break
            }
            throw refusal
        }
    }
}
