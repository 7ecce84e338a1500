// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// The words spoken by the voice's fallback voice (espeak-ng, through `FallbackSpeaker`), each run whole as one
/// phrase (`FallbackMode.voice`). It declines a run, with a warning, when the voice has no fallback voice or it
/// cannot speak (a language espeak-ng does not have): the fallback clip speaks it then.
final class FallbackSpeech: FallbackStrategy {
    /// The voice's identifier, for the warning.
    let voice: String
    let speaker: (any FallbackSpeaker)?
    /// The voice's crossfade: a run that crossfades is placed once it is whole.
    let crossfadeFrames: Int

    init(voice: String, speaker: (any FallbackSpeaker)?, crossfadeFrames: Int) {
        self.voice = voice
        self.speaker = speaker
        self.crossfadeFrames = crossfadeFrames
    }

    var name: String { "voice" }

    func speak(_ run: UncoveredRun, to output: FallbackOutput) throws {
        let reason: String
        if let speaker {
            do throws(FallbackVoiceUnavailable) {
                var speech = try speaker.speak(
                    run.words, startsRequest: output.startsRequest, cancellation: output.cancellation)
                // A run that is stretched, shifted in pitch or crossfaded is placed once it is whole and its length
                // known; otherwise as it arrives (`Timeline`).
                if run.spoken.speed != 1 || run.spoken.pitchSemitones + speech.pitchSemitones != 0
                    || crossfadeFrames > 0
                {
                    speech = speech.whole()
                }
                output.note(run, "fallback voice, \(speech.arrivesWhilePlaying ? "placed as it arrives" : "whole")")
                output.place(
                    output.segment(
                        .synthesized(speech), frameCount: speech.arrivesWhilePlaying ? 0 : speech.samples.count,
                        text: run.words, run.sourceRange, run.spoken, pitchShift: speech.pitchSemitones,
                        fallback: .init(mode: .voice, words: run.words)))
                return
            } catch {
                reason = error.reason
            }
        } else {
            reason = "it has no fallback voice"
        }
        output.warn(
            "the fallback voice cannot speak for \(voice) (\(reason)); its fallback clip speaks the words no clip "
                + "covers")
        try output.decline(run, reason: reason)
    }
}
