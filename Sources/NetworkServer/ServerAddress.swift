// SPDX-License-Identifier: GPL-3.0-or-later
/// Where a server listens: a TCP host and port, or a Unix socket. The Wyoming server takes both forms
/// (`tcp://HOST:PORT`, `unix:///PATH`, as the `wyoming` package writes them); the HTTP servers take `HOST:PORT`.
///
/// ```swift
/// ServerAddress(uri: "tcp://0.0.0.0:10200")          // every interface, piper's usual port
/// ServerAddress(uri: "unix:///run/concat-synth.sock")
/// ServerAddress(hostAndPort: "[::1]:8080")
/// ```
public enum ServerAddress: Equatable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// `tcp://HOST:PORT` (an IPv6 host in brackets, port 0 for any free port) or `unix://` with an absolute path;
    /// `nil` for anything else.
    public init?(uri: String) {
        if uri.hasPrefix("unix://") {
            let path = String(uri.dropFirst("unix://".count))
            guard path.hasPrefix("/"), path.count > 1 else { return nil }
            self = .unix(path: path)
        } else if uri.hasPrefix("tcp://"), let address = ServerAddress(hostAndPort: uri.dropFirst("tcp://".count)) {
            self = address
        } else {
            return nil
        }
    }

    /// `HOST:PORT` (an IPv6 host in brackets, port 0 for any free port); `nil` for anything else.
    public init?(hostAndPort text: some StringProtocol) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains("/"), !host.contains("[") else { return nil }
        self = .tcp(host: String(host), port: port)
    }

    /// `tcp://127.0.0.1:10200`, `tcp://[::1]:10200`, `unix:///run/concat-synth.sock`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): return "tcp://\(Self.hostAndPort(host, port))"
        case .unix(let path): return "unix://\(path)"
        }
    }

    /// The TCP port; `nil` for a Unix socket.
    public var port: Int? {
        if case .tcp(_, let port) = self { return port }
        return nil
    }

    /// `http://127.0.0.1:8080`, `http://[::1]:8080`; a Unix socket as `description`.
    public var httpURL: String {
        switch self {
        case .tcp(let host, let port): return "http://\(Self.hostAndPort(host, port))"
        case .unix: return description
        }
    }

    /// `127.0.0.1:8080`, `[::1]:8080`: a host and port as a URL or a `Host` header writes them.
    public static func hostAndPort(_ host: String, _ port: Int) -> String {
        "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Whether only this machine can reach it: a loopback host, or a Unix socket.
    public var isLoopback: Bool {
        switch self {
        case .tcp(let host, _): return host == "localhost" || host == "::1" || host.hasPrefix("127.")
        case .unix: return true
        }
    }
}
