// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Synchronization

/// speech-dispatcher's output-module protocol over an engine: reads commands from one file descriptor and answers
/// on another, with audio going to the server as `705` blocks.
///
/// The thread that calls `run()` reads commands the whole time; messages render on a thread of their own, so
/// `STOP` ends a message within one pull (`703 STOP`) and `PAUSE` at its next `__spd_` mark (`704 PAUSE`).
///
/// ```swift
/// let server = ModuleServer(input: STDIN_FILENO, output: STDOUT_FILENO) { () throws(SpeechServiceError) in
///     try ConcatSynthEngine(bank: nil)   // the default and every installed pack
/// }
/// exit(server.run())
/// ```
public final class ModuleServer {
    /// Frames per pull after the first: 186 ms of audio, rendered far faster than it plays even when it stretches new
    /// clips at four times their speed, which is the longest a STOP waits. A pull has its own cost (segments, marks,
    /// the hand-over of its frames), so smaller pulls cost the module more work for the same audio.
    public static let pullFrameCount = 4096
    /// Frames of a message's first pull: 12 ms of audio, all the server needs to start playing. At four times the
    /// voice's speed a pull stretches four times its length of clip, and the first block waits for all of it.
    public static let firstPullFrameCount = 256

    private let input: LineReader
    private let output: OutputChannel
    private let openEngine: () throws(SpeechServiceError) -> any SpeechEngine
    private let soundIconFolder: String?
    private var settings = ModuleSettings()
    /// What `settings` make of the pack's voices, worked out again only when a `SET` changes them: the server sends
    /// every key before every message, nearly always the same.
    private var parameters: EngineParameters?
    private var standardError = StandardErrorStream()

    /// - Parameters:
    ///   - openEngine: opens the voice pack at `INIT`; its error becomes the `399` reply.
    ///   - soundIconFolder: where `SOUND_ICON` names are looked for; the server plays the file. A name with no
    ///     file there is spoken instead.
    public init(
        input: Int32, output: Int32, soundIconFolder: String? = nil,
        openEngine: @escaping () throws(SpeechServiceError) -> any SpeechEngine
    ) {
        self.input = LineReader(descriptor: input)
        self.output = OutputChannel(descriptor: output)
        self.soundIconFolder = soundIconFolder
        self.openEngine = openEngine
    }

    /// Serves until `QUIT` or the end of the input; returns the process's exit status (0, or 1 when `INIT`
    /// failed, 3 when the first command was not `INIT`).
    public func run() -> Int32 {
        // A server gone mid-write is the end, not a crash: the write fails and the module exits.
        signal(SIGPIPE, SIG_IGN)
        guard let first = input.readLine() else { return 0 }
        guard first == "INIT" else {
            print("error: the server did not start with INIT but with \"\(first)\"", to: &standardError)
            return 3
        }
        let engine: any SpeechEngine
        do {
            engine = try openEngine()
        } catch {
            output.send("399-\(error.description)\n399 ERR CANT INIT MODULE\n")
            return 1
        }
        let voices = engine.voices
        let rendering = RenderingThread(engine: engine, output: output)
        startThread { rendering.serve() }
        defer { rendering.shutDown() }
        // INIT ends when the rendering thread has warmed up, so that even a message sent right after it is not slowed.
        rendering.stopAndWait()
        output.send(
            "299-concat-synth: voice pack\(engine.packPaths.count == 1 ? "" : "s") "
                + "\(engine.packPaths.joined(separator: ", ")), \(voices.count) voice\(voices.count == 1 ? "" : "s")\n"
                + "299 OK LOADED SUCCESSFULLY\n")
        // The server gone (a failed write) is the end, as the end of its commands is.
        while !output.isClosed, let line = input.readLine() {
            switch ModuleCommand(line) {
            case .initialize: output.send("399 ERR ALREADY INITIALIZED\n")
            case .audio:
                guard let lines = readBlock(reply: "207 OK RECEIVING AUDIO SETTINGS") else { return 0 }
                // Only server audio: the server plays what the module sends. Anything else is refused, which makes
                // the server stop using the module rather than expect it to play sound itself.
                if lines.contains("audio_output_method=server") {
                    output.send("203 OK AUDIO INITIALIZED\n")
                } else {
                    output.send("303 ERROR INVALID PARAMETER OR VALUE\n")
                }
            case .logLevel:
                guard readBlock(reply: "207 OK RECEIVING LOGLEVEL SETTINGS") != nil else { return 0 }
                output.send("203 OK LOGLEVEL SET\n")
            case .debug(let file):
                output.send(file == nil ? "200 OK DEBUGGING OFF\n" : "200 OK DEBUGGING ON\n")
            case .listVoices(let language, let variant):
                output.send(Self.voiceList(voices, language: language, variant: variant))
            case .set:
                guard let lines = readBlock(reply: "203 OK RECEIVING SETTINGS") else { return 0 }
                let previous = settings
                for line in lines where !settings.apply(line: line) {
                    print("note: SET \(line) ignored", to: &standardError)
                }
                if settings != previous { parameters = nil }
                output.send("203 OK SETTINGS RECEIVED\n")
            case .speak(let kind):
                guard let lines = readBlock(reply: "202 OK RECEIVING MESSAGE") else { return 0 }
                speak(lines, kind: kind, voices: voices, rendering: rendering)
            case .stop: rendering.requestStop()
            case .pause: rendering.requestPause()
            case .quit:
                rendering.stopAndWait()
                output.send("210 OK QUIT\n")
                return 0
            case .unknown: output.send("300 ERR UNKNOWN COMMAND\n")
            }
        }
        return 0
    }

