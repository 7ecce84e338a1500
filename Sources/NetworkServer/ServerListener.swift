// SPDX-License-Identifier: GPL-3.0-or-later
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The start-up every server of this package shares (the Wyoming server, the HTTP speech API, the studio): it binds
/// to a TCP port or a Unix socket, reads and writes every connection on one event loop thread, and runs the jobs that
/// take time (renders, imports) on a pool of threads, so that the event loop goes on reading other clients meanwhile.
///
/// ```swift
/// let listener = try ServerListener.start(on: .tcp(host: "127.0.0.1", port: 0), jobThreads: 2) { channel, client, pool in
///     try channel.pipeline.syncOperations.addHandler(MyHandler(threadPool: pool, name: "client \(client)"))
/// }
/// print(listener.listeningLine())   // listening on tcp://127.0.0.1:41234
/// ```
public final class ServerListener: Sendable {
    /// Where it listens; a TCP port asked as 0 is the one the system chose.
    public let address: ServerAddress
    /// Where the connections' jobs run.
    public let threadPool: NIOThreadPool
    private let channel: Channel
    private let group: MultiThreadedEventLoopGroup

    private init(
        address: ServerAddress, threadPool: NIOThreadPool, channel: Channel, group: MultiThreadedEventLoopGroup
    ) {
        self.address = address
        self.threadPool = threadPool
        self.channel = channel
        self.group = group
    }

    /// Listens on `address` and serves until `close()`.
    ///
    /// - Parameters:
    ///   - jobThreads: how many jobs run at once; more wait for a thread.
    ///   - connection: sets up each new connection's pipeline on the event loop, told the client's number (in the
    ///     order they connected, from 1) and the job threads.
    /// - Throws: `ListenError` naming the address: a port in use, an address not of this machine, a socket path that
    ///   cannot be made.
    public static func start(
        on address: ServerAddress, jobThreads: Int,
        connection: @escaping @Sendable (_ channel: Channel, _ client: Int, _ threadPool: NIOThreadPool) throws -> Void
    ) throws(ListenError) -> ServerListener {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threadPool = NIOThreadPool(numberOfThreads: max(1, jobThreads))
        threadPool.start()
        let clients = Atomic<Int>(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try connection(channel, clients.wrappingAdd(1, ordering: .relaxed).newValue, threadPool)
                }
            }
        let channel: Channel
        do {
            switch address {
            case .tcp(let host, let port): channel = try bootstrap.bind(host: host, port: port).wait()
            case .unix(let path):
                channel = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
            }
        } catch {
            try? threadPool.syncShutdownGracefully()
            try? group.syncShutdownGracefully()
            throw ListenError(address: address, cause: error)
        }
        var bound = address
        if case .tcp(let host, _) = address, let port = channel.localAddress?.port {
            bound = .tcp(host: host, port: port)
        }
        return ServerListener(address: bound, threadPool: threadPool, channel: channel, group: group)
    }

    /// The line a server logs once it listens, which scripts and tests wait for:
    /// `listening on tcp://127.0.0.1:10200 with the voices of …`, `HTTP listening on http://127.0.0.1:8080`.
    ///
    /// - Parameters:
    ///   - label: what listens, before the line, when a process runs more than one server.
    ///   - url: the address as its clients write it (`address.description` unless given).
    ///   - detail: what follows the address.
    public func listeningLine(label: String? = nil, url: String? = nil, detail: String? = nil) -> String {
        (label.map { "\($0) " } ?? "") + "listening on \(url ?? address.description)" + (detail.map { " \($0)" } ?? "")
    }

    /// Blocks until the listener is closed.
    public func waitUntilClosed() throws {
        try channel.closeFuture.wait()
    }

    /// Stops listening, closes every connection, waits for the jobs running to end, and removes its Unix socket.
    public func close() throws {
        try? channel.close().wait()
        try group.syncShutdownGracefully()
        try threadPool.syncShutdownGracefully()
        if case .unix(let path) = address { unlink(path) }
    }
}

/// A server could not listen: the address, and why, with what would be accepted.
public struct ListenError: Error, CustomStringConvertible {
    public var address: ServerAddress
    /// What the system said: `Address already in use (errno 98)`.
    public var reason: String
    /// The port is taken by another program (or another server of this one).
    public var isAddressInUse: Bool

    init(address: ServerAddress, cause: any Error) {
        self.address = address
        let errno = (cause as? IOError)?.errnoCode
        isAddressInUse = errno == EADDRINUSE
        reason =
            (cause as? IOError).map { "\(String(cString: strerror($0.errnoCode))) (errno \($0.errnoCode))" }
            ?? "\(cause)"
    }

    public var description: String {
        switch (address, isAddressInUse) {
        case (.tcp(_, let port), true):
            return
                "cannot listen on \(address): port \(port) is in use by another program; expected a free port (0 for any)"
        case (.tcp, false):
            return "cannot listen on \(address): \(reason); expected a free port on an address of this machine"
        case (.unix, _):
            return
                "cannot listen on \(address): \(reason); expected a new path, or an old socket's, in a folder this user can write"
        }
    }
}
