// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// No Foundation here: loading it (and ICU with it) is most of a short render's process start-up.

/// An open file descriptor of this process, read and written with the C library, so the tools need no Foundation.
public struct FileDescriptor: Sendable {
    public let rawValue: Int32

    public static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)
    public static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    public static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Whether a person is at the other end.
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// Writes all of `bytes`, retrying short writes.
    ///
    /// - Throws: `FileError` with the system's reason.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path: nil, errorNumber: errno)
            }
            offset += written
        }
    }

    /// Reads to the end.
    ///
    /// - Throws: `FileError` with the system's reason.
    public func readToEnd() throws(FileError) -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try read(upTo: 65_536)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// The next bytes, at most `count`; empty at the end.
    ///
    /// - Throws: `FileError` with the system's reason.
    public func read(upTo count: Int) throws(FileError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let read = chunk.withUnsafeMutableBytes { systemRead(rawValue, $0.baseAddress!, $0.count) }
            if read < 0 {
                if errno == EINTR { continue }
                throw FileError(path: nil, errorNumber: errno)
            }
            chunk.removeLast(count - read)
            return chunk
        }
    }
}

/// A file open for reading, closed when dropped.
public final class ReadableFile {
    public let path: String
    public let descriptor: FileDescriptor

    /// - Throws: `FileError` with the system's reason.
    public init(path: String) throws(FileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(path: path, errorNumber: errno) }
        self.path = path
        self.descriptor = FileDescriptor(rawValue: descriptor)
    }

    deinit { close(descriptor.rawValue) }
}

/// A file that could not be read or written, and the system's reason.
public struct FileError: Error, CustomStringConvertible {
    public var path: String?
    public var reason: String
    /// The system's error number (`errno`) the reason comes from; 0 when the reason is not the system's.
    public var errorNumber: Int32

    public init(path: String?, reason: String, errorNumber: Int32 = 0) {
        self.path = path
        self.reason = reason
        self.errorNumber = errorNumber
    }

    /// The error the system reports with `errorNumber`, in its own words (`strerror`).
    public init(path: String?, errorNumber: Int32) {
        self.init(path: path, reason: String(cString: strerror(errorNumber)), errorNumber: errorNumber)
    }

    /// Whether nothing is at the path (`ENOENT`), which some callers take for an empty or default file.
    public var isNoSuchFile: Bool { errorNumber == ENOENT }

    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}

/// The whole contents of the file at `path`: the one way the tools read a whole file (a request, a transcript, the
/// speech-dispatcher module's configuration).
///
/// ```swift
/// let text = String(decoding: try readFile(atPath: "clips/transcript.tsv"), as: UTF8.self)
/// ```
/// - Throws: `FileError` naming `path`, with the system's reason, or "it is a folder, not a file" for a folder
///   (which `open` accepts and only the first read refuses).
public func readFile(atPath path: String) throws(FileError) -> [UInt8] {
    let file = try ReadableFile(path: path)
    var status = stat()
    if fstat(file.descriptor.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
        throw FileError(path: path, reason: "it is a folder, not a file", errorNumber: EISDIR)
    }
    do {
        return try file.descriptor.readToEnd()
    } catch {
        throw FileError(path: path, reason: error.reason, errorNumber: error.errorNumber)
    }
}

/// The C library's `write`, which `FileDescriptor.write` hides.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// The C library's `read`, which `FileDescriptor.read(upTo:)` hides.
private func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, bytes, count)
}
