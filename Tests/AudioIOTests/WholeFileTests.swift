// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import Testing

@testable import AudioIO

/// The one whole-file read (`readFile(atPath:)`) and the one whole-or-nothing write (`PendingFile`,
/// `writeFileWhole`, `PendingFolder`) that requests, transcripts, the module's configuration, markers, pictures and
/// exports all go through.
@Suite struct WholeFileTests {
    @Test("a whole-file read returns every byte, over many reads, and nothing for an empty file")
    func readWhole() throws {
        let directory = TemporaryDirectory()
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file("big")))
        try Data().write(to: URL(fileURLWithPath: directory.file("empty")))

        #expect(try readFile(atPath: directory.file("big")) == bytes)
        #expect(try readFile(atPath: directory.file("empty")) == [])
    }

    @Test("a whole-file read's errors name the path: no such file, a folder, no permission")
    func readErrors() throws {
        let directory = TemporaryDirectory()
        let missing = directory.file("missing.conf")
        let error = try #require(throws: FileError.self) { try readFile(atPath: missing) }
        #expect(error.path == missing)
        #expect(error.isNoSuchFile)
        #expect(error.description == "\(missing): No such file or directory")

        let folder = try #require(throws: FileError.self) { try readFile(atPath: directory.path) }
        #expect(folder.path == directory.path)
        #expect(folder.reason == "it is a folder, not a file")
        #expect(!folder.isNoSuchFile)

        // Root reads whatever the permissions say; the case only shows for another user.
        guard getuid() != 0 else { return }
        let locked = directory.file("locked")
        try Data("x".utf8).write(to: URL(fileURLWithPath: locked))
        chmod(locked, 0)
        let refused = try #require(throws: FileError.self) { try readFile(atPath: locked) }
        #expect(refused.description == "\(locked): Permission denied")
    }

    @Test("a whole write replaces the file in one step, with the mode asked less the umask, and leaves nothing else")
    func writeWhole() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("transcript.tsv")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try Array("file\ttext\n".utf8).withUnsafeBytes { try writeFileWhole(atPath: path, $0, mode: 0o666) }

        #expect(try String(contentsOfFile: path, encoding: .utf8) == "file\ttext\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["transcript.tsv"])
        let mask = umask(0)
        umask(mask)
        let permissions = try #require(
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(permissions == 0o666 & ~Int(mask))
    }

    @Test("a whole write that cannot be made names the path and changes nothing")
    func writeFailure() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("no-such-folder/out.txt")
        let error = try #require(throws: FileError.self) {
            try Array("x".utf8).withUnsafeBytes { try writeFileWhole(atPath: path, $0) }
        }
        #expect(error.path == path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a pending file written piece by piece is not at its path until committed, nor after it is dropped")
    func pendingFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("markers.jsonl")
        do {
            let file = try PendingFile(path: path)
            try Array("dropped".utf8).withUnsafeBytes { try file.write($0) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let file = try PendingFile(path: path)
        try Array("one ".utf8).withUnsafeBytes { try file.write($0) }
        try Array("two".utf8).withUnsafeBytes { try file.write($0) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try file.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "one two")
        let again = try #require(throws: FileError.self) { try Array("x".utf8).withUnsafeBytes { try file.write($0) } }
        #expect(again.description == "\(path): the file was already committed")
    }

    @Test("a pending folder appears whole at commit, replacing an empty folder; dropped, it leaves nothing")
    func pendingFolder() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("exported")
        do {
            let dropped = try PendingFolder(path: path)
            #expect(dropped.temporaryPath == directory.file(".exported.partial-\(getpid())"))
            try Array("x".utf8).withUnsafeBytes { try writeFileWhole(atPath: dropped.temporaryPath + "/a.txt", $0) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let folder = try PendingFolder(path: path)
        try Array("x".utf8).withUnsafeBytes { try writeFileWhole(atPath: folder.temporaryPath + "/a.txt", $0) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
        try folder.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["a.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["exported"])
    }

    @Test("a pending folder does not replace a folder that holds anything, and removes itself")
    func pendingFolderRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("exported")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path + "/keep.txt"))
        do {
            let folder = try PendingFolder(path: path)
            let error = try #require(throws: FileError.self) { try folder.commit() }
            #expect(error.path == path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["exported"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["keep.txt"])
    }
}
