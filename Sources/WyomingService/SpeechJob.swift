// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import NIOCore
import SpeechCore

/// One request's render: pulled a chunk at a time on a thread of the render pool, its chunks written by the
/// connection's event loop.
///
/// Used by one thread at a time, never two at once: the connection starts a `step()` only after the last one
/// completed, and calls `end()` only when no step is running; hence `@unchecked Sendable`.
final class SpeechJob: @unchecked Sendable {
    let request: SpeechRequest
    let pool: SynthesizerPool
    let log: @Sendable (String) -> Void
    let logPrefix: String
    /// Set when the client goes.
    private let cancellation = RenderCancellation()
    private var synthesizer: Synthesizer?
    private var renderer: Renderer?
    private var samples = [Float](repeating: 0, count: WyomingAudio.chunkFrames)
    private(set) var fallbackCount = 0

    init(request: SpeechRequest, pool: SynthesizerPool, logPrefix: String, log: @escaping @Sendable (String) -> Void) {
        self.request = request
        self.pool = pool
        self.logPrefix = logPrefix
        self.log = log
    }

    /// What one step produced: up to one chunk of 16-bit audio, and whether the request is done.
    struct Step: Sendable {
        var audio: ByteBuffer
        var frameCount: Int
        var isComplete: Bool
    }

    /// Pulls the next chunk (at most `WyomingAudio.chunkFrames`), taking a synthesizer and planning the request
    /// on the first step. Ends the job when the request is complete or fails.
    ///
    /// - Throws: `ConcatSynthError` for a request that cannot be read or planned, what the renderer throws for
    ///   audio that cannot be read (`ConcatSynthError.init(_:)` names it).
    func step(allocator: ByteBufferAllocator) throws -> Step {
        if renderer == nil, cancellation.isCancelled {
            return Step(audio: allocator.buffer(capacity: 0), frameCount: 0, isComplete: true)
        }
        do {
            let pulled = try pull()
            var audio = allocator.buffer(capacity: pulled.frameCount * 2)
            audio.writeWithUnsafeMutableBytes(minimumWritableBytes: pulled.frameCount * 2) { bytes in
                samples.withUnsafeBufferPointer {
                    PCM16.convert(UnsafeBufferPointer(rebasing: $0[..<pulled.frameCount]), into: bytes)
                }
                return pulled.frameCount * 2
            }
            // Once `pull` has returned, no local reference to the renderer is left (see `end()`).
            if pulled.isComplete { end() }
            return Step(audio: audio, frameCount: pulled.frameCount, isComplete: pulled.isComplete)
        } catch {
            end()
            throw error
        }
    }

    /// Renders the next chunk into `samples`.
    private func pull() throws -> Renderer.Pull {
        let renderer = try self.renderer ?? start()
        return try samples.withUnsafeMutableBufferPointer { try renderer.render(into: $0) }
    }

    private func start() throws(ConcatSynthError) -> Renderer {
        let synthesizer = try pool.take()
        self.synthesizer = synthesizer
        let renderer = try synthesizer.renderer(for: request) { [self] note in
            switch note {
            case .warning: log("\(logPrefix) \(note)")
            case .fallback: fallbackCount += 1
            }
        }
        cancellation.attach(renderer)
        self.renderer = renderer
        return renderer
    }

    /// Stops the render at its next pull; from any thread (the event loop, when the client goes).
    func cancel() { cancellation.cancel() }

    /// Releases the renderer (its read transaction) before the synthesizer goes back, so the next request to
    /// take it starts on a connection nobody else reads.
    ///
    /// Called where no local reference to the renderer is in scope: one would keep it alive past the `giveBack`,
    /// and its end (`SnapshotSource`'s) would then close the blob handle of a connection another request reads on
    /// another thread; the pool now lends no such synthesizer again, but opens another instead.
    func end() {
        renderer = nil
        if let synthesizer { pool.giveBack(synthesizer) }
        synthesizer = nil
    }
}

/// The audio a Wyoming client receives.
enum WyomingAudio {
    static let rate = RenderFormat.sampleRate
    static let width = 2
    static let channels = 1
    /// 100 ms: a chunk small enough that playback starts early, large enough that headers cost little.
    static let chunkFrames = rate / 10

    struct Format: Encodable {
        var rate = WyomingAudio.rate
        var width = WyomingAudio.width
        var channels = WyomingAudio.channels
    }

    /// The data of `audio-start` and every `audio-chunk`, encoded once.
    static let formatJSON = WyomingEvent.json(Format())
}
