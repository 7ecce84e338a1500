// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system operations the pack tools need, over the C library, each failure a `AuthoringError`
/// naming the path.
enum Files {
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The whole file as UTF-8 text (invalid bytes become U+FFFD).
    static func readText(_ path: String) throws(AuthoringError) -> String {
        do {
            return String(decoding: try readFile(atPath: path), as: UTF8.self)
        } catch {
            throw .fileSystem(path: path, reason: error.reason)
        }
    }

    /// The audio files under `path` (by extension), every level down, in a fixed order: names compared byte
    /// by byte, folder by folder. Hidden entries (a leading `.`, such as macOS `._` files) are left out, and
    /// symbolic links to folders are not followed, so a link loop cannot recur.
    static func audioFiles(under path: String) throws(AuthoringError) -> [String] {
        var found: [String] = []
        try collect(path, into: &found)
        return found
    }

    private static func collect(_ directory: String, into found: inout [String]) throws(AuthoringError) {
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

    static func makeDirectory(_ path: String) throws(AuthoringError) {
        guard mkdir(path, 0o755) == 0 else { throw .fileSystem(path: path, reason: errnoMessage()) }
    }

    /// Writes `text` to a file that appears at `path` whole or not at all, with the permissions `fopen` would give
    /// it (0666 less the umask).
    static func writeText(_ text: String, to path: String) throws(AuthoringError) {
        do throws(FileError) {
            try Array(text.utf8).withUnsafeBufferPointer { (bytes) throws(FileError) in
                try writeFileWhole(atPath: path, UnsafeRawBufferPointer(bytes), mode: 0o666)
            }
        } catch {
            throw .fileSystem(path: path, reason: error.reason)
        }
    }

    static func errnoMessage() -> String { String(cString: strerror(errno)) }
}
