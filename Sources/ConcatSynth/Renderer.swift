// SPDX-License-Identifier: GPL-3.0-or-later
import Picture
import Planning
import Rendering
import SpeechCore

/// Renders a request by pull, like an Audio Unit render block: ask for up to N frames of 22050 Hz mono Float32, get
/// up to N and a flag when the request is complete. It plans as it pulls, so the first frames come out before later
/// sentences are matched.
///
/// ```swift
/// let renderer = try synthesizer.renderer(for: SpeechRequest(.text("Hello")))
/// var buffer = [Float](repeating: 0, count: 1024)
/// while true {
///     let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
///     play(buffer[..<pulled.frameCount])
///     if pulled.isComplete { break }
/// }
/// ```
public final class Renderer {
    /// What one pull produced.
    public struct Pull: Equatable, Sendable {
        /// Frames written at the start of the buffer.
        public var frameCount: Int
        /// The request is done (or cancelled): no frames will follow.
        public var isComplete: Bool

        /// The engine's pull as the door gives it: the one place the two meet.
        init(_ pull: Rendering.Renderer.Pull) {
            frameCount = pull.frameCount
            isComplete = pull.isComplete
        }
    }

    /// What a renderer keeps of what it played, besides the audio: for `joinReport` and `pictureSVG`.
    public struct Recording: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The samples and segments played, for `joinReport`.
        public static let joins = Recording(rawValue: 1)
        /// A picture of the render, for `pictureSVG`.
        public static let picture = Recording(rawValue: 2)
    }

    let pulling: Rendering.Renderer
    /// The voice the join report names: the synthesizer's starting voice.
    private let voice: String
    private var joinSamples: [Float]?
    private var joinSegments: [TimedSegment] = []
    private var picture: RenderPicture?

    init(_ pulling: Rendering.Renderer, voice: String, recording: Recording = []) {
        self.pulling = pulling
        self.voice = voice
        if recording.contains(.joins) { joinSamples = [] }
        if recording.contains(.picture) { picture = RenderPicture() }
    }

    /// Raised by `cancel()`, from any thread.
    public var cancellation: Cancellation { pulling.cancellation }

    /// Frames rendered so far.
    public var framePosition: Int { pulling.framePosition }

    /// The markers the last pull reached (their first frame was written, or the request ended), in the order they
    /// completed; `IndexedMarker.index` gives frame order (`MarkerSequence` restores it).
    public var reachedMarkers: [IndexedMarker] { pulling.reachedMarkers }

    /// The request is done: every frame rendered, or cancelled.
    public var isComplete: Bool { pulling.isComplete }

    /// Stops the request: the next pull returns no frames and `isComplete`. Safe from any thread; or hand
    /// `cancellation` to the thread that decides.
    public func cancel() { pulling.cancel() }

    /// Fills up to `buffer.count` frames with the next frames of the request.
    ///
    /// - Throws: `ConcatSynthError`: what planning meets as it goes (`.noFallbackClip`, a damaged clip), or an
    ///   `<audio>` file that can no longer be read (`.audio`).
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(ConcatSynthError) -> Pull {
        let pulled: Rendering.Renderer.Pull
        do { pulled = try pulling.render(into: buffer) } catch { throw ConcatSynthError(error) }
        if joinSamples != nil || picture != nil {
            let frames = UnsafeBufferPointer(rebasing: buffer[..<pulled.frameCount])
            if joinSamples != nil {
                joinSamples! += frames
                joinSegments += pulling.startedSegments
            }
            picture?.add(frames, pulledFrom: pulling)
        }
        return Pull(pulled)
    }

    /// With `.joins` recorded: a line for each take played (its phrase, take and why it was chosen), then the
    /// largest sample step at a join between clips against the largest inside the audio (a ratio of 1 or less is a
    /// clean join), as far as the render went. Empty without.
    public var joinReport: [String] {
        guard let joinSamples else { return [] }
        let played = RenderPlan(voice: voice, segments: joinSegments)
        let measure = JoinClickMeasure(
            samples: joinSamples, joinFrames: played.joinFrames, fallbackVoiceJoinFrames: played.fallbackVoiceJoinFrames
        )
        return played.takeReport + ["\(measure)"]
    }

    /// With `.picture` recorded: the render as far as it went, drawn as SVG (the waveform, each phrase's words with
    /// fallbacks in orange, pauses, marks, sentences and rough joins); `nil` without.
    public var pictureSVG: String? { picture?.svg }
}
