import ConcatSynth
import NIOCore
import NIOHTTP1

/// Before the HTTP decoder, the limits a request's bytes have: its line and headers at most
/// `HTTPLimits.maximumHeaderBytes` (431), the whole request within `HTTPLimits.requestSeconds` of its first byte
/// (408). The decoder keeps no such limits of its own below 80 KiB of headers, and none in time.
final class RequestGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limits: HTTPLimits
    /// The bytes of the head of the request coming.
    private var headBytes = 0
    private var isAwaitingHead = true
    private var deadline: Scheduled<Void>?
    private var isRefused = false
    /// Told what was refused, for the log.
    var onRefusal: ((String) -> Void)?

    init(limits: HTTPLimits) { self.limits = limits }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefused else { return }
        if isAwaitingHead {
            if deadline == nil { startDeadline(context: context) }
            // Counted up to the blank line that ends the head; what follows is the body, the connection's to limit.
            for byte in unwrapInboundIn(data).readableBytesView {
                headBytes += 1
                terminatorMatched =
                    byte == Self.terminator[terminatorMatched] ? terminatorMatched + 1 : (byte == 13 ? 1 : 0)
                if terminatorMatched == Self.terminator.count {
                    isAwaitingHead = false
                    break
                }
            }
            if headBytes > limits.maximumHeaderBytes {
                refuse(
                    context: context, status: .requestHeaderFieldsTooLarge,
                    message: "the request's line and headers are over \(limits.maximumHeaderBytes) bytes")
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// The blank line that ends a request's head.
    private static let terminator: [UInt8] = [13, 10, 13, 10]
    /// How much of `terminator` the last bytes received matched.
    private var terminatorMatched = 0

    /// The request was read whole: the next bytes start the next one.
    func requestEnded() {
        deadline?.cancel()
        deadline = nil
        isAwaitingHead = true
        headBytes = 0
        terminatorMatched = 0
    }

    private func startDeadline(context: ChannelHandlerContext) {
        let seconds = limits.requestSeconds
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) { [self] in
            refuse(
                context: context, status: .requestTimeout,
                message: "the request was not sent whole within \(seconds) s of its first byte")
        }
    }

    /// Answers with `status` and an OpenAI-style error naming the limit, written past the HTTP encoder, and closes
    /// the connection: what comes after a refused head cannot be read as a request.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) {
        guard !isRefused else { return }
        isRefused = true
        deadline?.cancel()
        onRefusal?("\(status.code) \(message)")
        let body = OpenAIAPI.errorBody(APIError(status: status, type: "invalid_request_error", message: message))
        var buffer = context.channel.allocator.buffer(capacity: body.count + 160)
        buffer.writeString(
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\ncontent-type: application/json\r\n"
                + "content-length: \(body.count)\r\nconnection: close\r\n\r\n")
        buffer.writeBytes(body)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// One client's connection: reads each request whole (within the limits), answers the voice and model lists at once,
/// and renders speech on the server's render threads, a chunk per step, writing each as the client takes the last.
final class HTTPConnection: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let service: HTTPSpeechService
    private let requestGuard: RequestGuard
    private let name: String
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var isOpen = true
    /// The answer being rendered and sent.
    private var speaking: Speaking?

    private struct Speaking {
        var job: HTTPSpeechJob
        var requestLine: String
        var isKeepAlive: Bool
        var receivedAt: NIODeadline
        var isHeadSent = false
        var byteCount = 0
        var isStepRunning = false
        var isWaitingForClient = false
    }

    init(service: HTTPSpeechService, guard requestGuard: RequestGuard, name: String) {
        self.service = service
        self.requestGuard = requestGuard
        self.name = name
        requestGuard.onRefusal = { [service] in service.log("\(name) refused: \($0)") }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard isOpen else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard speaking == nil else {
                // HTTP/1.1 pipelining, which no speech client does: an answer cannot be written in the middle of
                // another, so the connection closes.
                service.log("\(name) closed: \(head.method) \(head.uri) came before the last answer ended")
                stop()
                isOpen = false
                context.close(promise: nil)
                return
            }
            self.head = head
            body = context.channel.allocator.buffer(capacity: 0)
            if let length = head.headers.first(name: "content-length").flatMap(Int.init),
                length > service.limits.maximumBodyBytes
            {
                refuse(tooLarge(length), head: head, context: context)
            }
        case .body(var chunk):
            guard head != nil, body != nil else { return }
            if body!.readableBytes + chunk.readableBytes > service.limits.maximumBodyBytes {
                refuse(tooLarge(body!.readableBytes + chunk.readableBytes), head: head!, context: context)
                return
            }
            body!.writeBuffer(&chunk)
        case .end:
            requestGuard.requestEnded()
            guard let head, let body else { return }
            self.head = nil
            self.body = nil
            answer(head, body: Array(body.readableBytesView), context: context)
        }
    }

    private func tooLarge(_ bytes: Int) -> APIError {
        APIError(
            status: .payloadTooLarge, type: "invalid_request_error",
            message: "the request body is \(bytes) bytes, over the \(service.limits.maximumBodyBytes) this server takes"
        )
    }

    /// Answers `error` and closes the connection, whose further bytes are not read.
    private func refuse(_ error: APIError, head: HTTPRequestHead, context: ChannelHandlerContext) {
        service.log("\(name) \(head.method) \(head.uri): \(error.status.code) \(error.message)")
        send(error, for: head.uri, isKeepAlive: false, context: context)
        isOpen = false
    }

    // MARK: Routes

    private func answer(_ head: HTTPRequestHead, body: [UInt8], context: ChannelHandlerContext) {
        let requestLine = "\(head.method) \(head.uri)"
        let (path, query) = Self.split(head.uri)
        if let key = service.apiKey, head.headers.first(name: "authorization") != "Bearer \(key)" {
            let error = APIError(
                status: .unauthorized, type: "authentication_error",
                message: "the request has no valid API key; expected the header Authorization: Bearer KEY")
            finish(error, head: head, requestLine: requestLine, context: context)
            return
        }
        let pools = service.pools
        do throws(APIError) {
            switch (head.method, path) {
            case (.POST, "/v1/audio/speech"):
                let order = try OpenAIAPI.order(body: body, voices: pools)
                speak(order, head: head, requestLine: requestLine, context: context)
            case (.GET, "/v1/models"):
                sendBody(OpenAIAPI.json(OpenAIAPI.ModelList()), type: "application/json", head: head, context: context)
            case (.GET, "/v1/audio/voices"):
                sendBody(
                    OpenAIAPI.json(OpenAIAPI.VoiceList(pools)), type: "application/json", head: head, context: context)
            case (.GET, "/process"), (.POST, "/process"):
                let parameters = MaryAPI.parameters(head.method == .GET ? query : String(decoding: body, as: UTF8.self))
                let order = try MaryAPI.order(parameters: parameters, voices: pools)
                speak(order, head: head, requestLine: requestLine, context: context)
            case (.GET, "/voices"):
                sendBody(Array(MaryAPI.voiceLines(pools).utf8), type: "text/plain", head: head, context: context)
            case (.GET, "/locales"):
                sendBody(Array(MaryAPI.localeLines(pools).utf8), type: "text/plain", head: head, context: context)
            case (.GET, "/version"):
                sendBody(Array(MaryAPI.version.utf8), type: "text/plain", head: head, context: context)
            case (_, let path) where Self.methods[path] != nil:
                throw APIError(
                    status: .methodNotAllowed, type: "invalid_request_error",
                    message: "\(head.method) is not a method of \(path); expected \(Self.methods[path]!)")
            default:
                throw APIError(
                    status: .notFound, type: "not_found_error",
                    message:
                        "no endpoint \(path); expected POST /v1/audio/speech, GET /v1/models, GET /v1/audio/voices, GET or POST /process, GET /voices, /locales or /version"
                )
            }
        } catch {
            finish(error, head: head, requestLine: requestLine, context: context)
            return
        }
        if speaking == nil { service.log("\(name) \(requestLine) 200") }
    }

    /// Each endpoint's methods, for a 405's message.
    private static let methods = [
        "/v1/audio/speech": "POST", "/v1/models": "GET", "/v1/audio/voices": "GET", "/process": "GET or POST",
        "/voices": "GET", "/locales": "GET", "/version": "GET",
    ]

    /// A request target's path and query.
    static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    private func finish(
        _ error: APIError, head: HTTPRequestHead, requestLine: String, context: ChannelHandlerContext
    ) {
        service.log("\(name) \(requestLine) \(error.status.code): \(error.message)")
        send(error, for: head.uri, isKeepAlive: head.isKeepAlive, context: context)
    }

    /// An error as its endpoint's clients read one: OpenAI's JSON under `/v1/`, a line of text for MaryTTS's.
    private func send(_ error: APIError, for uri: String, isKeepAlive: Bool, context: ChannelHandlerContext) {
        let isOpenAI = uri.hasPrefix("/v1/")
        let body = isOpenAI ? OpenAIAPI.errorBody(error) : Array((error.message + "\n").utf8)
        var headers = HTTPHeaders([
            ("content-type", isOpenAI ? "application/json" : "text/plain; charset=utf-8"),
            ("content-length", "\(body.count)"),
        ])
        if !isKeepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: error.status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        endResponse(isKeepAlive: isKeepAlive, context: context)
    }

    private func sendBody(_ body: [UInt8], type: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("content-type", type), ("content-length", "\(body.count)")])
        if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        endResponse(isKeepAlive: head.isKeepAlive, context: context)
    }

    private func endResponse(isKeepAlive: Bool, context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !isKeepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    // MARK: Speech

    private func speak(
        _ order: SpeechOrder, head: HTTPRequestHead, requestLine: String, context: ChannelHandlerContext
    ) {
        let job = HTTPSpeechJob(order: order, temporaryFolder: service.temporaryFolder)
        speaking = Speaking(job: job, requestLine: requestLine, isKeepAlive: head.isKeepAlive, receivedAt: .now())
        renderStep(context: context)
    }

    private func renderStep(context: ChannelHandlerContext) {
        guard let job = speaking?.job else { return }
        speaking!.isStepRunning = true
        speaking!.isWaitingForClient = false
        let allocator = context.channel.allocator
        service.threadPool.runIfActive(eventLoop: context.eventLoop) { try job.step(allocator: allocator) }
            .assumeIsolated()
            .whenComplete { result in self.rendered(result, context: context) }
    }

    private func rendered(_ result: Result<HTTPSpeechJob.Step, any Error>, context: ChannelHandlerContext) {
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
            if request.isHeadSent {
                // The status went out with the first chunk: cutting the answer short is all that tells the client.
                service.log("\(name) \(request.requestLine) cut short after \(request.byteCount) bytes: \(error)")
                isOpen = false
                context.close(promise: nil)
            } else {
                let apiError = Self.apiError(error)
                service.log("\(name) \(request.requestLine) \(apiError.status.code): \(apiError.message)")
                send(
                    apiError, for: request.requestLine.split(separator: " ").dropFirst().joined(separator: " "),
                    isKeepAlive: request.isKeepAlive, context: context)
            }
        case .success(let step):
            if !request.isHeadSent {
                request.isHeadSent = true
                context.write(
                    wrapOutboundOut(.head(responseHead(request, contentLength: step.contentLength))), promise: nil)
            }
            if step.bytes.readableBytes > 0 {
                request.byteCount += step.bytes.readableBytes
                context.write(wrapOutboundOut(.body(.byteBuffer(step.bytes))), promise: nil)
            }
            if step.isComplete {
                speaking = nil
                logDone(request)
                endResponse(isKeepAlive: request.isKeepAlive, context: context)
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

    private func responseHead(_ request: Speaking, contentLength: Int?) -> HTTPResponseHead {
        var headers = HTTPHeaders([("content-type", request.job.order.format.contentType)])
        if let contentLength {
            headers.add(name: "content-length", value: "\(contentLength)")
        } else {
            headers.add(name: "transfer-encoding", value: "chunked")
        }
        if !request.isKeepAlive { headers.add(name: "connection", value: "close") }
        return HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
    }

    /// A render's error as the client's fault (400: SSML, text, audio it named) or the server's (500: a pack that
    /// cannot be read).
    static func apiError(_ error: any Error) -> APIError {
        switch ConcatSynthError(error) {
        case .ssml, .text, .request, .noFallbackClip, .audioDirectory, .fallbackInStrictMode, .voiceInSeveralPacks,
            .voiceNotInCatalog:
            return .invalid("\(ConcatSynthError(error))")
        case .voicebank, .audio, .other:
            return APIError(status: .internalServerError, type: "server_error", message: "\(ConcatSynthError(error))")
        }
    }

    private func logDone(_ request: Speaking) {
        let microseconds = (NIODeadline.now() - request.receivedAt).nanoseconds / 1_000
        let fallbacks = request.job.fallbackCount
        service.log(
            "\(name) \(request.requestLine) 200 voice \(request.job.order.voice.settings.identifier), "
                + "\(request.job.order.format.name), \(request.byteCount) bytes in \(microseconds / 1_000) ms"
                + (fallbacks > 0 ? ", \(fallbacks) fallback\(fallbacks == 1 ? "" : "s")" : ""))
    }

    /// A kept-alive connection that sent nothing for `HTTPLimits.idleSeconds` between requests is closed; one waiting
    /// for its answer, or sending a request (which `RequestGuard` times), is not idle.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, speaking == nil, head == nil, isOpen {
            service.log("\(name) closed: idle for \(service.limits.idleSeconds) s")
            isOpen = false
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, speaking?.isWaitingForClient == true { renderStep(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard isOpen else { return }
        if error is HTTPParserError {
            // Bytes that are not HTTP: say so, as far as a client that sends them can read an answer.
            if let head {
                refuse(.invalid("the request is not valid HTTP/1.1 (\(error))"), head: head, context: context)
            } else {
                service.log("\(name) closed: the request is not valid HTTP/1.1 (\(error))")
                isOpen = false
                context.close(promise: nil)
            }
            return
        }
        // The connection itself failed (reset by the client, say): nobody is left to tell.
        logGoneMidRequest(reason: "\(error)")
        stop()
        isOpen = false
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isOpen { logGoneMidRequest(reason: nil) }
        isOpen = false
        stop()
        context.fireChannelInactive()
    }

    private func logGoneMidRequest(reason: String?) {
        guard let request = speaking else { return }
        service.log(
            "\(name) went away during \(request.requestLine)\(reason.map { " (\($0))" } ?? ""); \(request.byteCount) bytes sent, render cancelled"
        )
    }

    /// Cancels the render in progress; the job ends when its running step returns.
    private func stop() {
        guard let request = speaking else { return }
        request.job.cancel()
        if !request.isStepRunning {
            request.job.end()
            speaking = nil
        }
    }
}
