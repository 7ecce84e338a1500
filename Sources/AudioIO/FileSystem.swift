// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The few questions the package asks the file system about paths, answered in one place.

/// Whether anything is at `path`.
package func fileExists(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0
}

/// The size of the file at `path` in bytes; `nil` when there is none.
package func fileSize(_ path: String) -> Int? {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : nil
}

/// The names in the folder `path`, `.` and `..` left out, in the order the file system gives them; `nil` when it
/// cannot be listed (there is none).
package func directoryEntries(_ path: String) -> [String]? {
    guard let stream = opendir(path) else { return nil }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
