// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One answer's audio, made a step at a time on a render thread: raw `pcm` 100 ms a step as it is rendered; a file
/// rendered whole by the first step, through the same writer as `concat-synth render -o`, then sent 64 KiB a step.
///
/// Used by one thread at a time, never two at once (see `HTTPAnswerJob`); hence `@unchecked Sendable`.
final class HTTPSpeechJob: HTTPAnswerJob, @unchecked Sendable {
    let order: SpeechOrder
    private let temporaryFolder: TemporaryFolder
    /// Set when the client goes.
    private let cancellation = RenderCancellation()
    private var synthesizer: Synthesizer?
    private var chain: ConvertedPull?
    /// The rendered file being sent, and how many of its bytes are still to send.
    private var file: (path: String, reader: ReadableFile, unsentByteCount: Int)?
    private(set) var fallbackCount = 0

    /// A 100 ms block of the renderer's frames.
    static let blockFrames = RenderFormat.sampleRate / 10
    /// How much of a rendered file one step sends.
    static let fileChunkBytes = 64 << 10

    /// The most seconds of audio a file answer may hold (`HTTPLimits.maximumFileSeconds`).
    private let maximumFileSeconds: Int

    init(order: SpeechOrder, temporaryFolder: TemporaryFolder, maximumFileSeconds: Int) {
        self.maximumFileSeconds = maximumFileSeconds
        self.order = order
        self.temporaryFolder = temporaryFolder
    }

    /// A render stopped because the client went.
    struct Cancelled: Error {}

    /// The next piece of the answer; the first step plans the request (and renders a file whole).
    ///
    /// - Throws: `ConcatSynthError` for a request that cannot be planned or rendered, `Cancelled`, and what writing or
    ///   reading the file throws.
    func step(allocator: ByteBufferAllocator) throws -> HTTPAnswerStep {
        do {
            switch order.format {
            case .pcm: return try pcmStep(allocator: allocator)
            case .file(let fileExtension, let encoding, _):
                var contentLength: Int?
                if file == nil { contentLength = try renderFile(fileExtension, encoding) }
                var step = try fileStep(allocator: allocator)
                step.contentLength = contentLength
                return step
            }
        } catch {
            end()
            throw error
        }
    }

    private func pcmStep(allocator: ByteBufferAllocator) throws -> HTTPAnswerStep {
        let (bytes, isComplete) = try pullBlock(allocator: allocator)
        try checkCancelled()
        // Once `pullBlock` has returned, no local reference to the chain is left (see `releaseSynthesizer`).
        if isComplete { end() }
        return HTTPAnswerStep(bytes: bytes, isComplete: isComplete, contentType: order.format.contentType)
    }

