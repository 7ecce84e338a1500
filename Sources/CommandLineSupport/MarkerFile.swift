// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A render's markers file (`--markers`): one JSON line per marker, in frame order, written as markers complete,
/// and in place only when `commit()` puts it there (a `PendingFile`).
///
/// A marker completes at its end, so a paragraph's marker, first in frame order, completes after every marker
/// inside it. The markers that come after one still to come wait in memory, up to `memoryLimit` of them; past that,
/// those that follow it without a gap go, as their lines, to an unnamed temporary file, and are copied after it when
/// it comes. A book in one paragraph costs disk, not memory.
///
/// ```swift
/// let markers = try MarkerFile(path: "out.markers", bytesPerFrame: 4)
/// try markers.add([(index: 1, marker: hello), (index: 0, marker: sentence)])   // writes the sentence, then hello
/// try markers.commit()
/// ```
public final class MarkerFile {
    public var path: String { file.path }
    /// How many markers wait in memory now.
    var markersInMemory: Int { sequence.waitingCount }
    private let file: PendingFile
    private let bytesPerFrame: Int
    private let memoryLimit: Int
    /// Completed markers put back in frame order; those it sets aside are in `spill`.
    private var sequence = MarkerSequence()
    /// The lines of the markers set aside, while the one before them has not come.
    private var spill: UnsafeMutablePointer<FILE>?

    /// - Parameter memoryLimit: how many markers may wait in memory before those that can go to disk do.
    /// - Throws: `FileError` when the file cannot be made.
    public init(path: String, bytesPerFrame: Int, memoryLimit: Int = 8_192) throws(FileError) {
        file = try PendingFile(path: path)
        self.bytesPerFrame = bytesPerFrame
        self.memoryLimit = memoryLimit
    }

    deinit { if let spill { fclose(spill) } }

    /// Takes markers as they complete, each with its place in frame order (0, 1, 2, … over the whole request), and
    /// writes every marker now in order.
    ///
    /// - Throws: `FileError` when the markers file or the temporary file cannot be written.
    public func add(_ markers: some Sequence<(index: Int, marker: Marker)>) throws(FileError) {
        for (index, marker) in markers { sequence.add(IndexedMarker(index: index, marker: marker)) }
        var lines = ""
        while let (marker, releasesSetAside) = sequence.popNext() {
            lines += marker.jsonLine(bytesPerFrame: bytesPerFrame) + "\n"
            if releasesSetAside {
                try write(&lines)
                try copySpill()
            }
        }
        try write(&lines)
        if sequence.waitingCount > memoryLimit { try spillFollowers() }
    }

    /// Whether the file is written under a hidden name beside `path`, which SIGKILL would leave behind.
    public var hasHiddenName: Bool { file.hasHiddenName }

    /// Puts the file in place, replacing what was there.
    ///
    /// - Throws: `FileError`; the file is removed.
    public func commit() throws(FileError) { try file.commit() }

    private func write(_ lines: inout String) throws(FileError) {
        guard !lines.isEmpty else { return }
        try write { try lines.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) } }
        lines = ""
    }

    /// Moves the waiting markers that follow the missing one (or the last spilled one) without a gap to the
    /// temporary file.
    private func spillFollowers() throws(FileError) {
        if spill == nil { spill = try Self.unnamedTemporaryFile() }
        for marker in sequence.setAsideFollowers() {
            var line = marker.jsonLine(bytesPerFrame: bytesPerFrame) + "\n"
            let written = line.withUTF8 { fwrite($0.baseAddress, 1, $0.count, spill) }
            guard written == line.utf8.count else { throw spillError() }
        }
    }

    /// A file in `$TMPDIR` (else `/tmp`) that has no name: nothing is left behind, however the process ends.
    /// (C's `tmpfile()` would always use `/tmp`.)
    private static func unnamedTemporaryFile() throws(FileError) -> UnsafeMutablePointer<FILE> {
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/.concat-synth-markers-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw FileError(
                path: directory,
                reason: "cannot make a temporary file for markers in \(directory) ($TMPDIR, else /tmp): \(reason)")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        guard let file = fdopen(descriptor, "w+") else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw FileError(
                path: directory, reason: "cannot open a temporary file for markers in \(directory): \(reason)")
        }
        return file
    }

    /// Appends the temporary file's lines to the markers file and closes it.
    private func copySpill() throws(FileError) {
        guard let spill else { return }
        defer {
            fclose(spill)
            self.spill = nil
        }
        guard fflush(spill) == 0 else { throw spillError() }
        rewind(spill)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, spill) }
            if count > 0 {
                try write {
                    try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                }
            }
            if count < buffer.count {
                guard ferror(spill) == 0 else { throw spillError() }
                return
            }
        }
    }

    /// Runs `body`, which throws only `PendingFile.write`'s `FileError` (typed throws inside `withUTF8`'s closure
    /// are avoided: they have crashed this compiler).
    private func write(_ body: () throws -> Void) throws(FileError) {
        do {
            try body()
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(path: path, reason: "\(error)")
        }
    }

    private func spillError() -> FileError {
        FileError(path: path, reason: "cannot keep markers in a temporary file: \(String(cString: strerror(errno)))")
    }
}
