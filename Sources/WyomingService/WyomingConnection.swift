// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import ConcatSynth
import NIOCore
import NIOPosix
import SpeechCore

/// One client's conversation: its events in, its audio out, one request spoken at a time in the order asked.
///
/// Lives on the connection's event loop; renders run on the server's thread pool a chunk at a time (see
/// `SpeechJob`). Faults in what the client sends (an over-long or malformed event, an unknown event type) answer
/// with an `error` event and close this connection only; a request that cannot be spoken (an unknown voice, a
/// missing field) answers with an `error` event and the connection goes on.
final class WyomingConnection: ChannelInboundHandler {
    typealias InboundIn = WyomingEvent
    typealias OutboundOut = ByteBuffer

    private let service: WyomingService
    /// Where its renders run.
    private let threadPool: NIOThreadPool
    /// How the log names this client.
    private let name: String

    /// What the client asked for, in order: events to send, and requests to speak.
    private enum Work {
        case send(WyomingEvent)
        case speak(Speaking)
    }
    private var queue = CircularBuffer<Work>()

    /// A request being spoken, and how far it got.
    private struct Speaking {
        var job: SpeechJob
        var voice: String
        var characterCount: Int
        var isStreamed: Bool
        var receivedAt: NIODeadline
        var firstChunkAt: NIODeadline?
        var frameCount = 0
        var isStepRunning = false
        var isWaitingForClient = false
    }
    private var speaking: Speaking?

    /// A text stream between `synthesize-start` and `synthesize-stop`: its voice (`nil` when the voice asked for
    /// was refused, and the stream's text is dropped) and the sentences not complete yet.
    private struct TextStream {
        var voice: SynthesizerPools.Voice?
        var textFormat: String?
        var splitter = SentenceSplitter()
    }
    private var textStream: TextStream?
    private var isOpen = true

    init(service: WyomingService, threadPool: NIOThreadPool, name: String) {
        self.service = service
        self.threadPool = threadPool
        self.name = name
    }

