// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Planning
import SpeechCore

/// Where the renderer takes a request's segments from, already placed in the output: a plan being made
/// (`PlanStream`), or a collected one (`RenderPlan.Replay`).
public protocol TimedSegmentSource: AnyObject {
    /// The next segment in output order; `nil` at the end of the request.
    func nextSegment() throws -> TimedSegment?
    /// The next complete marker, if one is ready (see `Timeline.nextMarker()`).
    func nextMarker() -> IndexedMarker?
}

extension PlanStream: TimedSegmentSource {}

extension RenderPlan {
    /// A collected plan played back as a source, for tests and tools.
    public final class Replay: TimedSegmentSource {
        private let plan: RenderPlan
        private var segmentIndex = 0
        private var markerIndex = 0

        public init(_ plan: RenderPlan) { self.plan = plan }

        public func nextSegment() throws -> TimedSegment? {
            guard segmentIndex < plan.segments.count else { return nil }
            defer { segmentIndex += 1 }
            return plan.segments[segmentIndex]
        }

        public func nextMarker() -> IndexedMarker? {
            guard markerIndex < plan.markers.count else { return nil }
            defer { markerIndex += 1 }
            return IndexedMarker(index: markerIndex, marker: plan.markers[markerIndex])
        }
    }
}

/// Renders a request by pull, like an Audio Unit render block: ask for frames until the request is complete.
///
/// Each segment plays through a chain of its own: its source (a clip read from the pack, the fallback voice's
/// speech, an `<audio>` file decoded when the output reaches it, or silence), a time-stretcher where its speed or
/// pitch asks for one, then its fades and gain. A segment that is not stretched is read straight into the caller's
/// buffer, so the samples are copied once. Where two clips crossfade, both chains play at once and are mixed.
/// Segments are taken from the source as the output reaches them, so the first frames are out before later segments
/// are even planned.
///
/// ```swift
/// let renderer = Renderer(source: synthesizer.stream(request), audio: pack)
/// var buffer = [Float](repeating: 0, count: 4096)
/// while true {
///     let pulled = try buffer.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
///     output.append(contentsOf: buffer[..<pulled.frameCount])
///     if pulled.isComplete { break }
/// }
/// ```
public final class Renderer {
    /// What one pull produced: the frames written at the start of the buffer, and whether the request is done (or
    /// cancelled). Callers outside the engine get it as ConcatSynth's `Renderer.Pull`, which documents each field.
    public struct Pull: Equatable, Sendable {
        public var frameCount: Int
        public var isComplete: Bool

        public init(frameCount: Int, isComplete: Bool) {
            self.frameCount = frameCount
            self.isComplete = isComplete
        }
    }

    private let source: TimedSegmentSource
    private let audio: ClipAudioSource
    private let stretchCache: StretchCache?
    /// Raised by `cancel()`, from any thread.
    public let cancellation: Cancellation
    /// The segment playing now, and the one it crossfades out of.
    private var current: Chain?
    private var outgoing: Chain?
    private var isFinished = false
    /// The outgoing clip's frames during a crossfade.
    private let mixBuffer: UnsafeMutableBufferPointer<Float>
    /// Source frames on their way into a time-stretcher.
    private let stretchInput: UnsafeMutableBufferPointer<Float>
    private var waitingMarker: IndexedMarker?

    /// Frames rendered so far.
    public private(set) var framePosition = 0
    /// The markers the last pull reached (their first frame was written, or the request ended), in the order
    /// they completed; `IndexedMarker.index` gives frame order (`MarkerSequence` restores it).
    public private(set) var reachedMarkers: [IndexedMarker] = []
    /// The sounding segments the last pull started (the last one may only be looked ahead to, its frames still
    /// to come), in output order: what a picture of the render draws phrases, fallbacks, pauses and joins from.
    public private(set) var startedSegments: [TimedSegment] = []

