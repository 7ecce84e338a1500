import Synchronization

/// speech-dispatcher's output-module protocol over an engine: reads commands from one file descriptor and answers
/// on another, with audio going to the server as `705` blocks.
///
/// The thread that calls `run()` reads commands the whole time; messages render on a thread of their own, so
/// `STOP` ends a message within one pull (`703 STOP`) and `PAUSE` at its next `__spd_` mark (`704 PAUSE`).
///
/// ```swift
/// let server = ModuleServer(input: STDIN_FILENO, output: STDOUT_FILENO) { () throws(SpeechServiceError) in
///     try ConcatSynthEngine(packPath: "/usr/local/share/concat-synth/default.sqlite")
/// }
/// exit(server.run())
/// ```
public final class ModuleServer: @unchecked Sendable {
    /// Frames per pull: 46 ms of audio, rendered in microseconds, so a STOP waits for no more than that.
    public static let pullFrameCount = 1024

    private let input: LineReader
    private let output: OutputChannel
    private let openEngine: () throws(SpeechServiceError) -> any SpeechEngine
    private let soundIconFolder: String?
    private var settings = ModuleSettings()
    private var standardError = StandardErrorStream()
    private let rendering = RenderingThread()

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
        let voiceCount = engine.voices.count
        output.send(
            "299-concat-synth: voice pack \(engine.packPath), \(voiceCount) voice\(voiceCount == 1 ? "" : "s")\n"
                + "299 OK LOADED SUCCESSFULLY\n")
        let voices = engine.voices
        let thread = rendering
        let output = output
        // From here on only the rendering thread uses the engine; the command thread keeps its voice list.
        let handOff = EngineHandOff(engine: engine)
        startThread { thread.serve(engine: handOff.engine, output: output) }
        defer { rendering.shutDown() }
        while let line = input.readLine() {
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
                for line in lines where !settings.apply(line: line) {
                    print("note: SET \(line) ignored", to: &standardError)
                }
                output.send("203 OK SETTINGS RECEIVED\n")
            case .speak(let kind):
                guard let lines = readBlock(reply: "202 OK RECEIVING MESSAGE") else { return 0 }
                speak(lines, kind: kind, voices: voices)
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

    private func speak(_ lines: [String], kind: MessageKind, voices: [ModuleVoice]) {
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
        output.send("200 OK SPEAKING\n")
        if kind == .soundIcon, let folder = soundIconFolder, let icon = Self.soundIcon(message, in: folder) {
            rendering.submit(.icon(path: icon))
        } else {
            rendering.submit(.speech(SpeechRequest(message: message, kind: kind, settings: settings, voices: voices)))
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

/// An engine on its way to the thread that renders, which is the only one to use it from then on.
private struct EngineHandOff: @unchecked Sendable {
    let engine: any SpeechEngine
}

/// Replies and events to the server: each written whole under one lock, so a reply from the command thread never
/// lands inside an audio block from the rendering thread.
final class OutputChannel: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = Mutex(())

    init(descriptor: Int32) { self.descriptor = descriptor }

    func send(_ text: String) {
        var text = text
        text.withUTF8 { send(UnsafeRawBufferPointer($0)) }
    }

    func send(_ bytes: UnsafeRawBufferPointer) {
        lock.withLock { _ in
            do {
                try writeAll(descriptor, bytes)
            } catch {
                // The server is gone: nothing is left to serve.
                var standardError = StandardErrorStream()
                print("error: \(error); exiting", to: &standardError)
                exit(0)
            }
        }
    }
}

/// The thread that renders messages one at a time, and the flags the command thread sets for it.
final class RenderingThread: @unchecked Sendable {
    enum Job {
        case speech(SpeechRequest)
        case icon(path: String)
    }

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var pending: Job?
    private var isBusy = false
    private var isShuttingDown = false
    // Read between pulls without the lock; set by the command thread, cleared only when a job is submitted.
    private let isStopRequested = Atomic<Bool>(false)
    private let isPauseRequested = Atomic<Bool>(false)

    func submit(_ job: Job) {
        lock.withLock {
            // Cleared here, on the command thread, so a STOP that follows this SPEAK is never lost to the reset.
            isStopRequested.store(false, ordering: .sequentiallyConsistent)
            isPauseRequested.store(false, ordering: .sequentiallyConsistent)
            pending = job
            isBusy = true
            lock.broadcast()
        }
    }

    func requestStop() { isStopRequested.store(true, ordering: .sequentiallyConsistent) }

    func requestPause() { isPauseRequested.store(true, ordering: .sequentiallyConsistent) }

    /// Stops the message playing, if any, and waits until its `703 STOP` (or its end) has been sent.
    func stopAndWait() {
        lock.withLock {
            guard isBusy else { return }
            isStopRequested.store(true, ordering: .sequentiallyConsistent)
            while isBusy { lock.wait() }
        }
    }

    func shutDown() {
        stopAndWait()
        lock.withLock {
            isShuttingDown = true
            lock.broadcast()
        }
    }

    /// The thread's loop: waits for a job, renders it, repeats until shut down.
    func serve(engine: any SpeechEngine, output: OutputChannel) {
        var worker = MessageWorker(output: output)
        while true {
            let job: Job? = lock.withLock {
                while pending == nil && !isShuttingDown { lock.wait() }
                defer { pending = nil }
                return pending
            }
            guard let job else { return }
            switch job {
            case .speech(let request):
                worker.speak(
                    request, engine: engine,
                    isStopRequested: { self.isStopRequested.load(ordering: .sequentiallyConsistent) },
                    isPauseRequested: { self.isPauseRequested.load(ordering: .sequentiallyConsistent) })
            case .icon(let path):
                output.send(ModuleEvent.begin.text + ModuleEvent.icon(path: path).text + ModuleEvent.end.text)
            }
            lock.withLock {
                isBusy = false
                lock.broadcast()
            }
        }
    }
}

/// Renders one message into events: `701`, the `705` blocks with a `700` after the audio before each mark, then
/// `702`, `703` or `704`. Its buffers are made once and reused for every message.
struct MessageWorker {
    let output: OutputChannel
    private var floats = [Float](repeating: 0, count: ModuleServer.pullFrameCount)
    private var pending = [Int16](repeating: 0, count: AudioBlock.maximumSampleCount)
    private var pendingCount = 0
    private var blockBytes: [UInt8] = []
    private var hasSentAudio = false
    private var standardError = StandardErrorStream()

    init(output: OutputChannel) {
        self.output = output
        blockBytes.reserveCapacity(AudioBlock.maximumSampleCount * 4 + 200)
    }

    mutating func speak(
        _ request: SpeechRequest, engine: any SpeechEngine, isStopRequested: () -> Bool, isPauseRequested: () -> Bool
    ) {
        output.send(ModuleEvent.begin.text)
        pendingCount = 0
        hasSentAudio = false
        let rendering: any SpeechRendering
        do {
            rendering = try engine.start(request)
        } catch {
            print("error: \(error)", to: &standardError)
            output.send(ModuleEvent.end.text)
            return
        }
        while true {
            if isStopRequested() {
                rendering.cancel()
                output.send(ModuleEvent.stop.text)
                return
            }
            let pull: RenderedPull
            do {
                pull = try floats.withUnsafeMutableBufferPointer { buffer throws(SpeechServiceError) in
                    try rendering.render(into: buffer)
                }
            } catch {
                print("error: \(error)", to: &standardError)
                send(rendering)
                output.send(ModuleEvent.end.text)
                return
            }
            var position = 0
            for mark in pull.marks {
                append(position..<mark.frameOffset, rendering)
                send(rendering)
                output.send(ModuleEvent.indexMark(mark.name).text)
                position = mark.frameOffset
                if isPauseRequested() && mark.name.hasPrefix("__spd_") {
                    // The server resumes from this mark with a new message.
                    rendering.cancel()
                    output.send(ModuleEvent.pause.text)
                    return
                }
            }
            append(position..<pull.frameCount, rendering)
            // The first audio leaves at once, so speech starts after one pull, not after a whole block.
            if pull.isComplete || !hasSentAudio { send(rendering) }
            if pull.isComplete {
                output.send(ModuleEvent.end.text)
                return
            }
        }
    }

    /// Converts `frames` of the last pull to 16-bit into the pending block, sending each block that fills up.
    private mutating func append(_ frames: Range<Int>, _ rendering: any SpeechRendering) {
        var start = frames.lowerBound
        while start < frames.upperBound {
            let count = min(frames.upperBound - start, AudioBlock.maximumSampleCount - pendingCount)
            let gain = rendering.outputGain
            floats.withUnsafeBufferPointer { source in
                pending.withUnsafeMutableBufferPointer { destination in
                    AudioBlock.convert(
                        UnsafeBufferPointer(rebasing: source[start..<start + count]), gain: gain,
                        into: UnsafeMutableBufferPointer(rebasing: destination[pendingCount..<pendingCount + count]))
                }
            }
            pendingCount += count
            start += count
            if pendingCount == AudioBlock.maximumSampleCount { send(rendering) }
        }
    }

    /// Sends the pending samples as one `705` block, if there are any.
    private mutating func send(_ rendering: any SpeechRendering) {
        guard pendingCount > 0 else { return }
        let count = pendingCount
        pending.withUnsafeBufferPointer { samples in
            AudioBlock.encode(
                UnsafeBufferPointer(rebasing: samples[0..<count]), sampleRate: rendering.sampleRate, into: &blockBytes)
        }
        blockBytes.withUnsafeBytes { output.send($0) }
        pendingCount = 0
        hasSentAudio = true
    }
}
