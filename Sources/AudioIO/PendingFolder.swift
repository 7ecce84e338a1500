// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder being filled that appears at `path` only when `commit()` renames it there whole; dropped uncommitted, it
/// is removed with everything in it. `PendingFile`'s guarantee for a folder of files (an export).
///
/// A folder cannot be made without a name, so it has its hidden name (`PartialPath`'s rule, `.name.partial-PID`)
/// from the start, and a signal handler cannot remove a tree: a folder that a signal, SIGKILL or a crash left is
/// removed by the next `PendingFolder` for the same path, once its process is gone.
///
/// ```swift
/// let folder = try PendingFolder(path: "exported")
/// try writeFileWhole(atPath: folder.temporaryPath + "/rebuild.sh", bytes)
/// try folder.commit()
/// ```
public final class PendingFolder {
    public let path: String
    /// Where the folder is filled until `commit()`.
    public let temporaryPath: String
    private var isCommitted = false

    /// Makes the hidden folder, after removing those that processes now gone left for `path`.
    ///
    /// - Throws: `FileError` naming the hidden folder, with the system's reason, when it cannot be made.
    public init(path: String, mode: mode_t = 0o755) throws(FileError) {
        self.path = path
        temporaryPath = PartialPath.temporaryPath(for: path)
        // This process's own name too: a folder of an earlier process with the same PID.
        for abandoned in PartialPath.abandoned(beside: [path]) + [temporaryPath] { Self.removeTree(abandoned) }
        guard mkdir(temporaryPath, mode) == 0 else { throw FileError(path: temporaryPath, errorNumber: errno) }
    }

    deinit {
        if !isCommitted { Self.removeTree(temporaryPath) }
    }

    /// Renames the folder to `path`. An empty folder at `path` is replaced; anything else there makes the rename fail.
    ///
    /// - Throws: `FileError` naming `path`, with the system's reason; the folder is removed and `path` left as it was.
    public func commit() throws(FileError) {
        guard !isCommitted else { throw FileError(path: path, reason: "the folder was already committed") }
        // An rmdir of a folder that is not empty (or of a file) fails and changes nothing; the rename then fails.
        rmdir(path)
        guard rename(temporaryPath, path) == 0 else { throw FileError(path: path, errorNumber: errno) }
        isCommitted = true
    }

    /// Removes a folder and everything in it, without following symbolic links; a best effort.
    private static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            if let stream = opendir(path) {
                var names: [String] = []
                while let entry = readdir(stream) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(stream)
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