    private func speak(_ lines: [String], kind: MessageKind, voices: [ModuleVoice], rendering: RenderingThread) {
        var message = DotStuffing.unstuff(lines)
        guard !message.isEmpty else {
            output.send("301 ERROR CANT SPEAK\n")
            return
        }
        if kind != .text && lines.count > 1 {
            output.send("305 DATA MORE THAN ONE LINE\n")
            return
        }
        if (kind == .character || kind == .key) && message == "space" { message = " " }
        // A message still playing ends first (the server sends STOP before the next message, but need not wait).
        rendering.stopAndWait()
        let reply = "200 OK SPEAKING\n"
        if kind == .soundIcon, let folder = soundIconFolder, let icon = Self.soundIcon(message, in: folder) {
            output.send(reply)
            rendering.playIcon(icon, output: output)
        } else {
            let parameters = self.parameters ?? EngineParameters(settings, voices: voices)
            self.parameters = parameters
            rendering.begin(
                ModuleRequest(message: message, kind: kind, settings: settings, parameters: parameters), reply: reply)
        }
    }

    /// Sends `reply`, then reads `key=value` lines up to the `.` line; `nil` when the input ends first.
    private func readBlock(reply: String) -> [String]? {
        output.send(reply + "\n")
        var lines: [String] = []
        while let line = input.readLine() {
            if line == "." { return lines }
            lines.append(line)
        }
        return nil
    }

    /// `200-NAME<tab>LANGUAGE<tab>VARIANT` for each voice (filtered like speech-dispatcher's own modules: the whole
    /// tag or its primary subtag, ignoring case), then `200 OK VOICE LIST SENT`, or `304` when none is left.
    static func voiceList(_ voices: [ModuleVoice], language: String?, variant: String?) -> String {
        var out = ""
        for (voice, name) in zip(voices, SettingsMapping.listedNames(voices)) {
            let tag = voice.languages.first ?? "none"
            if let language {
                let wanted = language.lowercased()
                let primary = tag.lowercased().prefix { $0 != "-" }
                guard tag.lowercased() == wanted || primary == wanted else { continue }
                if let variant, variant.lowercased() != "none" { continue }
            }
            out += "200-\(name)\t\(tag)\tnone\n"
        }
        return out.isEmpty ? "304 CANT LIST VOICES\n" : out + "200 OK VOICE LIST SENT\n"
    }

    /// The sound icon file for `name` in `folder`, if there is one (a name with a `/` is refused).
    static func soundIcon(_ name: String, in folder: String) -> String? {
        guard !name.contains("/"), name != "..", name != "." else { return nil }
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        return access(path, R_OK) == 0 ? path : nil
    }
}

/// Replies and events to the server: each written whole under one lock, so a reply from the command thread never
/// lands inside an audio block from the rendering thread. A failed write means the server is gone: it is reported
/// once, nothing more is sent, and both threads end their work (`isClosed`).
final class OutputChannel: Sendable {
    private let descriptor: Int32
    /// Whether a write failed; guards the writes too.
    private let closed = Mutex(false)

