// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file being written that appears at `path` only when `commit()` puts it there whole, replacing in one step
/// whatever was there; dropped uncommitted, it leaves nothing. The one way the tools write a file whole or not at all:
/// audio (`AudioFileWriter`), markers, pictures, an export's transcripts (`writeFileWhole(atPath:_:mode:)`); a folder
/// is filled the same way by `PendingFolder`.
///
/// Where the folder's file system allows, the file has no name until the commit (Linux's `O_TMPFILE`): however the
/// process ends before then (a signal, SIGKILL, a crash, a power cut) nothing is left, and nothing needs finding
/// afterwards. The commit links it under its hidden name (`PartialPath`, tracked so that a signal handler can remove
/// it) and renames that over `path`: `linkat` alone cannot replace an existing file.
///
/// Where the file system refuses unnamed files (FUSE before kernel 6.6 and libfuse 3.15, NFS, old kernels), the file
/// is written under its hidden name from the start, as it always was (`hasHiddenName`); then a process SIGKILL stops
/// leaves that name behind, and the caller removes those of dead processes (`PartialPath.removeAbandoned(beside:)`).
///
/// ```swift
/// let file = try PendingFile(path: "out.svg")
/// try file.write(bytes)   // or write to file.descriptor
/// try file.commit()
/// ```
public final class PendingFile {
    public let path: String
    /// Open for reading and writing until `commit()`.
    public private(set) var descriptor: Int32
    /// Where a file system refused an unnamed file, its hidden name; while committing, the name it is linked under.
    private var partial: PartialPath?
    /// Whether the file is written under its hidden name (the file system refused an unnamed one).
    public private(set) var hasHiddenName: Bool

    /// The permissions the file is made with, less the umask.
    private let mode: mode_t

    /// Creates the file with `mode` less the umask (libsndfile's 0666 for audio, 0644 for the tools' other files).
    ///
    /// - Throws: `FileError` naming `path`, with the system's reason, when the folder cannot hold it.
    public init(path: String, mode: mode_t = 0o644) throws(FileError) {
        self.path = path
        self.mode = mode
        (descriptor, partial) = try Self.create(path, mode: mode)
        hasHiddenName = partial != nil
    }

    deinit {
        guard descriptor >= 0 else { return }
        close(descriptor)
        if let partial { unlink(partial.temporaryPath) }
    }

    /// Goes on in a new empty file in the same place, and hands over the descriptor of what was written so far,
    /// which the caller reads and closes (a WAV moving into RF64).
    ///
    /// - Throws: `FileError` when the new file cannot be made; what was written is then lost.
    public func startOver() throws(FileError) -> Int32 {
        let previous = descriptor
        descriptor = -1
        // The hidden name is free for the new file once unlinked; the descriptor keeps the old one's bytes.
        if let partial { unlink(partial.temporaryPath) }
        partial = nil
        do {
            (descriptor, partial) = try Self.create(path, mode: mode)
        } catch {
            close(previous)
            throw error
        }
        hasHiddenName = partial != nil
        return previous
    }

    /// Appends all of `bytes`.
    ///
    /// - Throws: `FileError` naming `path`, with the system's reason.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard descriptor >= 0 else { throw FileError(path: path, reason: "the file was already committed") }
        do {
            try FileDescriptor(rawValue: descriptor).write(bytes)
        } catch {
            throw FileError(path: path, reason: error.reason, errorNumber: error.errorNumber)
        }
    }

    /// Puts the file at `path`, replacing what was there, and closes it.
    ///
    /// - Throws: `FileError` with the system's reason; the file is removed and `path` left as it was.
    public func commit() throws(FileError) {
        guard descriptor >= 0 else { throw FileError(path: path, reason: "the file was already committed") }
        if partial == nil {
            let partial = PartialPath(for: path)
            self.partial = partial
            guard linkIntoFolder(as: partial.temporaryPath) else { throw failure() }
        }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0, let partial, rename(partial.temporaryPath, path) == 0 else { throw failure() }
        self.partial = nil
    }

    /// The reason in `errno`, after removing the file's hidden name if it has one.
    private func failure() -> FileError {
        let error = FileError(path: path, errorNumber: errno)
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if let partial { unlink(partial.temporaryPath) }
        partial = nil
        return error
    }

    /// Gives the unnamed file the name `name` (through `/proc`, which needs no privilege, where `AT_EMPTY_PATH`
    /// would need CAP_DAC_READ_SEARCH).
    private func linkIntoFolder(as name: String) -> Bool {
        #if os(Linux)
            let source = "/proc/self/fd/\(descriptor)"
            if linkat(AT_FDCWD, source, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 { return true }
            // The name holds our PID, so only a dead process that had the same PID can have left it.
            guard errno == EEXIST else { return false }
            unlink(name)
            return linkat(AT_FDCWD, source, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0
        #else
            return false
        #endif
    }

    /// An unnamed file in `path`'s folder, else one under its hidden name where the file system refuses those.
    private static func create(_ path: String, mode: mode_t) throws(FileError) -> (Int32, PartialPath?) {
        #if os(Linux)
            let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "."
            // O_TMPFILE itself is behind _GNU_SOURCE, which Swift's Glibc module leaves undefined; glibc's
            // __O_TMPFILE is the same value for each architecture. The kernel takes the umask off `mode`.
            let unnamed = open(folder, __O_TMPFILE | O_RDWR | O_CLOEXEC, mode)
            if unnamed >= 0 {
                // Without /proc (a chroot) the commit could not link it: better to know before the render.
                if access("/proc/self/fd/\(unnamed)", F_OK) == 0 { return (unnamed, nil) }
                close(unnamed)
            } else {
                // The refusals of a file system or kernel without O_TMPFILE. Any other error (EACCES, EROFS, ENOSPC)
                // is the folder's, which the hidden name would meet too: report it as it is.
                switch errno {
                case EOPNOTSUPP, EISDIR, EINVAL, ENOENT: break
                default: throw FileError(path: path, errorNumber: errno)
                }
            }
        #endif
        let partial = PartialPath(for: path)
        let named = open(partial.temporaryPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard named >= 0 else { throw FileError(path: path, errorNumber: errno) }
        return (named, partial)
    }
}

/// Writes `bytes` to a file that appears at `path` whole or not at all (`PendingFile`), made with `mode` less the
/// umask.
///
/// ```swift
/// try bytes.withUnsafeBytes { try writeFileWhole(atPath: "voice/transcript.tsv", $0) }
/// ```
/// - Throws: `FileError` naming `path`, with the system's reason; nothing is left behind.
public func writeFileWhole(atPath path: String, _ bytes: UnsafeRawBufferPointer, mode: mode_t = 0o644) throws(FileError)
{
    let file = try PendingFile(path: path, mode: mode)
    try file.write(bytes)
    try file.commit()
}
