// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import NetworkServer
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What can keep the HTTP server from serving.
public enum HTTPServiceError: Error, CustomStringConvertible {
    case invalidAddress(String)
    case noTemporaryFolder(reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let address):
            return
                "invalid HTTP address \"\(address)\"; expected HOST:PORT such as 127.0.0.1:8080 ([::1]:8080 for IPv6, port 0 for any free port)"
        case .noTemporaryFolder(let reason):
            return "cannot make a folder for the server's files in $TMPDIR or /tmp: \(reason)"
        }
    }

    /// `HOST:PORT` (an IPv6 host in brackets), as `--http` and `--listen` take it (`ServerAddress(hostAndPort:)`).
    ///
    /// - Throws: `.invalidAddress`.
    public static func address(_ text: String) throws(HTTPServiceError) -> ServerAddress {
        guard let address = ServerAddress(hostAndPort: text) else { throw .invalidAddress(text) }
        return address
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
