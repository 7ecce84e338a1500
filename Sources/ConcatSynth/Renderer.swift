import Voicebank

/// Where the renderer gets a clip's samples: a clip index reads them from the voice pack.
public protocol ClipAudioSource: AnyObject {
    /// Copies the render-ready samples of `clipID` from frame `start` on into `buffer`, as many as fit; returns
    /// the frames copied (fewer where the clip ends).
    func readRenderReadyPCM(clipID: Int, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int
}

extension ClipIndex: ClipAudioSource {}

/// Renders a plan by pull, like an Audio Unit render block: ask for frames until the request is complete.
///
/// Each pull reads the frames it needs of the current clip straight into the caller's buffer, so the first
/// frames are out before later clips are read, the audio is copied once, and nothing is allocated, per pull
/// or per clip.
///
/// ```swift
/// let renderer = Renderer(plan: plan, audio: index)
/// var buffer = [Float](repeating: 0, count: 4096)
/// while true {
///     let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
///     output.append(contentsOf: buffer[..<pulled.frameCount])
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
        /// Indices in `Renderer.markers` of the markers whose first frame this pull wrote (the last pull also
        /// carries those at the very end, such as a closing `<mark>`).
        public var markers: Range<Int>

        public init(frameCount: Int, isComplete: Bool, markers: Range<Int>) {
            self.frameCount = frameCount
            self.isComplete = isComplete
            self.markers = markers
        }
    }

    public let plan: RenderPlan
    /// The plan's markers, in frame order; each pull says which of them it reached.
    public let markers: [Marker]
    private var nextMarker = 0
    private let audio: ClipAudioSource
    /// The plan's segments as the kernel needs them, worked out once.
    private let steps: [Step]
    private var segmentIndex = 0
    /// Frames of the current segment already written.
    private var segmentPosition = 0
    private var isCancelled = false

    public init(plan: RenderPlan, audio: ClipAudioSource) {
        self.plan = plan
        self.markers = plan.markers
        self.audio = audio
        steps = plan.segments.map(Step.init)
    }

    /// What a pull needs of a segment: no strings to retain and no gain to work out on every pull.
    private struct Step {
        enum Source {
            case clip(id: Int)
            case audio(index: Int)
            case silence
        }

        var source: Source
        var frameCount: Int
        var gain: Float

        init(_ segment: PlanSegment) {
            switch segment.kind {
            case .phrase(let take), .fallback(let take): source = .clip(id: take.clipID)
            case .audio(let index): source = .audio(index: index)
            case .silence, .mark, .structureStart, .structureEnd: source = .silence
            }
            frameCount = segment.frameCount
            gain = segment.gain
        }
    }

    /// The request is done: every frame rendered, or cancelled.
    public var isComplete: Bool { isCancelled || segmentIndex == steps.count }

    /// Frames rendered so far.
    public private(set) var framePosition = 0

    /// Stops the request: the next pull returns no frames and `isComplete`.
    public func cancel() { isCancelled = true }

    /// Fills up to `buffer.count` frames with the next frames of the request.
    ///
    /// - Throws: what the clip source throws when a clip cannot be read (`VoicebankError`).
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Pull {
        var written = 0
        // Locals, not the properties, in the loop: no exclusivity checks per step.
        var index = segmentIndex
        var position = segmentPosition
        defer {
            segmentIndex = index
            segmentPosition = position
        }
        if !isCancelled {
            try steps.withUnsafeBufferPointer { steps in
                while written < buffer.count && index < steps.count {
                    let step = steps[index]
                    let count = min(step.frameCount - position, buffer.count - written)
                    let destination = UnsafeMutableBufferPointer(rebasing: buffer[written..<written + count])
                    switch step.source {
                    case .clip(let clipID):
                        let read = try audio.readRenderReadyPCM(clipID: clipID, from: position, into: destination)
                        // A pack's frame count and blob agree; should they not, silence pads rather than stale samples.
                        if read < count { RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: destination[read...])) }
                        RenderKernel.fadeEdges(destination, clipFrameOffset: position, clipFrameCount: step.frameCount)
                        RenderKernel.applyGain(step.gain, to: destination)
                    case .audio(let audioIndex):
                        plan.audio[audioIndex].withUnsafeBufferPointer { samples in
                            RenderKernel.copy(
                                UnsafeBufferPointer(rebasing: samples[position..<position + count]), gain: step.gain,
                                into: destination)
                        }
                    case .silence:
                        RenderKernel.silence(destination)
                    }
                    written += count
                    position += count
                    if position == step.frameCount {
                        index += 1
                        position = 0
                    }
                }
                // Step over what has no frames left (marks, structure ends), so the pull that writes the last
                // frames already says the request is complete.
                while index < steps.count && steps[index].frameCount == position {
                    index += 1
                    position = 0
                }
            }
        }
        framePosition += written
        let firstMarker = nextMarker
        let isFinished = !isCancelled && index == steps.count
        while nextMarker < markers.count && (markers[nextMarker].frame < framePosition || isFinished) {
            nextMarker += 1
        }
        return Pull(frameCount: written, isComplete: isCancelled || index == steps.count, markers: firstMarker..<nextMarker)
    }
}
