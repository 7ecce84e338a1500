// SPDX-License-Identifier: GPL-3.0-or-later
import NIOCore
import NIOHTTP1
import NIOPosix

/// Before the HTTP decoder, the limits a request's bytes have: its line and headers at most
/// `HTTPLimits.maximumHeaderBytes` (431), the whole request within `HTTPLimits.requestSeconds` of its first byte
/// (408). The decoder keeps no such limits of its own below 80 KiB of headers, and none in time.
///
/// After any refusal it drains the connection, as nginx's lingering close does: a server that closes while the
/// client is still sending has the kernel answer the unread bytes with a reset, which discards the refusal before a
/// client busy sending (Python's `http.client`, the `openai` package) has read it. So the answer is sent, the
/// connection's sending side is shut (the client reads the end of the answer), and what the client still sends is
/// read and dropped until it closes, or until `HTTPLimits.drainBytes` or `HTTPLimits.drainSeconds` are reached,
/// when it is cut off.
final class RequestGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limits: HTTPLimits
    /// The bytes of the head of the request coming.
    private var headBytes = 0
    private var isAwaitingHead = true
    private var deadline: Scheduled<Void>?
    /// The request was refused, here or by a handler after this one: what follows is not read.
    private(set) var isRefused = false
    /// The bytes read and dropped since the refusal's answer was sent, or nil before.
    private var drainedBytes: Int?
    private var context: ChannelHandlerContext?
    /// Told what was refused (`refused: 431 …`), and a client cut off while it drained, for the log.
    var log: ((String) -> Void)?

    init(limits: HTTPLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let drained = drainedBytes {
            drainedBytes = drained + unwrapInboundIn(data).readableBytes
            if drainedBytes! > limits.drainBytes {
                cutOff(context: context, reason: "over \(limits.drainBytes) bytes")
            }
            return
        }
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

    /// Answers with `status` and a JSON error naming the limit, written past the HTTP encoder, and drains the
    /// connection: what comes after a refused head cannot be read as a request.
    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) {
        guard !isRefused else { return }
        isRefused = true
        deadline?.cancel()
        log?("refused: \(status.code) \(message)")
        let body = APIError(status: status, type: "invalid_request_error", message: message).jsonBody
        var buffer = context.channel.allocator.buffer(capacity: body.count + 160)
        buffer.writeString(
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\ncontent-type: application/json\r\n"
                + "content-length: \(body.count)\r\nconnection: close\r\n\r\n")
        buffer.writeBytes(body)
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { [self] result in
            if case .success = result { drain() } else { context.close(promise: nil) }
        }
    }

    /// A handler after this one refused the request: the bytes that follow are dropped, and the request no longer
    /// timed.
    func refusing() {
        isRefused = true
        deadline?.cancel()
        deadline = nil
    }

    /// Once a refusal's answer is sent: shuts the sending side and drops what the client still sends, until it
    /// closes or reaches a bound.
    func drain() {
        guard let context, drainedBytes == nil else { return }
        refusing()
        drainedBytes = 0
        let seconds = limits.drainSeconds
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) { [self] in
            cutOff(context: context, reason: "for \(seconds) s")
        }
        context.close(mode: .output).assumeIsolated().whenFailure { _ in context.close(promise: nil) }
    }

    private func cutOff(context: ChannelHandlerContext, reason: String) {
        deadline?.cancel()
        deadline = nil
        log?("cut off: still sending after its refusal, \(reason)")
        context.close(promise: nil)
    }
}

