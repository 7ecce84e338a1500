// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore

/// One piece of a request as the planner decides it: a clip, a fallback clip, the fallback voice's speech, silence,
/// an `<audio>` file, or a point with no frames. Its length in the output is the timeline's to work out
/// (`TimedSegment`).
public struct PlanSegment: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// A take of a phrase the voice has (in spell mode, a letter of a word no phrase covers).
        case phrase(ClipTake)
        /// The voice's fallback clip, standing for words no phrase covers.
        case fallback(ClipTake)
        /// The fallback voice's speech of words no phrase covers, made when the words were planned; or, in the units
        /// fallback, a word built from phone-pair units of the voice's takes.
        case synthesized(SynthesizedSpeech)
        /// A part of a take cut at its aligned word boundaries: words no phrase covers that the take says whole
        /// (`FallbackMode.units`).
        case slice(ClipTake)
        /// Silence: a `<break>`, or the pause after a sentence or paragraph.
        case silence
        /// A `<mark>`: a named point in the audio.
        case mark(String)
        /// An `<audio>` file the sandbox allowed, by its real path; decoded when it is rendered.
        case audio(path: String)
        /// Where an `<s>` or `<p>` begins and ends.
        case structureStart(StructureKind)
        case structureEnd(StructureKind)
    }

    public var kind: Kind
    /// Frames of the source at normal speed: the take's, the silence's, the `<audio>` file's once converted.
    public var frameCount: Int
    /// The words spoken (tokens joined by spaces), what the fallback stands for, or the mark's name.
    public var text: String
    /// UTF-16 offsets in the request of what this segment speaks; `nil` for silence.
    public var sourceRange: Range<Int>?
    /// The identifier of the voice that speaks it; empty for silence and points.
    public var voice: String
    /// Volume from `prosody` and `emphasis`, in dB; `-infinity` for silent.
    public var volumeDecibels: Double
    /// Tempo: 1 plays the source as it is; 2 plays it in half the time, keeping its pitch.
    public var speed: Double
    /// Pitch shift in semitones, keeping the duration.
    public var pitchSemitones: Double
    /// Frames the clip fades in and out over at edges that do not crossfade, in the output.
    public var edgeFadeFrames: Int
    /// Frames the voice crossfades a join between two of its clips over; 0 for none.
    public var crossfadeFrames: Int
    /// The words no clip covers that it speaks, and how; `nil` for a phrase's own clip, silence and points.
    public var fallback: Fallback?
    /// Why a phrase plays its take: its place in the sentence and the take's costs there; `nil` for a phrase with one
    /// take that nothing before it waited on, and for every other kind.
    public var selection: TakeSelection?

    /// Words no clip covers that a segment speaks, and how.
    public struct Fallback: Equatable, Sendable {
        public var mode: FallbackMode
        /// The whole run of words no clip covers that the segment speaks, or speaks a part of.
        public var words: String
        /// Whether the segment is the run's first: a spelled run has a segment for each character, and each run is
        /// reported once.
        public var startsRun: Bool

        public init(mode: FallbackMode, words: String, startsRun: Bool = true) {
            self.mode = mode
            self.words = words
            self.startsRun = startsRun
        }
    }

    public init(
        kind: Kind, frameCount: Int = 0, text: String = "", sourceRange: Range<Int>? = nil, voice: String = "",
        volumeDecibels: Double = 0, speed: Double = 1, pitchSemitones: Double = 0,
        edgeFadeFrames: Int = Joins.standard.edgeFadeFrames, crossfadeFrames: Int = 0, fallback: Fallback? = nil,
        selection: TakeSelection? = nil
    ) {
        self.kind = kind
        self.frameCount = frameCount
        self.text = text
        self.sourceRange = sourceRange
        self.voice = voice
        self.volumeDecibels = volumeDecibels
        self.speed = speed
        self.pitchSemitones = pitchSemitones
        self.edgeFadeFrames = edgeFadeFrames
        self.crossfadeFrames = crossfadeFrames
        self.fallback = fallback
        self.selection = selection
    }

    /// Whether it is a clip: a phrase's take, a fallback clip, the fallback voice's speech or a slice of a take, which play
    /// as one.
    public var isClip: Bool {
        switch kind {
        case .phrase, .fallback, .synthesized, .slice: return true
        default: return false
        }
    }

    /// Whether it has frames of its own in the output (a clip, silence, an `<audio>` file), as against a point.
    public var isSounding: Bool {
        switch kind {
        case .phrase, .fallback, .synthesized, .slice, .silence, .audio: return true
        case .mark, .structureStart, .structureEnd: return false
        }
    }

    /// The take a phrase or fallback clip plays, or the part of one a slice plays; `nil` for every other kind.
    public var take: ClipTake? {
        switch kind {
        case .phrase(let take), .fallback(let take), .slice(let take): take
        default: nil
        }
    }

    /// Whether it is the fallback voice's speech arriving while it plays: its length is known once the run is spoken.
    public var isArriving: Bool {
        if case .synthesized(let speech) = kind { return speech.arrivesWhilePlaying }
        return false
    }

    /// Whether it is the fallback voice's speech.
    public var isSynthesized: Bool {
        if case .synthesized = kind { return true }
        return false
    }

    /// Whether the renderer changes its samples' tempo or pitch, rather than copying them.
    public var isStretched: Bool { speed != 1 || pitchSemitones != 0 }

    /// The linear factor samples are multiplied by: 10^(dB/20) of the volume and the clip's loudness level, 0
    /// for silent.
    public var gain: Float {
        let level: Double
        switch kind {
        case .phrase(let take), .fallback(let take), .slice(let take): level = take.levelDecibels
        case .synthesized(let speech): level = speech.levelDecibels
        default: level = 0
        }
        return Float(Decibels.amplitude(volumeDecibels + level))
    }

    public var description: String {
        var line: String
        switch kind {
        case .phrase(let take): line = "phrase \(take) \"\(text)\""
        case .fallback(let take): line = "fallback \(take) for \"\(text)\""
        case .synthesized where fallback?.mode == .units: line = "units for \"\(text)\""
        case .synthesized: line = "fallback voice for \"\(text)\""
        case .slice(let take):
            line =
                "slice #\(take.clipID) frames \(take.firstFrame)..<\(take.firstFrame + take.frameCount) for \"\(text)\""
        case .silence: line = "silence"
        case .mark(let name): line = "mark \"\(name)\""
        case .audio: line = "audio \"\(text)\""
        case .structureStart(let structure): line = "\(structure.rawValue) start"
        case .structureEnd(let structure): line = "\(structure.rawValue) end"
        }
        if let fallback, fallback.mode == .spell { line += " spelling \"\(fallback.words)\"" }
        if frameCount > 0 { line += " \(frameCount) frames" }
        if !voice.isEmpty { line += " (\(voice))" }
        if volumeDecibels != 0 { line += " \(volumeDecibels == -.infinity ? "silent" : "\(volumeDecibels) dB")" }
        if speed != 1 { line += " speed \(speed)" }
        if pitchSemitones != 0 { line += " pitch \(pitchSemitones < 0 ? "" : "+")\(pitchSemitones)st" }
        if let selection { line += " [\(selection)]" }
        return line
    }
}