    /// - Parameters:
    ///   - stretchCache: where stretched clips are kept for the next segment, or the next request, that plays them
    ///     at the same speed and pitch; `nil` stretches every segment afresh.
    ///   - cancellation: the flag that stops it; a plan stream's own (`PlanStream.cancellation`), so that a
    ///     cancelled render stops the fallback voice inside a phrase too.
    public init(
        source: TimedSegmentSource, audio: ClipAudioSource, stretchCache: StretchCache? = nil,
        cancellation: Cancellation = Cancellation()
    ) {
        self.source = source
        self.audio = audio
        self.stretchCache = stretchCache
        self.cancellation = cancellation
        mixBuffer = .allocate(capacity: 1_024)
        stretchInput = .allocate(capacity: 1_024)
        reachedMarkers.reserveCapacity(64)
        startedSegments.reserveCapacity(64)
    }

    /// Renders a collected plan.
    public convenience init(plan: RenderPlan, audio: ClipAudioSource, stretchCache: StretchCache? = nil) {
        self.init(source: RenderPlan.Replay(plan), audio: audio, stretchCache: stretchCache)
    }

    /// A request given up without a cancel (a client gone) is cancelled too, so that the fallback voice stops making
    /// speech nobody will play, and frees espeak-ng for the next request.
    deinit {
        cancellation.cancel()
        mixBuffer.deallocate()
        stretchInput.deallocate()
    }

    /// Stops the request: the next pull returns no frames and `isComplete`. Safe from any thread; or hand
    /// `cancellation` to the thread that decides.
    public func cancel() { cancellation.cancel() }

    /// The request is done: every frame rendered, or cancelled.
    public var isComplete: Bool { cancellation.isCancelled || (isFinished && current == nil) }

    /// Fills up to `buffer.count` frames with the next frames of the request.
    ///
    /// Allocates nothing once the first segments have started, but for a stretched segment's stretcher (and,
    /// with a stretch cache, room for its stretched samples) and an `<audio>` file's samples when those segments
    /// start.
    /// - Throws: what planning throws as it goes (`PlanningError`, a look-up's error), what the clip source
    ///   throws when a clip cannot be read, `AudioIOError` for an `<audio>` file that can no longer be read.
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Pull {
        reachedMarkers.removeAll(keepingCapacity: true)
        startedSegments.removeAll(keepingCapacity: true)
        guard !cancellation.isCancelled else { return Pull(frameCount: 0, isComplete: true) }
        var written = 0
        while written < buffer.count {
            if current == nil {
                // Planning the next segment may have taken a while (the fallback voice speaking a long phrase), and
                // been cut short by a cancellation meanwhile.
                guard try startNextSegment(), !cancellation.isCancelled else { break }
            }
            let ownEnd: Int
            if current!.isArriving {
                ownEnd = current!.arrivedEnd(wanting: buffer.count - written)
                if !current!.isArriving { startedSegments.append(current!.timed) }
            } else {
                ownEnd = current!.timed.frameCount - current!.timed.overlapWithNext
            }
            let count = min(ownEnd - current!.position, buffer.count - written)
            let destination = UnsafeMutableBufferPointer(rebasing: buffer[written..<written + count])
            let start = current!.position
            try current!.render(into: destination, audio: audio, stretchInput: stretchInput)
            if start < current!.timed.overlapWithPrevious, outgoing != nil {
                try mixOutgoing(into: destination, from: start)
            }
            written += count
            if current!.position == ownEnd {
                // A clip that crossfades into the next goes on playing its tail under the next one's start.
                outgoing = current!.timed.overlapWithNext > 0 ? current : nil
                current = nil
            }
        }
        // Looking ahead lets the pull that writes the last frames say the request is complete.
        if current == nil && !isFinished { _ = try startNextSegment() }
        framePosition += written
        reportMarkers()
        return Pull(frameCount: written, isComplete: isComplete)
    }

    /// Takes the next sounding segment from the source; `false` at the end of the request.
    private func startNextSegment() throws -> Bool {
        while !isFinished {
            guard let timed = try source.nextSegment() else {
                isFinished = true
                break
            }
            guard timed.segment.isSounding, timed.frameCount > 0 || timed.segment.isArriving else { continue }
            if timed.overlapWithPrevious == 0 { outgoing = nil }
            current = try Chain(timed, audio: audio, stretchCache: stretchCache)
            // Speech that arrives while it plays is counted as started once its length is known.
            if !timed.segment.isArriving { startedSegments.append(timed) }
            return true
        }
        return false
    }

