// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A plain connection to a server on the loopback interface or a Unix socket, for what no client does on purpose.
public final class TCPClient {
    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else { throw Binary.Failure(description: "cannot connect to port \(port)") }
    }

    /// A connection to the Unix socket at `path`.
    public init(unixPath path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard Self.withAddress(path, { connect(descriptor, $0, $1) }) == 0 else {
            throw Binary.Failure(description: "cannot connect to \(path)")
        }
    }

    /// A socket file at `path` that no process listens on, as a server ended by SIGKILL leaves.
    public static func leaveSocketFile(at path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        guard withAddress(path, { bind(descriptor, $0, $1) }) == 0 else {
            throw Binary.Failure(description: "cannot bind \(path)")
        }
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    deinit { close(descriptor) }

    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw Binary.Failure(description: "send") }
    }

    /// One answer with a content-length, read to its last byte and no further, within `seconds`: its head, and its body.
    public func readAnswer(seconds: Int) throws -> (head: String, body: [UInt8]) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let blankLine = Array("\r\n\r\n".utf8)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = received.indices.first(where: { received[$0...].starts(with: blankLine) }) {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                guard let length else { throw Binary.Failure(description: "an answer without a length: \(head)") }
                let body = received[(end + blankLine.count)...]
                if body.count >= length { return (head, Array(body)) }
            }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { throw Binary.Failure(description: "closed after \(received.count) bytes") }
            received += buffer[..<count]
        }
    }

    /// What arrives until the server closes the connection, within `seconds`.
    public func readUntilClosed(seconds: Int) throws -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
