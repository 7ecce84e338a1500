import ArgumentParser
import AudioIO
import ConcatSynth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// No Foundation here: loading it (and ICU with it) is most of a short render's process start-up (issue 6).

/// The `--bank` option every subcommand of both tools takes.
public struct BankOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The voice pack file.", valueName: "path"),
        completion: .file(extensions: ["sqlite"]))
    public var bank: String?

    public init() {}

    /// `--bank`, else `$CONCAT_SYNTH_BANK`, else the default pack.
    public var path: String { PackLocation.resolve(bank) }

    /// The sentence both tools' `--help` ends with.
    public static let discussion = """
        With no --bank, the commands use $\(PackLocation.environmentVariable) if set, else the default \
        pack (\(PackLocation.defaultPackPath)).
        """
}

/// Standard error, for reports that are not the command's output: `print("warning: …", to: &standardError)`.
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _ = try? FileDescriptor.standardError.write(UnsafeRawBufferPointer($0)) }
    }
}

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
                throw FileError(path: nil, reason: String(cString: strerror(errno)))
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
                throw FileError(path: nil, reason: String(cString: strerror(errno)))
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
        guard descriptor >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.descriptor = FileDescriptor(rawValue: descriptor)
    }

    deinit { close(descriptor.rawValue) }
}

/// A file the tools could not read or write, and the system's reason.
public struct FileError: Error, CustomStringConvertible {
    public var path: String?
    public var reason: String

    public init(path: String?, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}

/// The whole contents of the file at `path`.
///
/// - Throws: `FileError` with the system's reason.
public func readFile(atPath path: String) throws(FileError) -> [UInt8] {
    let file = try ReadableFile(path: path)
    do {
        return try file.descriptor.readToEnd()
    } catch {
        throw FileError(path: path, reason: error.reason)
    }
}

/// Writes `bytes` to a file that appears at `path` whole or not at all (`PartialFile`).
///
/// - Throws: `FileError` with the system's reason; nothing is left behind.
public func writeFileWhole(atPath path: String, _ bytes: UnsafeRawBufferPointer) throws(FileError) {
    let file = try PartialFile(path: path)
    try file.write(bytes)
    try file.commit()
}

/// A file written piece by piece, unnamed (or under a hidden name where the file system refuses unnamed files) until
/// `commit()` puts it at `path` (`PendingFile`), so it appears whole or not at all; dropped uncommitted, it leaves
/// nothing.
public final class PartialFile {
    public let path: String
    private let file: PendingFile

    /// - Throws: `FileError` with the system's reason.
    public init(path: String) throws(FileError) {
        self.path = path
        do { file = try PendingFile(path: path, mode: 0o644) } catch {
            throw FileError(path: path, reason: error.reason)
        }
    }

    /// Whether the file is written under a hidden name beside `path`, which SIGKILL would leave behind.
    public var hasHiddenName: Bool { file.hasHiddenName }

    /// - Throws: `FileError` with the system's reason.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        do {
            try FileDescriptor(rawValue: file.descriptor).write(bytes)
        } catch {
            throw FileError(path: path, reason: error.reason)
        }
    }

    /// Puts the file in place, replacing what was there.
    ///
    /// - Throws: `FileError` with the system's reason; the file is removed.
    public func commit() throws(FileError) {
        do { try file.commit() } catch { throw FileError(path: path, reason: error.reason) }
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
