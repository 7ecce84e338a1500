import Voicebank

/// Where the renderer gets a clip's samples: a clip index reads them from the voice pack.
public protocol ClipAudioSource: AnyObject {
    /// Copies the frames `take` plays into `buffer` (large enough for them); returns the frames.
    func readRenderReadyPCM(_ take: ClipTake, into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int
}

extension ClipIndex: ClipAudioSource {}

/// Renders a plan by pull, like an Audio Unit render block: ask for frames until the request is complete.
///
/// Each clip is read from the pack when the output reaches it, so the first frames are out before later clips
/// are read. Two clip buffers, as long as the plan's longest clip, are allocated up front (a crossfade mixes the
/// end of one clip into the start of the next); a pull allocates nothing.
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
    /// Clip segments alternate between the two buffers, so a clip's tail is still there for the next to mix.
    private var buffers: (UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>)
    private var loadedSegment: (Int?, Int?) = (nil, nil)
    /// Per segment: which buffer a clip uses, the clip segment before it that it crossfades with, and how many
    /// frames it writes of its own (all but the crossfade the next clip takes).
    private let bufferIndex: [Int]
    private let crossfadeFrom: [Int?]
    private let ownFrameCount: [Int]
    private var segmentIndex = 0
    /// Frames of the current segment already written.
    private var segmentPosition = 0
    private var isCancelled = false

    public init(plan: RenderPlan, audio: ClipAudioSource) {
        self.plan = plan
        self.markers = plan.markers
        self.audio = audio
        let capacity = max(1, plan.longestClipFrameCount)
        buffers = (.allocate(capacity: capacity), .allocate(capacity: capacity))
        var bufferIndex: [Int] = []
        var crossfadeFrom: [Int?] = []
        var clipCount = 0
        var previousClip: Int?
        for (index, segment) in plan.segments.enumerated() {
            bufferIndex.append(clipCount % 2)
            switch segment.kind {
            case .phrase, .fallback:
                crossfadeFrom.append(previousClip.flatMap { plan.segments[$0].overlapWithNext > 0 ? $0 : nil })
                clipCount += 1
                previousClip = index
            case .silence, .audio:
                crossfadeFrom.append(nil)
                previousClip = nil
            case .mark, .structureStart, .structureEnd:
                crossfadeFrom.append(nil)
            }
        }
        self.bufferIndex = bufferIndex
        self.crossfadeFrom = crossfadeFrom
        ownFrameCount = plan.segments.map { $0.frameCount - $0.overlapWithNext }
    }

    deinit {
        buffers.0.deallocate()
        buffers.1.deallocate()
    }

    /// The request is done: every frame rendered, or cancelled.
    public var isComplete: Bool { isCancelled || segmentIndex == plan.segments.count }

    /// Frames rendered so far.
    public private(set) var framePosition = 0

    /// Stops the request: the next pull returns no frames and `isComplete`.
    public func cancel() { isCancelled = true }

    /// Fills up to `buffer.count` frames with the next frames of the request.
    ///
    /// - Throws: what the clip source throws when a clip cannot be read (`VoicebankError`).
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Pull {
        var written = 0
        while written < buffer.count && !isComplete {
            let segment = plan.segments[segmentIndex]
            let remaining = ownFrameCount[segmentIndex] - segmentPosition
            guard remaining > 0 else {
                advance()
                continue
            }
            let count = min(remaining, buffer.count - written)
            let destination = UnsafeMutableBufferPointer(rebasing: buffer[written..<written + count])
            switch segment.kind {
            case .phrase(let take), .fallback(let take):
                try renderClip(take, segment: segment, count: count, into: destination)
            case .audio(let index):
                plan.audio[index].withUnsafeBufferPointer { samples in
                    RenderKernel.copy(
                        UnsafeBufferPointer(rebasing: samples[segmentPosition..<segmentPosition + count]),
                        gain: segment.gain, into: destination)
                }
            case .silence, .mark, .structureStart, .structureEnd:
                RenderKernel.silence(destination)
            }
            written += count
            segmentPosition += count
            if segmentPosition == ownFrameCount[segmentIndex] { advance() }
        }
        // Step over what has no frames left (marks, structure ends), so the pull that writes the last frames
        // already says the request is complete.
        while !isComplete && ownFrameCount[segmentIndex] == segmentPosition { advance() }
        framePosition += written
        let firstMarker = nextMarker
        let isFinished = !isCancelled && segmentIndex == plan.segments.count
        while nextMarker < markers.count && (markers[nextMarker].frame < framePosition || isFinished) {
            nextMarker += 1
        }
        return Pull(frameCount: written, isComplete: isComplete, markers: firstMarker..<nextMarker)
    }

    private func renderClip(
        _ take: ClipTake, segment: PlanSegment, count: Int, into destination: UnsafeMutableBufferPointer<Float>
    ) throws {
        let clip = try load(take, segment: segmentIndex)
        var done = 0
        if let previous = crossfadeFrom[segmentIndex] {
            // The first frames mix in the previous clip's tail, which the previous segment left unwritten.
            let overlap = plan.segments[previous].overlapWithNext
            let mixed = max(0, min(count, overlap - segmentPosition))
            if mixed > 0 {
                let outgoing = self.buffer(bufferIndex[previous])
                let tailStart = plan.segments[previous].frameCount - overlap + segmentPosition
                RenderKernel.crossfade(
                    incoming: UnsafeBufferPointer(rebasing: clip[segmentPosition..<segmentPosition + mixed]),
                    incomingGain: segment.gain,
                    outgoing: UnsafeBufferPointer(rebasing: outgoing[tailStart..<tailStart + mixed]),
                    outgoingGain: plan.segments[previous].gain, position: segmentPosition, length: overlap,
                    into: UnsafeMutableBufferPointer(rebasing: destination[0..<mixed]))
                done = mixed
            }
        }
        let start = segmentPosition + done
        RenderKernel.copy(
            UnsafeBufferPointer(rebasing: clip[start..<segmentPosition + count]), gain: segment.gain,
            into: UnsafeMutableBufferPointer(rebasing: destination[done..<count]))
    }

    private func buffer(_ index: Int) -> UnsafeMutableBufferPointer<Float> { index == 0 ? buffers.0 : buffers.1 }

    private func advance() {
        segmentIndex += 1
        segmentPosition = 0
    }

    /// The buffer holding segment `index`'s clip, read from the pack and faded the first time it is reached.
    private func load(_ take: ClipTake, segment index: Int) throws -> UnsafeMutableBufferPointer<Float> {
        let slot = bufferIndex[index]
        let buffer = self.buffer(slot)
        guard (slot == 0 ? loadedSegment.0 : loadedSegment.1) != index else { return buffer }
        let clip = UnsafeMutableBufferPointer(rebasing: buffer[0..<take.frameCount])
        let frames = try audio.readRenderReadyPCM(take, into: clip)
        // A pack's frame count and blob agree; should they not, silence pads rather than stale samples.
        if frames < take.frameCount { RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: clip[frames...])) }
        let segment = plan.segments[index]
        RenderKernel.fadeEdges(
            clip, fadeIn: crossfadeFrom[index] == nil ? segment.edgeFadeFrames : 0,
            fadeOut: segment.overlapWithNext == 0 ? segment.edgeFadeFrames : 0)
        if slot == 0 { loadedSegment.0 = index } else { loadedSegment.1 = index }
        return buffer
    }
}
