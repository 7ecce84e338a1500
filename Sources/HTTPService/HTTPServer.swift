// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import NIOCore
import NIOHTTP1
import NIOPosix
import NetworkServer

/// An HTTP speech server: the OpenAI-compatible `POST /v1/audio/speech` that chat front ends and agent frameworks
/// call, and MaryTTS's `/process` that openHAB's and Home Assistant's MaryTTS integrations call, both speaking with
/// the voices of one pack or of the default and every installed pack (`VoiceCatalog`).
///
/// Built on swift-nio's HTTP/1.1 codec, as the Wyoming server is on swift-nio: one event loop thread reads requests
/// and writes answers, renders run on a pool of threads, and the next chunk of an answer is made only once the client
/// has taken the last, so a slow client holds back its own answer and no one else's. Its routes are `SpeechSite`'s
/// `RouteTable`. Not Hummingbird: swift-nio is a dependency already, the table is a few rows, and the limits (head
/// bytes, time to send a request, chunked answers written as the client takes them) sit at the byte level, below what
/// a framework hands a route (docs/architecture.md, the servers).
///
/// ```swift
/// let server = try HTTPServer.start(address: .tcp(host: "127.0.0.1", port: 8080), bank: nil) { print($0) }
/// try server.waitUntilClosed()
/// ```
public final class HTTPServer: Sendable {
    /// Where it listens; a TCP port asked as 0 is the one the system chose.
    public var address: ServerAddress { listener.address }
    private let listener: HTTPListener
    private let site: SpeechSite

    private init(listener: HTTPListener, site: SpeechSite) {
        self.listener = listener
        self.site = site
    }

    /// Opens the packs read-only, listens on `address` and serves until `close()`.
    ///
    /// - Parameters:
    ///   - bank: the pack whose voices it speaks; with none, the default and every installed pack's.
    ///   - apiKey: when given, every request must carry `Authorization: Bearer KEY`, else it gets 401.
    ///   - log: told one line per request and per fault, from any thread.
    /// - Throws: `ListenError`; `ConcatSynthError` when no pack has a voice that can be spoken.
    public static func start(
        address: ServerAddress, bank: String?, apiKey: String? = nil, renderThreads: Int = System.coreCount,
        limits: HTTPLimits = HTTPLimits(), log: @escaping @Sendable (String) -> Void
    ) throws -> HTTPServer {
        let pools = try SynthesizerPools(VoiceCatalog(bank: bank))
        for warning in pools.warnings { log("warning: \(warning)") }
        let site = SpeechSite(
            pools: pools, limits: limits, apiKey: apiKey, temporaryFolder: try TemporaryFolder(), log: log)
        do {
            let listener = try HTTPListener.start(on: address, threads: renderThreads, site: site)
            return HTTPServer(listener: listener, site: site)
        } catch {
            site.temporaryFolder.remove()
            throw error
        }
    }

    /// The line the log starts with once the server listens: `HTTP listening on http://127.0.0.1:8080`, which
    /// scripts wait for.
    public var listeningLine: String { listener.listeningLine(label: "HTTP") }

    /// Blocks until the server is closed.
    public func waitUntilClosed() throws {
        try listener.waitUntilClosed()
    }

    /// Stops listening, closes every connection and waits for the threads to end.
    public func close() throws {
        try listener.close()
        site.temporaryFolder.remove()
    }
}

/// A site served on one `ServerListener`: its connections read requests and write answers on the event loop thread,
/// and the jobs of the answers run on the listener's job threads.
package final class HTTPListener: Sendable {
    /// Where it listens; a TCP port asked as 0 is the one the system chose.
    package var address: ServerAddress { listener.address }
    private let listener: ServerListener

    private init(listener: ServerListener) { self.listener = listener }

    /// Listens on `address` (port 0 for any free port) and serves `site` until `close()`.
    ///
    /// - Parameter threads: how many jobs run at once.
    /// - Throws: `ListenError`.
    package static func start(on address: ServerAddress, threads: Int, site: any HTTPSite) throws(ListenError)
        -> HTTPListener
    {
        let limits = site.limits
        let listener = try ServerListener.start(on: address, jobThreads: threads) { channel, client, threadPool in
            let guardHandler = RequestGuard(limits: limits)
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(IdleStateHandler(readTimeout: .seconds(limits.idleSeconds)))
            try sync.addHandler(guardHandler)
            try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try sync.addHandler(HTTPResponseEncoder())
            try sync.addHandler(
                HTTPConnection(site: site, threadPool: threadPool, guard: guardHandler, name: "client \(client)"))
        }
        return HTTPListener(listener: listener)
    }

    /// The line the log starts with once it listens: `LABEL listening on http://127.0.0.1:8080`.
    package func listeningLine(label: String) -> String {
        listener.listeningLine(label: label, url: address.httpURL)
    }

    /// Blocks until the listener is closed.
    package func waitUntilClosed() throws {
        try listener.waitUntilClosed()
    }

    /// Stops listening, closes every connection and waits for the threads to end.
    package func close() throws {
        try listener.close()
    }
}

/// What the server allows one request, each limit answered with its own status.
public struct HTTPLimits: Sendable {
    /// The most bytes a request body may have: 413 beyond.
    public var maximumBodyBytes = 1 << 20
    /// The most bytes a request's line and headers may have: 431 beyond.
    public var maximumHeaderBytes = 16 << 10
    /// How long a client may take to send a whole request, from its first byte: 408 after, and the connection closed,
    /// so a client that sends a byte a minute cannot hold a connection for ever.
    public var requestSeconds: Int64 = 10
    /// How long a kept-alive connection may wait for its next request before it is closed, so that idle connections
    /// cannot pile up to the process's limit of open files.
    public var idleSeconds: Int64 = 60
    /// After a refusal (413, 431, 400, 408, …), how many more bytes the client may send, read and dropped so that
    /// the kernel does not answer them with a reset before the client has read the refusal: cut off beyond.
    public var drainBytes = 16 << 20
    /// After a refusal, how long the client may go on sending before it is cut off.
    public var drainSeconds: Int64 = 5
    /// The longest answer rendered whole into a file (`wav`, `flac`, `mp3`, `opus`, MaryTTS's), in seconds of audio:
    /// beyond it the render stops with a 400, so that a megabyte of text cannot fill the disk with hours of audio.
    /// `pcm` streams as it is rendered and has no such limit.
    public var maximumFileSeconds = 30 * 60

    public init() {}
}
