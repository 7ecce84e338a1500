import AudioIO
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system operations the pack tools need, over the C library, each failure a `VoicebankError`
/// naming the path.
enum Files {
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The whole file as UTF-8 text (invalid bytes become U+FFFD).
    static func readText(_ path: String) throws(VoicebankError) -> String {
        guard !isDirectory(path) else { throw .fileSystem(path: path, reason: "it is a folder, not a file") }
        guard let file = fopen(path, "rb") else { throw .fileSystem(path: path, reason: errnoMessage()) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[..<count]
            if count < chunk.count { break }
        }
        if ferror(file) != 0 { throw .fileSystem(path: path, reason: errnoMessage()) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The audio files under `path` (by extension), every level down, in a fixed order: names compared byte
    /// by byte, folder by folder. Hidden entries (a leading `.`, such as macOS `._` files) are left out, and
    /// symbolic links to folders are not followed, so a link loop cannot recur.
    static func audioFiles(under path: String) throws(VoicebankError) -> [String] {
        var found: [String] = []
        try collect(path, into: &found)
        return found
    }

    private static func collect(_ directory: String, into found: inout [String]) throws(VoicebankError) {
        guard let stream = opendir(directory) else { throw .fileSystem(path: directory, reason: errnoMessage()) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(stream)
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for name in names {
            let path = prefix + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                try collect(path, into: &found)
            } else if isAudioName(name), stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
                found.append(path)
            }
        }
    }

    static func isAudioName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return PreparedClip.fileExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// Names in `directory`, `.` and `..` left out; `nil` when it does not exist.
    static func entries(_ directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func makeDirectory(_ path: String) throws(VoicebankError) {
        guard mkdir(path, 0o755) == 0 else { throw .fileSystem(path: path, reason: errnoMessage()) }
    }

    /// Writes `text` to a hidden file beside `path` and renames it into place, so the file appears whole.
    static func writeText(_ text: String, to path: String) throws(VoicebankError) {
        let temporary = hiddenSibling(of: path)
        guard let file = fopen(temporary, "wb") else { throw .fileSystem(path: path, reason: errnoMessage()) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else {
            let reason = errnoMessage()
            unlink(temporary)
            throw .fileSystem(path: path, reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = errnoMessage()
            unlink(temporary)
            throw .fileSystem(path: path, reason: reason)
        }
    }

    /// Removes a folder and everything in it; a best effort, for cleaning up after a failure.
    static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            for name in entries(path) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// `folder/.name.partial-PID` for `folder/name`: the hidden name every file or folder is made under until it is
    /// whole (`PartialPath`'s rule).
    static func hiddenSibling(of path: String) -> String { PartialPath.temporaryPath(for: path) }

    static func errnoMessage() -> String { String(cString: strerror(errno)) }
}