    init(descriptor: Int32) { self.descriptor = descriptor }

    var isClosed: Bool { closed.withLock { $0 } }

    func send(_ text: String) {
        var text = text
        text.withUTF8 { send(UnsafeRawBufferPointer($0)) }
    }

    func send(_ bytes: UnsafeRawBufferPointer) {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            do {
                try writeAll(descriptor, bytes)
            } catch {
                var standardError = StandardErrorStream()
                print("error: \(SpeechServiceError.outputClosed(reason: "\(error)")); exiting", to: &standardError)
                isClosed = true
            }
        }
    }
}

/// The thread that renders messages one at a time, and the flags the command thread sets for it.
///
/// A message's first pull runs on the command thread (`begin`), so its first audio leaves without waiting for
/// another thread to wake; the rest renders here while the command thread reads STOP and PAUSE. The engine and
/// the worker's buffers are used by one thread at a time: the command thread only while this one is idle, which
/// `isBusy` under the lock guarantees. STOP raises the message's cancellation, which the renderer reads at its
/// next pull.
///
/// `@unchecked Sendable`: both threads hold it, and the compiler cannot see the hand-off above; every flag is read
/// and written under `lock` (or is atomic), and the engine and worker move between threads only through `isBusy`.
final class RenderingThread: @unchecked Sendable {
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var hasPending = false
    /// Busy from the start: the thread warms up before it serves (`MessageWorker.warmUp`).
    private var isBusy = true
    private var isShuttingDown = false
    /// The cancellation of the message rendering here; `nil` when none is.
    private var cancellation: Cancellation?
    // Read between pulls without the lock; set by the command thread, cleared only when a message begins.
    private let isPauseRequested = Atomic<Bool>(false)
    private var worker: MessageWorker
    private let engine: any SpeechEngine

    init(engine: any SpeechEngine, output: OutputChannel) {
        self.engine = engine
        worker = MessageWorker(output: output)
    }

    /// Answers SPEAK with `reply` and speaks `request`: its first pull here, on the command thread, the rest on the
    /// rendering thread.
    func begin(_ request: ModuleRequest, reply: String) {
        lock.locked {
            precondition(!isBusy, "a message begins only after the last one ended")
            // Cleared here, on the command thread, so a PAUSE that follows this SPEAK is never lost to the reset.
            isPauseRequested.store(false, ordering: .sequentiallyConsistent)
            isBusy = true
        }
        // A STOP cannot come before this returns: the command thread that would read it is busy here.
        let hasMore = worker.begin(request, reply: reply, engine: engine)
        lock.locked {
            if hasMore {
                hasPending = true
                cancellation = worker.cancellation
            } else {
                isBusy = false
            }
            lock.broadcast()
        }
    }

    /// Sends a sound icon's events: the server plays the file.
    func playIcon(_ path: String, output: OutputChannel) {
        output.send(ModuleEvent.begin.text + ModuleEvent.icon(path: path).text + ModuleEvent.end.text)
    }

    func requestStop() { lock.locked { cancellation?.cancel() } }

    func requestPause() { isPauseRequested.store(true, ordering: .sequentiallyConsistent) }

    /// Stops the message playing, if any, and waits until its `703 STOP` (or its end) has been sent.
    func stopAndWait() {
        lock.locked {
            guard isBusy else { return }
            cancellation?.cancel()
            while isBusy { lock.wait() }
        }
    }

    func shutDown() {
        stopAndWait()
        lock.locked {
            isShuttingDown = true
            lock.broadcast()
        }
    }

    /// The thread's loop: warms up, then waits for a begun message, renders the rest of it, repeats until shut
    /// down.
    func serve() {
        for rendering in engine.warmUpRenderings() { worker.warmUp(rendering) }
        lock.locked {
            isBusy = false
            lock.broadcast()
        }
        while true {
            let shouldRender: Bool = lock.locked {
                while !hasPending && !isShuttingDown { lock.wait() }
                defer { hasPending = false }
                return hasPending
            }
            guard shouldRender else { return }
            while worker.proceed(isPauseRequested: isPauseRequested.load(ordering: .sequentiallyConsistent)) {
                // Nobody is left to hear the rest.
                if worker.output.isClosed { worker.cancellation?.cancel() }
            }
            lock.locked {
                isBusy = false
                cancellation = nil
                lock.broadcast()
            }
        }
    }
}

