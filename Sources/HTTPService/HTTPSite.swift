// SPDX-License-Identifier: GPL-3.0-or-later
import JSONWriter
import NIOCore
import NIOHTTP1

/// What one HTTP server answers, on the connection, limits and listener this module keeps for every server: the
/// speech API (`SpeechSite`) and the recording studio (module Studio) are each a site, whose `answer` is its
/// `RouteTable`'s.
package protocol HTTPSite: Sendable {
    var limits: HTTPLimits { get }
    /// Told one line per request and per fault, from any thread.
    var log: @Sendable (String) -> Void { get }

    /// Checks a request before its body is read (`request.body` is empty). An error is answered and the connection
    /// closed, so the body of a request the site refuses is never read.
    func admit(_ request: HTTPRequest) throws(APIError)

    /// The answer to a request read whole. Runs on the event loop: work that takes time is a job.
    func answer(_ request: HTTPRequest) throws(APIError) -> HTTPAnswer

    /// A failed job's error as its client reads it.
    func apiError(for error: any Error) -> APIError

    /// An error's body as the clients of `uri` read one, and its content type.
    func errorBody(_ error: APIError, uri: String) -> (bytes: [UInt8], contentType: String)

    /// A request target as the log shows it: without a secret it may carry.
    func logged(_ uri: String) -> String
}

extension HTTPSite {
    package func logged(_ uri: String) -> String { uri }
}

/// A request read whole, within the server's limits.
package struct HTTPRequest: Sendable {
    package var head: HTTPRequestHead
    package var body: [UInt8]
    /// The address and port of this machine the request came to.
    package var localAddress: SocketAddress?
    /// The parameters its route's path pattern found: `id` of `/api/takes/:id/position` (`RouteTable`).
    package var parameters: [String: String] = [:]

    package init(head: HTTPRequestHead, body: [UInt8], localAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.localAddress = localAddress
    }

    /// The request target's path: `/process` of `/process?INPUT_TEXT=Hello`.
    package var path: String { Self.split(head.uri).path }
    /// The request target's query: `INPUT_TEXT=Hello` of `/process?INPUT_TEXT=Hello`.
    package var query: String { Self.split(head.uri).query }

    /// The query's parameters (`formParameters`).
    package var queryParameters: [String: String] { Self.formParameters(query) }

    static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    /// The parameters of a query string or a form-encoded body: `+` is a space, `%XX` a byte; a name given twice
    /// keeps its first value.
    package static func formParameters(_ encoded: String) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decoded(parts[0])
            if parameters[name] == nil { parameters[name] = decoded(parts.count > 1 ? parts[1] : "") }
        }
        return parameters
    }

    private static func decoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = low
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How a site answers a request.
package enum HTTPAnswer {
    /// A body sent at once, with the headers given beside its type and length.
    case body(HTTPResponseStatus, [UInt8], contentType: String, headers: [(String, String)] = [])
    /// An answer made a step at a time on the server's threads, each step sent once the client has taken the last.
    case job(any HTTPAnswerJob)
}

/// An answer made on the server's threads. Used by one thread at a time: the connection starts a `step` only after the
/// last one completed, and calls `end()` only when no step is running.
package protocol HTTPAnswerJob: AnyObject, Sendable {
    /// The next piece of the answer.
    func step(allocator: ByteBufferAllocator) throws -> HTTPAnswerStep
    /// Stops the work at its next chance; from any thread (the event loop, when the client goes).
    func cancel()
    /// Releases what the job holds; called when no step is running.
    func end()
    /// What the log says of an answer sent whole, after its status:
    /// `voice org.concatsynth.en, wav, 1234 bytes in 6 ms`.
    func summary(byteCount: Int, milliseconds: Int64) -> String
}

/// One piece of a job's answer; the first step's status, type and length start the answer.
package struct HTTPAnswerStep: Sendable {
    package var bytes: ByteBuffer
    package var isComplete: Bool
    package var status: HTTPResponseStatus
    package var contentType: String
    /// The whole answer's length, when the first step knows it; without it the answer is chunked.
    package var contentLength: Int?
    /// More headers of the answer.
    package var headers: [(String, String)]

    package init(
        bytes: ByteBuffer, isComplete: Bool, status: HTTPResponseStatus = .ok, contentType: String,
        contentLength: Int? = nil, headers: [(String, String)] = []
    ) {
        self.bytes = bytes
        self.isComplete = isComplete
        self.status = status
        self.contentType = contentType
        self.contentLength = contentLength
        self.headers = headers
    }
}

/// A request a site answers with an error: its status, a `type` (OpenAI's error types), and one sentence naming the
/// input and what would be accepted.
package struct APIError: Error, Equatable {
    package var status: HTTPResponseStatus
    package var type: String
    package var message: String
    /// The methods a 405's path takes, for its `Allow` header: `GET, POST`.
    package var allow: String?

    package init(status: HTTPResponseStatus, type: String, message: String) {
        self.status = status
        self.type = type
        self.message = message
    }

    package static func invalid(_ message: String) -> APIError {
        APIError(status: .badRequest, type: "invalid_request_error", message: message)
    }

    /// The error as OpenAI's API writes one, which the studio's page reads too:
    /// `{"error": {"message", "type", "param", "code"}}`.
    package var jsonBody: [UInt8] {
        struct Body: Encodable {
            struct Detail: Encodable {
                var message: String
                var type: String
                var param: String?
                var code: String?
            }
            var error: Detail
        }
        return encodeJSON(Body(error: .init(message: message, type: type)))
    }
}

/// A value as an answer's JSON body (`JSONWriter`).
package func encodeJSON(_ value: some Encodable) -> [UInt8] {
    // Encoding these plain structs cannot fail.
    (try? JSONWriter.bytes(value)) ?? Array("{}".utf8)
}