/// A segment placed in the output by the timeline: where it starts and how long it lasts there.
@dynamicMemberLookup
public struct TimedSegment: Equatable, Sendable, CustomStringConvertible {
    public var segment: PlanSegment
    /// Its first frame in the output.
    public var frame: Int
    /// Output frames it lasts: its source's frames, divided by the speed where it follows the rate.
    public var frameCount: Int
    /// Output frames its end overlaps the next clip's start (a crossfade); 0 when the next is no clip.
    public var overlapWithNext: Int
    /// Output frames the previous clip's end overlaps its start.
    public var overlapWithPrevious: Int

    public init(
        segment: PlanSegment, frame: Int, frameCount: Int, overlapWithNext: Int = 0, overlapWithPrevious: Int = 0
    ) {
        self.segment = segment
        self.frame = frame
        self.frameCount = frameCount
        self.overlapWithNext = overlapWithNext
        self.overlapWithPrevious = overlapWithPrevious
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<PlanSegment, Value>) -> Value { segment[keyPath: keyPath] }

    /// The frame after its last.
    public var endFrame: Int { frame + frameCount }

    /// The same segment with its length, once the fallback voice's speech placed while it arrived is whole (waits for
    /// it); any other segment as it is.
    public func settled() -> TimedSegment {
        guard case .synthesized(let speech) = segment.kind, speech.arrivesWhilePlaying else { return self }
        var settled = self
        settled.segment.kind = .synthesized(speech.whole())
        settled.segment.frameCount = speech.samples.count
        settled.frameCount = settled.segment.frameCount
        return settled
    }