    /// Mixes the outgoing clip's tail into the incoming clip's first frames, `destination` being the incoming
    /// clip's frames from `start`.
    private func mixOutgoing(into destination: UnsafeMutableBufferPointer<Float>, from start: Int) throws {
        let length = current!.timed.overlapWithPrevious
        var offset = 0
        let mixed = min(destination.count, length - start)
        while offset < mixed {
            let count = min(mixBuffer.count, mixed - offset)
            let tail = UnsafeMutableBufferPointer(rebasing: mixBuffer[0..<count])
            try outgoing!.render(into: tail, audio: audio, stretchInput: stretchInput)
            RenderKernel.crossfade(
                UnsafeMutableBufferPointer(rebasing: destination[offset..<offset + count]),
                outgoing: UnsafeBufferPointer(tail), outgoingGain: 1, position: start + offset, length: length)
            offset += count
        }
        if start + mixed == length { outgoing = nil }
    }

    private func reportMarkers() {
        let isEnd = isComplete
        while true {
            if waitingMarker == nil { waitingMarker = source.nextMarker() }
            guard let marker = waitingMarker, marker.marker.frame < framePosition || isEnd else { return }
            reachedMarkers.append(marker)
            waitingMarker = nil
        }
    }
}

/// One sounding segment on its way out: its source, a stretcher where it needs one, its fades and gain.
private struct Chain {
    enum Source {
        case clip(ClipTake)
        case samples([Float])
        /// The fallback voice's speech while it arrives: never stretched (the planner places a stretched run whole).
        case arriving(SpeechStream)
        case silence

        var isSilence: Bool {
            if case .silence = self { return true }
            return false
        }
    }

    /// A stretch on its way into the cache: the segment's stretched frames so far, before fades and gain.
    private struct Recording {
        let cache: StretchCache
        let key: StretchCache.Key
        let version: UInt64
        var samples: [Float]
    }

    /// The segment as placed; the fallback voice's speech that arrives while it plays gets its length once it is whole.
    private(set) var timed: TimedSegment
    private(set) var isArriving: Bool
    let source: Source
    let gain: Float
    let fadeIn: Int
    let fadeOut: Int
    /// Output frames written so far.
    private(set) var position = 0
    private let stretcher: TimeStretcher?
    /// Source frames handed to the stretcher so far.
    private var sourcePosition = 0
    private var isFlushed = false
    private var recording: Recording?

    init(_ timed: TimedSegment, audio: ClipAudioSource, stretchCache: StretchCache?) throws {
        self.timed = timed
        let segment = timed.segment
        var source: Source
        switch segment.kind {
        case .phrase(let take), .fallback(let take), .slice(let take): source = .clip(take)
        case .synthesized(let speech) where speech.arrivesWhilePlaying: source = .arriving(speech.stream)
        case .synthesized(let speech): source = .samples(speech.samples)
        case .audio(let path): source = .samples(try PreparedClip(path: path).renderReady)
        case .silence, .mark, .structureStart, .structureEnd: source = .silence
        }
        isArriving = segment.isArriving
        gain = segment.gain
        fadeIn = timed.overlapWithPrevious > 0 ? 0 : segment.edgeFadeFrames
        fadeOut = timed.overlapWithNext > 0 ? 0 : segment.edgeFadeFrames
        var stretcher: TimeStretcher?
        // Silence stretches to silence: its output length is the timeline's already.
        if segment.isStretched && !source.isSilence {
            var slot: Recording?
            if case .clip(let take) = source, let stretchCache, let version = audio.samplesVersion,
                timed.frameCount <= stretchCache.sampleCapacity
            {
                let key = StretchCache.Key(
                    take: take, sourceFrameCount: segment.frameCount, speed: segment.speed,
                    pitchSemitones: segment.pitchSemitones)
                slot = Recording(cache: stretchCache, key: key, version: version, samples: [])
            }
            if let slot, let kept = slot.cache.samples(for: slot.key, version: slot.version) {
                source = .samples(kept)
            } else {
                stretcher = TimeStretcher(
                    speed: segment.speed, pitch: Prosody.pitchFactor(semitones: segment.pitchSemitones))
                recording = slot
                recording?.samples.reserveCapacity(timed.frameCount)
            }
        }
        self.source = source
        self.stretcher = stretcher
    }

