// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import NIOCore
import NIOPosix
import NetworkServer
import TestSupport
import Testing

/// The start-up the Wyoming, HTTP and studio servers share: addresses, binding to TCP and Unix sockets, the error for
/// a port in use, and a close that leaves no socket file behind.
@Suite struct ServerListenerTests {
    @Test(
        "tcp://HOST:PORT, unix:///PATH and HOST:PORT are read; anything else is not",
        arguments: [
            ("tcp://127.0.0.1:10200", ServerAddress.tcp(host: "127.0.0.1", port: 10200)),
            ("tcp://[::1]:0", .tcp(host: "::1", port: 0)),
            ("unix:///run/concat-synth.sock", .unix(path: "/run/concat-synth.sock")),
            ("tcp://127.0.0.1", nil), ("tcp://:80", nil), ("tcp://host:65536", nil), ("unix://relative", nil),
            ("http://127.0.0.1:80", nil),
        ] as [(String, ServerAddress?)])
    func uris(uri: String, expected: ServerAddress?) {
        #expect(ServerAddress(uri: uri) == expected)
        if let expected { #expect(expected.description == uri) }
    }

    @Test("HOST:PORT as --http and --listen take it, and whether only this machine can reach it")
    func hostAndPort() {
        #expect(ServerAddress(hostAndPort: "[::1]:8080") == .tcp(host: "::1", port: 8080))
        #expect(ServerAddress(hostAndPort: "[::1]:8080")?.httpURL == "http://[::1]:8080")
        #expect(ServerAddress(hostAndPort: "nowhere") == nil)
        #expect(ServerAddress(hostAndPort: "[[::1]]:1") == nil)
        #expect(ServerAddress.tcp(host: "127.0.0.1", port: 1).isLoopback)
        #expect(!ServerAddress.tcp(host: "0.0.0.0", port: 1).isLoopback)
        #expect(ServerAddress.unix(path: "/tmp/a").isLoopback)
    }

    @Test("a listener on port 0 says the port it got, numbers its clients, and a second on that port is refused")
    func portInUse() throws {
        let listener = try ServerListener.start(on: .tcp(host: "127.0.0.1", port: 0), jobThreads: 1, connection: greet)
        defer { try? listener.close() }
        let port = try #require(listener.address.port)
        #expect(port > 0)
        #expect(listener.listeningLine() == "listening on tcp://127.0.0.1:\(port)")
        #expect(
            listener.listeningLine(label: "HTTP", url: listener.address.httpURL, detail: "for you")
                == "HTTP listening on http://127.0.0.1:\(port) for you")
        #expect(try TCPClient(port: port).readUntilClosed(seconds: 30) == "client 1\n")
        #expect(try TCPClient(port: port).readUntilClosed(seconds: 30) == "client 2\n")

        let refused = #expect(throws: ListenError.self) {
            try ServerListener.start(on: .tcp(host: "127.0.0.1", port: port), jobThreads: 1, connection: greet)
        }
        #expect(refused?.isAddressInUse == true)
        #expect(
            refused?.description
                == "cannot listen on tcp://127.0.0.1:\(port): port \(port) is in use by another program; expected a free port (0 for any)"
        )
    }

    @Test(
        "a listener on a Unix socket replaces a socket file left there, serves, and removes the socket when it closes")
    func unixSocket() throws {
        let path = NSTemporaryDirectory() + "listener-\(UUID().uuidString).sock"
        try TCPClient.leaveSocketFile(at: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let listener = try ServerListener.start(on: .unix(path: path), jobThreads: 1, connection: greet)
        #expect(listener.address == .unix(path: path))
        #expect(try TCPClient(unixPath: path).readUntilClosed(seconds: 30) == "client 1\n")
        try listener.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a Unix socket in a folder that does not exist is refused, naming the path")
    func unixSocketFolder() {
        let refused = #expect(throws: ListenError.self) {
            try ServerListener.start(on: .unix(path: "/nonexistent/folder/a.sock"), jobThreads: 1, connection: greet)
        }
        #expect(refused?.isAddressInUse == false)
        #expect(refused?.description.hasPrefix("cannot listen on unix:///nonexistent/folder/a.sock: ") == true)
    }

    /// Each connection is told its client number, and closed.
    private let greet: @Sendable (Channel, Int, NIOThreadPool) throws -> Void = { channel, client, _ in
        try channel.pipeline.syncOperations.addHandler(Greeter(line: "client \(client)\n"))
    }
}

private final class Greeter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let line: String

    init(line: String) { self.line = line }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: line))).assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }
}
