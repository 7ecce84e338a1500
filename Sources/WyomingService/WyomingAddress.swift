/// Where a Wyoming server listens: a TCP host and port, or a Unix socket (the `wyoming` package's URI forms).
///
/// ```swift
/// try WyomingAddress("tcp://0.0.0.0:10200")          // every interface, piper's usual port
/// try WyomingAddress("unix:///run/concat-synth.sock")
/// ```
public enum WyomingAddress: Equatable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// - Throws: `WyomingError.invalidAddress` for anything but `tcp://HOST:PORT` (an IPv6 host in brackets,
    ///   port 0 for any free port) or `unix://` with an absolute path.
    public init(_ uri: String) throws(WyomingError) {
        if uri.hasPrefix("unix://") {
            let path = String(uri.dropFirst("unix://".count))
            guard path.hasPrefix("/"), path.count > 1 else { throw .invalidAddress(uri) }
            self = .unix(path: path)
            return
        }
        guard uri.hasPrefix("tcp://") else { throw .invalidAddress(uri) }
        let hostAndPort = uri.dropFirst("tcp://".count)
        guard let colon = hostAndPort.lastIndex(of: ":"),
            let port = Int(hostAndPort[hostAndPort.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw .invalidAddress(uri) }
        var host = hostAndPort[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains("/") else { throw .invalidAddress(uri) }
        self = .tcp(host: String(host), port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .unix(let path): return "unix://\(path)"
        }
    }
}