/// Renders one message into events: `701`, the `705` blocks with a `700` after the audio before each mark, then
/// `702`, `703` or `704`. Its buffers are made once and reused for every message.
///
/// What the pulls produce is gathered and written in few writes: `200`, `701` and the first block together at once,
/// then up to `batchByteCount` bytes at a time, the last with the end. Every write wakes the server's reading
/// thread, which on a busy machine then runs on the module's own core: a short message written block by block went
/// out in a dozen writes and as many switches between the two. Nothing waits longer than
/// `batchWait` (and one pull), so a message rendered slowly, a long stretch never heard before, still streams:
/// the first block alone plays for 12 ms.
struct MessageWorker {
    /// The most bytes gathered for one write: under a pipe's 64 KiB, so that a write into a pipe the server has
    /// emptied never stops half way.
    static let batchByteCount = 48 * 1_024
    /// The longest gathered bytes wait for a write, in nanoseconds.
    static let batchWait: UInt64 = 1_000_000

    let output: OutputChannel
    private var floats = [Float](repeating: 0, count: ModuleServer.pullFrameCount)
    private var pending = [Int16](repeating: 0, count: AudioBlock.maximumSampleCount)
    private var pendingCount = 0
    private var hasSentAudio = false
    /// Replies, events and blocks waiting for a write.
    private let outbox = Outbox(
        byteCount: batchByteCount + AudioBlock.maximumEncodedByteCount(sampleCount: AudioBlock.maximumSampleCount))
    /// Whether the message's first write (its `200`, `701` and first block) has gone; what follows it may be
    /// batched, and is dropped when the message stops.
    private var hasWritten = false
    /// When the outbox was last written, from `monotonicNanoseconds()`.
    private var lastWrite: UInt64 = 0
    private var rendering: (any SpeechRendering)?
    private var standardError = StandardErrorStream()

    init(output: OutputChannel) { self.output = output }

    /// Sends `reply` and `701 BEGIN`, plans `request` and renders its first pull; returns whether more remains.
    mutating func begin(_ request: ModuleRequest, reply: String, engine: any SpeechEngine) -> Bool {
        outbox.append(reply)
        outbox.append(ModuleEvent.begin.text)
        pendingCount = 0
        hasSentAudio = false
        hasWritten = false
        do {
            rendering = try engine.start(request)
        } catch {
            print("error: \(error)", to: &standardError)
            outbox.append(ModuleEvent.end.text)
            flush()
            return false
        }
        return proceed(isPauseRequested: false, frameCount: ModuleServer.firstPullFrameCount)
    }

    /// Renders `rendering` as a message (at most eight pulls of it) and converts and encodes its audio, sending
    /// nothing.
    mutating func warmUp(_ rendering: any SpeechRendering) {
        for _ in 0..<8 {
            guard
                let pull = try? floats.withUnsafeMutableBufferPointer({ buffer throws(SpeechServiceError) in
                    try rendering.render(into: buffer)
                })
            else { return }
            floats.withUnsafeBufferPointer { source in
                pending.withUnsafeMutableBufferPointer { destination in
                    PCM16.convert(UnsafeBufferPointer(rebasing: source[..<pull.frameCount]), into: destination)
                    outbox.appendBlock(
                        UnsafeBufferPointer(rebasing: destination[..<pull.frameCount]), sampleRate: rendering.sampleRate
                    )
                }
            }
            outbox.removeAll()
            if pull.isComplete { return }
        }
    }

    /// The cancellation of the message being rendered.
    var cancellation: Cancellation? { rendering?.cancellation }

    /// Renders one pull of the message and sends what it reached when it is due; returns whether more remains.
    mutating func proceed(isPauseRequested: Bool, frameCount: Int = ModuleServer.pullFrameCount) -> Bool {
        let hasMore = pull(isPauseRequested: isPauseRequested, frameCount: frameCount)
        if !hasMore || !hasWritten || outbox.count >= Self.batchByteCount
            || monotonicNanoseconds() - lastWrite >= Self.batchWait
        {
            flush()
        }
        return hasMore
    }

