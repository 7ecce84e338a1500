import AudioIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What can keep the HTTP server from serving.
public enum HTTPServiceError: Error, CustomStringConvertible {
    case cannotListen(address: String, reason: String)
    case invalidAddress(String)
    case noTemporaryFolder(reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason):
            return "cannot listen on \(address): \(reason); expected a free port on an address of this machine"
        case .invalidAddress(let address):
            return
                "invalid HTTP address \"\(address)\"; expected HOST:PORT such as 127.0.0.1:8080 ([::1]:8080 for IPv6, port 0 for any free port)"
        case .noTemporaryFolder(let reason):
            return "cannot make a folder for the server's files in $TMPDIR or /tmp: \(reason)"
        }
    }

    /// `HOST:PORT` (an IPv6 host in brackets), as `--http` takes it.
    ///
    /// - Throws: `.invalidAddress`.
    public static func address(_ text: String) throws(HTTPServiceError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw .invalidAddress(text) }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains("/"), !host.contains("[") else { throw .invalidAddress(text) }
        return (String(host), port)
    }

    /// Whether `host` is only reachable from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// A folder of a server's own for the files it makes (renders, takes), removed when the server closes.
package final class TemporaryFolder: Sendable {
    package let path: String
    private let count = Atomic<Int>(0)

    /// A name no other file of this server uses.
    package func newPath(extension fileExtension: String) -> String {
        "\(path)/\(count.wrappingAdd(1, ordering: .relaxed).newValue).\(fileExtension)"
    }

    /// A new folder `concat-synth-LABEL-XXXXXX` in `$TMPDIR`, else `/tmp`.
    package init(label: String = "http") throws(HTTPServiceError) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/concat-synth-\(label)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .noTemporaryFolder(reason: String(cString: strerror(errno)))
        }
        path = String(cString: made)
    }

    /// Removes the folder and what is left in it (files whose renders were cut short by the close).
    package func remove() {
        for name in directoryEntries(path) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}