    // MARK: Events in

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let event = unwrapInboundIn(data)
        do throws(WyomingError) {
            try handle(event, context: context)
        } catch .unknownEvent(let type) {
            fail(.unknownEvent(type: type), context: context)
        } catch {
            service.log("\(name) \(event.type): \(error)")
            queue.append(.send(Self.errorEvent(error)))
        }
        sendNext(context: context)
    }

    private func handle(_ event: WyomingEvent, context: ChannelHandlerContext) throws(WyomingError) {
        let receivedAt = NIODeadline.now()
        switch event.type {
        case "describe":
            queue.append(.send(service.info))
        case "synthesize":
            // A client that streams sends the whole text as `synthesize` too, for servers that do not stream;
            // the stream speaks it already.
            guard textStream == nil else { return }
            guard let text = event.data["text"]?.string else {
                throw .missingField(type: event.type, field: "text")
            }
            let voice = try service.voice(for: event.data["voice"])
            speak(text, format: event.data["text_format"]?.string, voice: voice, isStreamed: false, at: receivedAt)
        case "synthesize-start":
            textStream = TextStream(voice: nil, textFormat: event.data["text_format"]?.string)
            textStream?.voice = try service.voice(for: event.data["voice"])
        case "synthesize-chunk":
            guard textStream != nil else { throw .noTextStream(type: event.type) }
            guard let text = event.data["text"]?.string else {
                throw .missingField(type: event.type, field: "text")
            }
            for sentence in textStream!.splitter.add(text) {
                speakStreamed(sentence, at: receivedAt)
            }
        case "synthesize-stop":
            guard textStream != nil else { throw .noTextStream(type: event.type) }
            if let rest = textStream!.splitter.finish() { speakStreamed(rest, at: receivedAt) }
            textStream = nil
            queue.append(.send(WyomingEvent(type: "synthesize-stopped")))
        case "ping":
            var pong: [String: JSONValue] = [:]
            if let text = event.data["text"] { pong["text"] = text }
            queue.append(.send(WyomingEvent(type: "pong", data: .object(pong))))
        case "select-program":
            let program = event.data["name"]?.string
            guard program == nil || program == WyomingService.programName else {
                throw .unknownProgram(name: program ?? "", available: WyomingService.programName)
            }
        default:
            throw .unknownEvent(type: event.type)
        }
    }

    private func speakStreamed(_ sentence: String, at receivedAt: NIODeadline) {
        guard let stream = textStream, let voice = stream.voice else { return }
        speak(sentence, format: stream.textFormat, voice: voice, isStreamed: true, at: receivedAt)
    }

    private func speak(
        _ text: String, format: String?, voice: SynthesizerPools.Voice, isStreamed: Bool, at receivedAt: NIODeadline
    ) {
        // Text that starts with `<` is SSML, as everywhere in concat-synth, unless the client says it is plain.
        let identifier = voice.settings.identifier
        let request = SpeechRequest(format == "text" ? .text(text) : .ssml(text), voice: identifier, isLenient: true)
        let job = SpeechJob(request: request, pool: voice.pool, logPrefix: name, log: service.log)
        queue.append(
            .speak(
                Speaking(
                    job: job, voice: identifier, characterCount: text.count, isStreamed: isStreamed,
                    receivedAt: receivedAt)))
    }

    // MARK: Events out

    /// Sends what is queued, up to the next request to speak, and starts speaking it.
    private func sendNext(context: ChannelHandlerContext) {
        var wrote = false
        while isOpen, speaking == nil, let work = queue.popFirst() {
            switch work {
            case .send(let event):
                write(event, context: context)
                wrote = true
            case .speak(let request):
                speaking = request
                renderStep(context: context)
            }
        }
        if wrote { context.flush() }
    }

    private func write(_ event: WyomingEvent, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(event.encoded(allocator: context.channel.allocator)), promise: nil)
    }

    private func writeAudio(_ type: String, payload: ByteBuffer?, context: ChannelHandlerContext) {
        let event = WyomingEvent(type: type, payload: payload)
        context.write(
            wrapOutboundOut(event.encoded(dataBytes: WyomingAudio.formatJSON, allocator: context.channel.allocator)),
            promise: nil)
    }

    /// Renders the next chunk of the request being spoken on a render thread.
    private func renderStep(context: ChannelHandlerContext) {
        guard let job = speaking?.job else { return }
        speaking!.isStepRunning = true
        speaking!.isWaitingForClient = false
        let allocator = context.channel.allocator
        threadPool.runIfActive(eventLoop: context.eventLoop) { try job.step(allocator: allocator) }
            .assumeIsolated()
            .whenComplete { result in self.rendered(result, context: context) }
    }

    private func rendered(_ result: Result<SpeechJob.Step, any Error>, context: ChannelHandlerContext) {
        guard var request = speaking else { return }
        request.isStepRunning = false
        guard isOpen else {
            request.job.end()
            speaking = nil
            return
        }
        switch result {
        case .failure(let error):
            request.job.end()
            speaking = nil
            service.log("\(name) synthesize voice \(request.voice): \(error)")
            write(Self.errorEvent(error), context: context)
            context.flush()
            sendNext(context: context)
        case .success(let step):
            if request.firstChunkAt == nil {
                request.firstChunkAt = .now()
                writeAudio("audio-start", payload: nil, context: context)
            }
            if step.frameCount > 0 { writeAudio("audio-chunk", payload: step.audio, context: context) }
            request.frameCount += step.frameCount
            if step.isComplete {
                writeAudio("audio-stop", payload: nil, context: context)
                context.flush()
                speaking = nil
                logDone(request)
                sendNext(context: context)
                return
            }
            context.flush()
            speaking = request
            if context.channel.isWritable {
                renderStep(context: context)
            } else {
                speaking!.isWaitingForClient = true
            }
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, speaking?.isWaitingForClient == true { renderStep(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func logDone(_ request: Speaking) {
        let now = NIODeadline.now()
        let milliseconds = { (from: NIODeadline, to: NIODeadline) in Double((to - from).nanoseconds) / 1e6 }
        let firstChunk = milliseconds(request.receivedAt, request.firstChunkAt ?? now)
        let total = milliseconds(request.receivedAt, now)
        let audioSeconds = Double(request.frameCount) / Double(WyomingAudio.rate)
        let factor = total > 0 ? audioSeconds * 1_000 / total : 0
        let fallbacks = request.job.fallbackCount
        service.log(
            "\(name) \(request.isStreamed ? "sentence" : "synthesize") voice \(request.voice), "
                + "\(request.characterCount) characters: first chunk \(decimal(firstChunk, places: 2)) ms, "
                + "\(decimal(audioSeconds, places: 3)) s of audio in \(decimal(total, places: 2)) ms "
                + "(\(decimal(factor, places: 0))x real time)"
                + (fallbacks > 0 ? ", \(fallbacks) fallback\(fallbacks == 1 ? "" : "s")" : ""))
    }

    // MARK: Faults

    private static func errorEvent(_ error: any Error) -> WyomingEvent {
        let code: String
        switch error {
        case let error as WyomingError: code = error.code
        case _ where ConcatSynthError(engineError: error) != nil: code = "synthesis-failed"
        default: code = "server-error"
        }
        return WyomingEvent(type: "error", data: .object(["text": .string("\(error)"), "code": .string(code)]))
    }

    /// Answers a fault with an `error` event and closes this connection.
    private func fail(_ error: WyomingError, context: ChannelHandlerContext) {
        service.log("\(name) closed: \(error)")
        stopSpeaking()
        context.writeAndFlush(wrapOutboundOut(Self.errorEvent(error).encoded(allocator: context.channel.allocator)))
            .assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
        isOpen = false
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard isOpen else { return }
        if let error = error as? WyomingError {
            fail(error, context: context)
        } else {
            // The connection itself failed (reset by the client, say): nobody is left to tell. A client that closes
            // with audio still unread resets the connection, so this is how most hang-ups mid-request arrive.
            if speaking != nil {
                logGoneMidRequest(reason: "\(error)")
            } else {
                service.log("\(name) closed: \(error)")
            }
            stopSpeaking()
            isOpen = false
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isOpen && speaking != nil { logGoneMidRequest(reason: nil) }
        isOpen = false
        stopSpeaking()
        context.fireChannelInactive()
    }

    /// The request's one log line when its client goes before its audio ends: the render is cancelled.
    private func logGoneMidRequest(reason: String?) {
        guard let request = speaking else { return }
        let sent = decimal(Double(request.frameCount) / Double(WyomingAudio.rate), places: 3)
        service.log(
            "\(name) went away while voice \(request.voice) spoke\(reason.map { " (\($0))" } ?? ""); \(sent) s of audio sent, render cancelled"
        )
    }

    /// Cancels the render in progress and drops what is queued; the job ends when its running step returns.
    private func stopSpeaking() {
        queue.removeAll()
        guard let request = speaking else { return }
        request.job.cancel()
        if !request.isStepRunning {
            request.job.end()
            speaking = nil
        }
    }
}
