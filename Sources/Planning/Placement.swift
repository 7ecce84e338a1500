// SPDX-License-Identifier: GPL-3.0-or-later
import SpeechCore

/// The last stage: makes each spoken segment with its voice's joins and its run's volume, speed and pitch, and
/// places the segments on the request's `Timeline`, which works out where each lands and the markers.
///
/// Holds the timeline, which holds one clip for a crossfade and what follows the fallback voice's speech while it
/// arrives (`Timeline`); it lets go of each segment when the renderer takes it.
final class Placement {
    private var timeline = Timeline()
    /// The pack's voices, in the pack's order.
    private let voices: [VoiceSettings]

    init(voices: [VoiceSettings]) { self.voices = voices }

    /// How many segments the timeline has placed so far.
    var placedCount: Int { timeline.placedCount }

    /// Places the next segment of the request.
    func append(_ segment: consuming PlanSegment) { timeline.append(segment) }

    /// Ends the request.
    func finish() { timeline.finish() }

    /// The next segment placed in the output (`Timeline.nextSegment()`).
    func nextSegment() -> TimedSegment? { timeline.nextSegment() }

    /// The next complete marker (`Timeline.nextMarker()`).
    func nextMarker() -> IndexedMarker? { timeline.nextMarker() }

    /// A clip, the fallback clip or the fallback voice's speech, spoken as `spoken` says and `pitchShift` semitones
    /// higher.
    func segment(
        _ kind: PlanSegment.Kind, frameCount: Int, text: String, _ sourceRange: Range<Int>, _ spoken: Spoken,
        pitchShift: Double = 0, fallback: PlanSegment.Fallback? = nil
    ) -> PlanSegment {
        let voice = voices[spoken.speaker]
        let pitch = spoken.pitchSemitones + pitchShift
        return PlanSegment(
            kind: kind, frameCount: frameCount, text: text, sourceRange: sourceRange, voice: voice.identifier,
            volumeDecibels: spoken.context.volumeDecibels, speed: spoken.speed,
            pitchSemitones: min(max(pitch, Prosody.pitchShifts.lowerBound), Prosody.pitchShifts.upperBound),
            edgeFadeFrames: voice.joins.edgeFadeFrames, crossfadeFrames: voice.joins.crossfadeFrames,
            fallback: fallback)
    }
}
