import Voicebank

/// Where the renderer gets a clip's samples: a clip index reads them from the voice pack.
public protocol ClipAudioSource: AnyObject {
    /// Copies frames `start…` of what `take` plays into `buffer`, as many as fit; returns the frames copied
    /// (fewer where the take ends).
    func readRenderReadyPCM(_ take: ClipTake, from start: Int, into buffer: UnsafeMutableBufferPointer<Float>) throws
        -> Int
}

extension ClipIndex: ClipAudioSource {}

/// Renders a plan by pull, like an Audio Unit render block: ask for frames until the request is complete.
///
/// Each pull reads the frames it needs of the current clip straight into the caller's buffer, so the first
/// frames are out before later clips are read and the audio is copied once. A crossfade reads the outgoing
/// clip's tail into one small buffer made up front; nothing is allocated per pull or per clip.
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
    /// The outgoing clip's tail during a crossfade.
    private let tail: UnsafeMutableBufferPointer<Float>
    private var segmentIndex = 0
    /// Frames of the current segment already written.
    private var segmentPosition = 0
    private var isCancelled = false

    public init(plan: RenderPlan, audio: ClipAudioSource) {
        self.plan = plan
        self.markers = plan.markers
        self.audio = audio
        var steps: [Step] = []
        var previousClip: Int?
        for (index, segment) in plan.segments.enumerated() {
            var step = Step(segment)
            switch segment.kind {
            case .phrase, .fallback:
                if let previous = previousClip, case .clip(let take) = steps[previous].source,
                    plan.segments[previous].overlapWithNext > 0
                {
                    step.crossfade = Crossfade(
                        outgoing: take, outgoingGain: steps[previous].gain,
                        length: plan.segments[previous].overlapWithNext)
                    step.fadeIn = 0
                }
                previousClip = index
            case .silence, .audio:
                previousClip = nil
            case .mark, .structureStart, .structureEnd:
                break
            }
            steps.append(step)
        }
        self.steps = steps
        tail = .allocate(capacity: max(1, plan.segments.map(\.overlapWithNext).max() ?? 0))
    }

    deinit { tail.deallocate() }

    /// What a pull needs of a segment: no strings to retain and no gain to work out on every pull.
    private struct Step {
        enum Source {
            case clip(ClipTake)
            case audio(index: Int)
            case silence
        }

        var source: Source
        /// Frames the segment writes itself: all but the crossfade the next clip takes over.
        var ownFrameCount: Int
        /// Frames the clip plays in all.
        var clipFrameCount: Int
        var gain: Float
        var fadeIn: Int
        var fadeOut: Int
        /// The previous clip this one fades in over, if any.
        var crossfade: Crossfade?

        init(_ segment: PlanSegment) {
            switch segment.kind {
            case .phrase(let take), .fallback(let take): source = .clip(take)
            case .audio(let index): source = .audio(index: index)
            case .silence, .mark, .structureStart, .structureEnd: source = .silence
            }
            ownFrameCount = segment.frameCount - segment.overlapWithNext
            clipFrameCount = segment.frameCount
            gain = segment.gain
            fadeIn = segment.edgeFadeFrames
            fadeOut = segment.overlapWithNext == 0 ? segment.edgeFadeFrames : 0
        }
    }

    private struct Crossfade {
        var outgoing: ClipTake
        var outgoingGain: Float
        var length: Int
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
                    let count = min(step.ownFrameCount - position, buffer.count - written)
                    let destination = UnsafeMutableBufferPointer(rebasing: buffer[written..<written + count])
                    switch step.source {
                    case .clip(let take):
                        try renderClip(take, step: step, position: position, into: destination)
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
                    if position == step.ownFrameCount {
                        index += 1
                        position = 0
                    }
                }
                // Step over what has no frames left (marks, structure ends), so the pull that writes the last
                // frames already says the request is complete.
                while index < steps.count && steps[index].ownFrameCount == position {
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
        return Pull(
            frameCount: written, isComplete: isCancelled || index == steps.count, markers: firstMarker..<nextMarker)
    }

    private func renderClip(
        _ take: ClipTake, step: Step, position: Int, into destination: UnsafeMutableBufferPointer<Float>
    ) throws {
        let read = try audio.readRenderReadyPCM(take, from: position, into: destination)
        // A pack's frame count and blob agree; should they not, silence pads rather than stale samples.
        if read < destination.count { RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: destination[read...])) }
        RenderKernel.fadeEdges(
            destination, clipFrameOffset: position, clipFrameCount: step.clipFrameCount, fadeIn: step.fadeIn,
            fadeOut: step.fadeOut)
        RenderKernel.applyGain(step.gain, to: destination)
        guard let crossfade = step.crossfade, position < crossfade.length else { return }
        // The first frames mix in the previous clip's tail, which the previous step left unwritten.
        let mixed = min(destination.count, crossfade.length - position)
        let outgoing = UnsafeMutableBufferPointer(rebasing: tail[0..<mixed])
        let tailStart = crossfade.outgoing.frameCount - crossfade.length + position
        let tailRead = try audio.readRenderReadyPCM(crossfade.outgoing, from: tailStart, into: outgoing)
        if tailRead < mixed { RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: outgoing[tailRead...])) }
        RenderKernel.crossfade(
            UnsafeMutableBufferPointer(rebasing: destination[0..<mixed]), outgoing: UnsafeBufferPointer(outgoing),
            outgoingGain: crossfade.outgoingGain, position: position, length: crossfade.length)
    }
}