    /// Renders one pull of the message into the outbox; returns whether more remains.
    private mutating func pull(isPauseRequested: Bool, frameCount: Int) -> Bool {
        guard let rendering else { return false }
        // Checked before the pull, which would otherwise end the message as if it were complete.
        if rendering.cancellation.isCancelled {
            // The server stops at once: the audio and marks not yet written would only be read to be thrown away.
            if hasWritten { outbox.removeAll() }
            return finish(.stop)
        }
        let pull: RenderedPull
        do {
            pull = try floats.withUnsafeMutableBufferPointer { buffer throws(SpeechServiceError) in
                try rendering.render(into: UnsafeMutableBufferPointer(rebasing: buffer[..<frameCount]))
            }
        } catch {
            print("error: \(error)", to: &standardError)
            send(rendering)
            return finish(.end)
        }
        var position = 0
        for mark in pull.marks {
            append(position..<mark.frameOffset, rendering)
            send(rendering)
            outbox.append(ModuleEvent.indexMark(mark.name).text)
            position = mark.frameOffset
            if isPauseRequested && mark.name.hasPrefix("__spd_") {
                // The server resumes from this mark with a new message.
                return finish(.pause)
            }
        }
        append(position..<pull.frameCount, rendering)
        // The first audio leaves at once, so speech starts after one pull, not after a whole block.
        if pull.isComplete || !hasSentAudio { send(rendering) }
        guard pull.isComplete else { return true }
        // A STOP raised during the pull ends it complete and empty: that is a stop, not the message's end.
        return finish(rendering.cancellation.isCancelled ? .stop : .end)
    }

    private mutating func finish(_ event: ModuleEvent) -> Bool {
        outbox.append(event.text)
        rendering = nil
        return false
    }

    /// Writes what the outbox holds, if anything.
    private mutating func flush() {
        guard !outbox.isEmpty else { return }
        output.send(outbox.bytes)
        outbox.removeAll()
        hasWritten = true
        lastWrite = monotonicNanoseconds()
    }

    /// Converts `frames` of the last pull to 16-bit into the pending block, sending each block that fills up.
    private mutating func append(_ frames: Range<Int>, _ rendering: any SpeechRendering) {
        var start = frames.lowerBound
        while start < frames.upperBound {
            let count = min(frames.upperBound - start, AudioBlock.maximumSampleCount - pendingCount)
            floats.withUnsafeBufferPointer { source in
                pending.withUnsafeMutableBufferPointer { destination in
                    PCM16.convert(
                        UnsafeBufferPointer(rebasing: source[start..<start + count]),
                        into: UnsafeMutableBufferPointer(rebasing: destination[pendingCount..<pendingCount + count]))
                }
            }
            pendingCount += count
            start += count
            if pendingCount == AudioBlock.maximumSampleCount { send(rendering) }
        }
    }

    /// Puts the pending samples in the outbox as one `705` block, if there are any.
    private mutating func send(_ rendering: any SpeechRendering) {
        guard pendingCount > 0 else { return }
        let count = pendingCount
        pending.withUnsafeBufferPointer { samples in
            outbox.appendBlock(UnsafeBufferPointer(rebasing: samples[0..<count]), sampleRate: rendering.sampleRate)
        }
        pendingCount = 0
        hasSentAudio = true
    }
}

/// Bytes gathered for one write, in memory of its own: an audio block is encoded where it is written from.
final class Outbox {
    private var storage: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    /// Room for `byteCount` bytes to begin with; it grows when more come (a message's marks have no limit).
    init(byteCount: Int) { storage = .allocate(byteCount: byteCount, alignment: 16) }

    deinit { storage.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The bytes gathered, valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[..<count]) }

    func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            reserve(utf8.count).copyMemory(from: UnsafeRawBufferPointer(utf8))
            count += utf8.count
        }
    }

    /// Adds the `705` event of `samples` (`AudioBlock.encode`).
    func appendBlock(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int) {
        let free = reserve(AudioBlock.maximumEncodedByteCount(sampleCount: samples.count))
        count += AudioBlock.encode(samples, sampleRate: sampleRate, into: free)
    }

    func removeAll() { count = 0 }

    /// The room after the gathered bytes, at least `byteCount` of it.
    private func reserve(_ byteCount: Int) -> UnsafeMutableRawBufferPointer {
        if storage.count - count < byteCount {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * (count + byteCount), alignment: 16)
            grown.copyMemory(from: bytes)
            storage.deallocate()
            storage = grown
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[count...])
    }
}