    /// Where the frames that may be written now end, for speech that arrives while it plays: waits until `wanted` more
    /// frames are in, as well as the fade-out's (which can be placed only once the end is known), or the speech is
    /// whole, and then settles its length.
    mutating func arrivedEnd(wanting wanted: Int) -> Int {
        guard case .arriving(let stream) = source else { return timed.frameCount }
        // A fade-in shortens for speech shorter than two fades: whether it does is known before the first frame.
        let (count, isFinished) = stream.wait(forCount: max(position + wanted + fadeOut, 2 * fadeIn))
        guard isFinished else { return count - fadeOut }
        timed.frameCount = count
        timed.segment.frameCount = count
        isArriving = false
        return count
    }

    /// Writes the segment's next `destination.count` output frames.
    mutating func render(
        into destination: UnsafeMutableBufferPointer<Float>, audio: ClipAudioSource,
        stretchInput: UnsafeMutableBufferPointer<Float>
    ) throws {
        defer { position += destination.count }
        if case .silence = source {
            RenderKernel.silence(destination)
            return
        }
        if let stretcher {
            try stretch(stretcher, into: destination, audio: audio, input: stretchInput)
            if recording != nil { record(UnsafeBufferPointer(destination)) }
        } else {
            let read = try readSource(from: position, into: destination, audio: audio)
            if read < destination.count {
                // A pack's frame count and blob agree; should they not, silence pads rather than stale samples.
                RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: destination[read...]))
            }
        }
        RenderKernel.fadeEdges(
            destination, clipFrameOffset: position, clipFrameCount: isArriving ? .max : timed.frameCount,
            fadeIn: fadeIn, fadeOut: fadeOut)
        RenderKernel.applyGain(gain, to: destination)
    }

    /// Fills `destination` from the stretcher, feeding it the source as it asks; silence past its output.
    private mutating func stretch(
        _ stretcher: TimeStretcher, into destination: UnsafeMutableBufferPointer<Float>, audio: ClipAudioSource,
        input: UnsafeMutableBufferPointer<Float>
    ) throws {
        var filled = 0
        while filled < destination.count {
            let got = stretcher.read(into: UnsafeMutableBufferPointer(rebasing: destination[filled...]))
            filled += got
            guard got == 0 else { continue }
            if sourcePosition < timed.segment.frameCount {
                // About what the frames still wanted take at this speed (at least 128): sonic works on what it is
                // given at once, so a pull that needs little, as the first does, stretches little.
                let needed = max(128, Int((Double(destination.count - filled) * timed.segment.speed).rounded(.up)))
                let wanted = min(input.count, needed, timed.segment.frameCount - sourcePosition)
                let chunk = UnsafeMutableBufferPointer(rebasing: input[0..<wanted])
                let read = try readSource(from: sourcePosition, into: chunk, audio: audio)
                if read < wanted { RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: chunk[read...])) }
                stretcher.write(UnsafeBufferPointer(chunk))
                sourcePosition += wanted
            } else if !isFlushed {
                stretcher.flush()
                isFlushed = true
            } else {
                RenderKernel.silence(UnsafeMutableBufferPointer(rebasing: destination[filled...]))
                return
            }
        }
    }

    /// Adds stretched frames to the recording; a whole segment goes into the cache.
    private mutating func record(_ frames: UnsafeBufferPointer<Float>) {
        recording!.samples.append(contentsOf: frames)
        guard recording!.samples.count == timed.frameCount else { return }
        recording!.cache.insert(recording!.samples, for: recording!.key, version: recording!.version)
        recording = nil
    }

    /// Copies source frames `start…` into `buffer`; returns how many there were.
    private func readSource(
        from start: Int, into buffer: UnsafeMutableBufferPointer<Float>, audio: ClipAudioSource
    ) throws -> Int {
        switch source {
        case .clip(let take):
            return try audio.readRenderReadyPCM(take, from: start, into: buffer)
        case .arriving(let stream):
            return stream.copy(from: start, into: buffer)
        case .samples(let samples):
            let count = max(0, min(buffer.count, samples.count - start))
            guard count > 0 else { return 0 }
            samples.withUnsafeBufferPointer { samples in
                RenderKernel.copy(
                    UnsafeBufferPointer(rebasing: samples[start..<start + count]), gain: 1,
                    into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            }
            return count
        case .silence:
            return 0
        }
    }
}