    /// `@frame +frames`, then the segment; `crossfade N` where it overlaps the next.
    public var description: String {
        var line = "@\(frame) \(segment)"
        if frameCount != segment.frameCount { line += " → \(frameCount) frames" }
        if overlapWithNext > 0 { line += " crossfade \(overlapWithNext)" }
        return line
    }
}

/// A whole request collected from its stream: its segments placed in the output, its markers, its warnings.
///
/// Rendering never needs it (the renderer pulls from the stream); it is the form to print and compare.
public struct RenderPlan: Equatable, Sendable, CustomStringConvertible {
    /// The identifier of the voice the request starts with.
    public var voice: String
    public var segments: [TimedSegment]
    /// In frame order; where several start at one frame, the enclosing one first.
    public var markers: [Marker]
    /// The SSML reader's and planner's warnings (lenient mode, unknown voice, …), one sentence each.
    public var warnings: [String]

    public init(voice: String, segments: [TimedSegment], markers: [Marker] = [], warnings: [String] = []) {
        self.voice = voice
        self.segments = segments
        self.markers = markers
        self.warnings = warnings
    }

    /// Places `segments` on a timeline of their own, as a planner would: for tests and tools that make plans
    /// by hand.
    public init(voice: String, planning segments: [PlanSegment], warnings: [String] = []) {
        var timeline = Timeline()
        var timed: [TimedSegment] = []
        var markers = MarkerSequence()
        for segment in segments { timeline.append(segment) }
        timeline.finish()
        while let segment = timeline.nextSegment() { timed.append(segment.settled()) }
        while let marker = timeline.nextMarker() { markers.add(marker) }
        self.init(voice: voice, segments: timed, markers: markers.takeReady(), warnings: warnings)
    }

    /// The output's length.
    public var frameCount: Int { segments.map(\.endFrame).max() ?? 0 }

    /// Output frames where one sounding segment gives way to the next: where a join could click.
    public var joinFrames: [Int] {
        segments.filter { $0.segment.isSounding && $0.frameCount > 0 }.dropFirst().map(\.frame)
    }

    /// The joins that lead into or out of the fallback voice's speech: where it meets the clips.
    public var fallbackVoiceJoinFrames: [Int] {
        let sounding = segments.filter { $0.segment.isSounding && $0.frameCount > 0 }
        return zip(sounding, sounding.dropFirst()).filter { $0.0.isSynthesized || $0.1.isSynthesized }.map(\.1.frame)
    }

    /// One line for each phrase that had a choice of takes: where it plays, its words, the take (with its tag) and
    /// why: `@11025 "york": take #23 final, place final, 1 of 4 takes, target 0.00, join 0.12`.
    public var takeReport: [String] {
        segments.compactMap { timed in
            guard let take = timed.take, let selection = timed.selection else { return nil }
            return "@\(timed.frame) \"\(timed.text)\": take \(take), \(selection)"
        }
    }

    /// The first segment of each run of words no clip covered (`PlanSegment.Fallback.startsRun`): one a run, however
    /// it was spoken.
    public var fallbacks: [TimedSegment] {
        segments.filter { $0.segment.fallback?.startsRun == true }
    }

    public var description: String {
        (["plan for \(voice): \(frameCount) frames"] + segments.map { "  \($0)" }).joined(separator: "\n")
    }
}