/// One client's connection: reads each request whole (within the site's limits), asks the site for the answer, and
/// sends it: a body at once, or a job's steps run on the server's threads, each step sent once the client has taken
/// the last.
final class HTTPConnection: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let site: any HTTPSite
    private let threadPool: NIOThreadPool
    private let requestGuard: RequestGuard
    private let name: String
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var isOpen = true
    /// The answer being sent is a refusal: the connection drains after it rather than closing.
    private var isDraining = false
    /// The job being run and sent.
    private var answering: Answering?

    private struct Answering {
        var job: any HTTPAnswerJob
        var head: HTTPRequestHead
        var receivedAt: NIODeadline
        var isHeadSent = false
        var byteCount = 0
        var isStepRunning = false
        var isWaitingForClient = false

    }

    init(site: any HTTPSite, threadPool: NIOThreadPool, guard requestGuard: RequestGuard, name: String) {
        self.site = site
        self.threadPool = threadPool
        self.requestGuard = requestGuard
        self.name = name
        requestGuard.log = { [site] in site.log("\(name) \($0)") }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard isOpen else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard answering == nil else {
                // HTTP/1.1 pipelining, which no client of ours does: an answer cannot be written in the middle of
                // another, so the connection closes.
                site.log("\(name) closed: \(line(head)) came before the last answer ended")
                stop()
                isOpen = false
                context.close(promise: nil)
                return
            }
            self.head = head
            body = context.channel.allocator.buffer(capacity: 0)
            do throws(APIError) {
                try site.admit(HTTPRequest(head: head, body: [], localAddress: context.channel.localAddress))
            } catch {
                refuse(error, head: head, context: context)
                return
            }
            if let length = head.headers.first(name: "content-length").flatMap(Int.init),
                length > site.limits.maximumBodyBytes
            {
                refuse(tooLarge(length), head: head, context: context)
            }
        case .body(var chunk):
            guard head != nil, body != nil else { return }
            if body!.readableBytes + chunk.readableBytes > site.limits.maximumBodyBytes {
                refuse(tooLarge(body!.readableBytes + chunk.readableBytes), head: head!, context: context)
                return
            }
            body!.writeBuffer(&chunk)
        case .end:
            requestGuard.requestEnded()
            guard let head, let body else { return }
            self.head = nil
            self.body = nil
            answer(
                HTTPRequest(
                    head: head, body: Array(body.readableBytesView), localAddress: context.channel.localAddress),
                context: context)
        }
    }

    private func tooLarge(_ bytes: Int) -> APIError {
        APIError(
            status: .payloadTooLarge, type: "invalid_request_error",
            message: "the request body is \(bytes) bytes, over the \(site.limits.maximumBodyBytes) this server takes")
    }

    /// Answers `error` and drains the connection (`RequestGuard.drain()`), whose further bytes are not read.
    private func refuse(_ error: APIError, head: HTTPRequestHead?, context: ChannelHandlerContext) {
        site.log("\(name) \(head.map(line) ?? "refused"): \(error.status.code) \(error.message)")
        isDraining = true
        requestGuard.refusing()
        send(error, for: head?.uri ?? "/", isKeepAlive: false, context: context)
        isOpen = false
    }

    /// `GET /path?query`, as the site has its requests logged.
    private func line(_ head: HTTPRequestHead) -> String { "\(head.method) \(site.logged(head.uri))" }

    private func answer(_ request: HTTPRequest, context: ChannelHandlerContext) {
        let answer: HTTPAnswer
        do throws(APIError) {
            answer = try site.answer(request)
        } catch {
            site.log("\(name) \(line(request.head)) \(error.status.code): \(error.message)")
            send(error, for: request.head.uri, isKeepAlive: request.head.isKeepAlive, context: context)
            return
        }
        switch answer {
        case .body(let status, let bytes, let contentType, let extraHeaders):
            site.log("\(name) \(line(request.head)) \(status.code)")
            sendBody(
                bytes, status: status, type: contentType, headers: extraHeaders, isKeepAlive: request.head.isKeepAlive,
                context: context)
        case .job(let job):
            answering = Answering(job: job, head: request.head, receivedAt: .now())
            runStep(context: context)
        }
    }

    /// An error as the site's clients read one.
    private func send(_ error: APIError, for uri: String, isKeepAlive: Bool, context: ChannelHandlerContext) {
        let (body, type) = site.errorBody(error, uri: uri)
        sendBody(
            body, status: error.status, type: type, headers: error.allow.map { [("allow", $0)] } ?? [],
            isKeepAlive: isKeepAlive, context: context)
    }

    private func sendBody(
        _ body: [UInt8], status: HTTPResponseStatus, type: String, headers extraHeaders: [(String, String)],
        isKeepAlive: Bool, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders([("content-type", type), ("content-length", "\(body.count)")] + extraHeaders)
        if !isKeepAlive { headers.add(name: "connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        endResponse(isKeepAlive: isKeepAlive, context: context)
    }

    private func endResponse(isKeepAlive: Bool, context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if isDraining {
            written.assumeIsolated().whenComplete { [requestGuard] result in
                if case .success = result { requestGuard.drain() } else { context.close(promise: nil) }
            }
        } else if !isKeepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    // MARK: Jobs

    private func runStep(context: ChannelHandlerContext) {
        guard let job = answering?.job else { return }
        answering!.isStepRunning = true
        answering!.isWaitingForClient = false
        let allocator = context.channel.allocator
        threadPool.runIfActive(eventLoop: context.eventLoop) { try job.step(allocator: allocator) }
            .assumeIsolated()
            .whenComplete { result in self.stepped(result, context: context) }
    }

    private func stepped(_ result: Result<HTTPAnswerStep, any Error>, context: ChannelHandlerContext) {
        guard var request = answering else { return }
        request.isStepRunning = false
        guard isOpen else {
            request.job.end()
            answering = nil
            return
        }
        switch result {
        case .failure(let error):
            request.job.end()
            answering = nil
            if request.isHeadSent {
                // The status went out with the first chunk: cutting the answer short is all that tells the client.
                site.log("\(name) \(line(request.head)) cut short after \(request.byteCount) bytes: \(error)")
                isOpen = false
                context.close(promise: nil)
            } else {
                let apiError = site.apiError(for: error)
                site.log("\(name) \(line(request.head)) \(apiError.status.code): \(apiError.message)")
                send(apiError, for: request.head.uri, isKeepAlive: request.head.isKeepAlive, context: context)
            }
        case .success(let step):
            if !request.isHeadSent {
                request.isHeadSent = true
                context.write(wrapOutboundOut(.head(responseHead(request, step))), promise: nil)
            }
            if step.bytes.readableBytes > 0 {
                request.byteCount += step.bytes.readableBytes
                context.write(wrapOutboundOut(.body(.byteBuffer(step.bytes))), promise: nil)
            }
            if step.isComplete {
                answering = nil
                let milliseconds = (NIODeadline.now() - request.receivedAt).nanoseconds / 1_000_000
                site.log(
                    "\(name) \(line(request.head)) \(step.status.code) "
                        + request.job.summary(byteCount: request.byteCount, milliseconds: milliseconds))
                endResponse(isKeepAlive: request.head.isKeepAlive, context: context)
                return
            }
            context.flush()
            answering = request
            if context.channel.isWritable {
                runStep(context: context)
            } else {
                answering!.isWaitingForClient = true
            }
        }
    }

    private func responseHead(_ request: Answering, _ step: HTTPAnswerStep) -> HTTPResponseHead {
        var headers = HTTPHeaders([("content-type", step.contentType)] + step.headers)
        if let contentLength = step.contentLength {
            headers.add(name: "content-length", value: "\(contentLength)")
        } else {
            headers.add(name: "transfer-encoding", value: "chunked")
        }
        if !request.head.isKeepAlive { headers.add(name: "connection", value: "close") }
        return HTTPResponseHead(version: .http1_1, status: step.status, headers: headers)
    }

    /// A kept-alive connection that sent nothing for `HTTPLimits.idleSeconds` between requests is closed; one waiting
    /// for its answer, or sending a request (which `RequestGuard` times), is not idle.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, answering == nil, head == nil, isOpen {
            site.log("\(name) closed: idle for \(site.limits.idleSeconds) s")
            isOpen = false
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, answering?.isWaitingForClient == true { runStep(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Once refused, a client's close mid-request is the decoder's error, and the refusal's line has said it all.
        guard isOpen, !requestGuard.isRefused else { return }
        if error is HTTPParserError {
            // Bytes that are not HTTP: say so, unless an answer is being sent, which a refusal cannot cut into.
            if answering == nil {
                refuse(.invalid("the request is not valid HTTP/1.1 (\(error))"), head: head, context: context)
            } else {
                site.log("\(name) closed: the request is not valid HTTP/1.1 (\(error))")
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
        guard let request = answering else { return }
        site.log(
            "\(name) went away during \(line(request.head))\(reason.map { " (\($0))" } ?? ""); \(request.byteCount) bytes sent, answer cancelled"
        )
    }

    /// Cancels the job in progress; it ends when its running step returns.
    private func stop() {
        guard let request = answering else { return }
        request.job.cancel()
        if !request.isStepRunning {
            request.job.end()
            answering = nil
        }
    }
}