    /// The next block of raw `pcm`, and whether it is the last.
    private func pullBlock(allocator: ByteBufferAllocator) throws -> (ByteBuffer, isComplete: Bool) {
        let isFirst = self.chain == nil
        let chain = try self.chain ?? start(sampleRate: order.sampleRate ?? AudioResponseFormat.pcmSampleRate)
        var bytes = allocator.buffer(capacity: Self.blockFrames * 3)
        // A first block of 10 ms, so the first bytes leave before 100 ms are rendered and converted.
        try chain.pull(maximumFrames: isFirst ? Self.blockFrames / 10 : .max) { frames in
            bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: frames.count * 2) { out in
                PCM16.convert(frames, into: UnsafeMutableRawBufferPointer(rebasing: out[..<(frames.count * 2)]))
                return frames.count * 2
            }
        }
        return (bytes, chain.isComplete)
    }

    /// Renders the whole request into a file of the format, as `concat-synth render -o NAME.EXTENSION` does.
    ///
    /// - Returns: the file's size.
    private func renderFile(_ fileExtension: String, _ encoding: OutputEncoding?) throws -> Int {
        let path = temporaryFolder.newPath(extension: fileExtension)
        try render(into: path, fileExtension, encoding)
        // Once `render` has returned, no local reference to the chain is left (see `releaseSynthesizer`).
        releaseSynthesizer()
        let size = fileSize(path) ?? 0
        do throws(FileError) {
            file = (path, try ReadableFile(path: path), size)
        } catch {
            unlink(path)
            throw error
        }
        return size
    }

    /// Renders the request into the file at `path`; the chain ends with the call.
    private func render(into path: String, _ fileExtension: String, _ encoding: OutputEncoding?) throws {
        let format = try RenderOutputFormat(path: path, sampleRate: order.sampleRate, encoding: encoding)
        let chain = try start(sampleRate: format.sampleRate)
        let writer = try AudioFileWriter(path: path, format: format.file, sampleRate: format.sampleRate)
        var frameCount = 0
        while !chain.isComplete {
            try chain.pull {
                frameCount += $0.count
                try writer.write($0)
            }
            try checkCancelled()
            guard frameCount <= maximumFileSeconds * format.sampleRate else {
                let limit =
                    maximumFileSeconds % 60 == 0
                    ? "\(maximumFileSeconds / 60) minutes" : "\(maximumFileSeconds) seconds"
                throw APIError.invalid(
                    "the answer would be over \(limit) of audio, which this server renders whole into a \(fileExtension) file only up to that; ask for pcm (OpenAI's response_format), which streams, or send less text"
                )
            }
        }
        try writer.commit()
    }

    private func fileStep(allocator: ByteBufferAllocator) throws -> HTTPAnswerStep {
        guard let file else {
            return HTTPAnswerStep(
                bytes: allocator.buffer(capacity: 0), isComplete: true, contentType: order.format.contentType)
        }
        try checkCancelled()
        let chunk = try file.reader.descriptor.read(upTo: Self.fileChunkBytes)
        let unsentByteCount = file.unsentByteCount - chunk.count
        self.file?.unsentByteCount = unsentByteCount
        // The chunk that ends the file ends the answer, rather than an empty step after it: a client that has its
        // content-length of bytes may close the connection at once, which must not look like leaving mid-answer.
        let isComplete = chunk.isEmpty || unsentByteCount <= 0
        if isComplete { end() }
        return HTTPAnswerStep(
            bytes: allocator.buffer(bytes: chunk), isComplete: isComplete, contentType: order.format.contentType)
    }

    private func start(sampleRate: Int) throws -> ConvertedPull {
        let synthesizer = try order.voice.pool.take()
        self.synthesizer = synthesizer
        let renderer = try synthesizer.renderer(for: order.request) { [self] note in
            if case .fallback = note { fallbackCount += 1 }
        }
        cancellation.attach(renderer)
        let chain = try ConvertedPull(renderer, sampleRate: sampleRate, blockFrames: Self.blockFrames)
        self.chain = chain
        return chain
    }

    private func checkCancelled() throws {
        if cancellation.isCancelled { throw Cancelled() }
    }

    /// Stops the render at its next pull; from any thread (the event loop, when the client goes).
    func cancel() { cancellation.cancel() }

    func summary(byteCount: Int, milliseconds: Int64) -> String {
        "voice \(order.voice.settings.identifier), \(order.format.name)"
            + (order.sampleRate.map { " at \($0) Hz" } ?? "") + ", \(byteCount) bytes in \(milliseconds) ms"
            + (fallbackCount > 0 ? ", \(fallbackCount) fallback\(fallbackCount == 1 ? "" : "s")" : "")
    }

    /// Releases the renderer and the synthesizer, and removes the rendered file.
    func end() {
        releaseSynthesizer()
        if let file { unlink(file.path) }
        file = nil
    }

    /// Releases the renderer (its read transaction) before the synthesizer goes back, so the next request to take it
    /// starts on a connection nobody else reads.
    ///
    /// Called where no local `chain` or renderer is in scope: a local one would keep the renderer alive past the
    /// `giveBack`, and its end (`SnapshotSource`'s) would then close the blob handle of a connection another
    /// request reads on another thread; the pool now lends no such synthesizer again, but opens another instead.
    private func releaseSynthesizer() {
        chain = nil
        if let synthesizer { order.voice.pool.giveBack(synthesizer) }
        synthesizer = nil
    }
}
