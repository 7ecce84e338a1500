// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import TestSupport
import Testing
import Voicebank

/// Pack files that are not what `voicebank create` made: each is a one-line error from render and from voicebank.
enum PackFileCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case newerSchema, missingTable, missingColumn, truncated, headerOnly, notSQLite, empty

    /// Makes the case from a sound pack at `path`; returns words the error must contain.
    func make(at path: String) throws -> String {
        switch self {
        case .newerSchema:
            try execute("PRAGMA user_version = 99", on: path)
            return "has schema version 99, newer than this voicebank reads (up to"
        case .missingTable:
            try execute("DROP TABLE clip", on: path)
            return "lacks part of its schema (no such table: clip); expected the tables and columns of schema version"
        case .missingColumn:
            try execute("ALTER TABLE voice DROP COLUMN normal_rate", on: path)
            return "lacks part of its schema (no such column: normal_rate)"
        case .truncated:
            // A copy or sync cut short: the pages of the clips' audio are gone.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
            return "is damaged (SQLite reports \"database disk image is malformed\"), perhaps truncated"
        case .headerOnly:
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(60).write(to: URL(fileURLWithPath: path))
            return "is damaged (SQLite reports \"database disk image is malformed\")"
        case .notSQLite:
            try Fixture.seedClip(at: path + ".aiff")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: path + ".aiff", toPath: path)
            return "is not a voice pack: it is not an SQLite database"
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
            return "is not a voice pack: it is empty"
        }
    }

    var description: String { rawValue }
}

@Suite struct HostilePackFileTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    @Test(
        "a pack file that is not a sound pack: one line naming it and what is wrong, exit 1, nothing written",
        arguments: PackFileCase.allCases)
    func packFiles(damage: PackFileCase) throws {
        let pack = try SmallPack()
        let expected = try damage.make(at: pack.path)
        let output = pack.directory.file("out.wav")
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: pack.path)[.size] as? Int

        let rendered = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "hello"])
        let listed = try voicebank.run(["list", "--bank", pack.path])
        let verified = try voicebank.run(["verify", "--bank", pack.path])

        for (tool, result) in [("render", rendered), ("list", listed), ("verify", verified)] {
            #expect(result.status == 1, "\(tool)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(tool): \(result.standardError)")
            #expect(result.standardError.contains(pack.path), "\(tool): \(result.standardError)")
            #expect(result.standardError.contains(expected), "\(tool): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try pack.strayFiles() == [])
        // Reading never "repairs" or upgrades a file it does not understand.
        #expect(try FileManager.default.attributesOfItem(atPath: pack.path)[.size] as? Int == sizeBefore)
    }
}

@Suite struct ReadOnlyPackTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    /// Renders "hello world" from `path`; the samples, or the error.
    func render(_ path: String, in directory: TemporaryDirectory) throws -> [Float] {
        let output = directory.file("out-\(UUID().uuidString).raw")
        let result = try concatSynth.run(["render", "--bank", path, "-o", output, "hello world"])
        try #require(result.status == 0, "\(result.standardError)")
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test("a pack in a read-only folder renders (no -shm can be made there); import says why it cannot write")
    func readOnlyFolder() throws {
        let pack = try SmallPack()
        let expected = try render(pack.path, in: pack.directory)
        let folder = pack.directory.file("packs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: pack.path, toPath: folder + "/pack.sqlite")
        guard let view = ScratchMount.readOnlyView(of: folder, in: pack.directory) else { return }
        defer { view.unmount() }
        let readOnly = view.path + "/pack.sqlite"

        #expect(try render(readOnly, in: pack.directory) == expected)
        #expect(try voicebank.run(["verify", "--bank", readOnly]).status == 0)
        let clip = try Fixture.seedClip(at: pack.directory.file("more.aiff"))
        let imported = try voicebank.run(["import", "--bank", readOnly, clip])

        #expect(imported.status == 1)
        #expect(
            imported.standardError
                == "Error: cannot write voice pack \(readOnly): it is on a read-only file system; expected a pack in a place you can write (copy it there and change the copy)\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: view.path) == ["pack.sqlite"])
    }

    @Test("a read-only folder whose pack has a -wal file of unapplied changes: one line, not a stale read")
    func readOnlyFolderWithWAL() throws {
        let pack = try SmallPack()
        let folder = pack.directory.file("packs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // A writer that never checkpointed: its -wal holds a committed change the main file lacks.
        let writer = try VoicePack(path: pack.path, access: .readWrite)
        try execute("PRAGMA wal_autocheckpoint = 0; UPDATE voice SET name = 'Changed'", on: pack.path)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: pack.path + suffix, toPath: folder + "/pack.sqlite" + suffix)
        }
        _ = writer
        guard let view = ScratchMount.readOnlyView(of: folder, in: pack.directory) else { return }
        defer { view.unmount() }
        let readOnly = view.path + "/pack.sqlite"

        let result = try concatSynth.run(["render", "--bank", readOnly, "-o", "-", "hello"])

        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(
            result.standardError.contains(
                "cannot write voice pack \(readOnly): its \(readOnly)-wal file holds changes not yet in the pack"))
    }

    @Test("an immutable pack file (chattr +i) renders; import says the file is immutable")
    func immutableFile() throws {
        let pack = try SmallPack()
        let expected = try render(pack.path, in: pack.directory)
        guard setImmutable(pack.path, true) else {
            print("notice: \(#function) skipped: chattr +i is not supported on \(pack.directory.path)")
            return
        }
        defer { setImmutable(pack.path, false) }

        #expect(try render(pack.path, in: pack.directory) == expected)
        let clip = try Fixture.seedClip(at: pack.directory.file("more.aiff"))
        let imported = try voicebank.run(["import", "--bank", pack.path, clip])

        #expect(imported.status == 1)
        #expect(
            imported.standardError.contains("cannot write voice pack \(pack.path): the file is immutable (chattr +i)"))
        #expect(imported.standardError.split(separator: "\n").count == 1)
    }
}

/// Objects a pack's schema may hold only if someone other than concat-synth put them there, each made by
/// SQL on a sound pack.
enum SchemaObjectCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case writingTrigger, recursiveView, fts5Table, extraTable, extraIndex

    var sql: String {
        switch self {
        // Writes the pack whenever a clip or voice row changes or a clip is added: a render writes nothing, so
        // it would fire only if the store wrote (an upgrade) or were fooled into writing.
        case .writingTrigger:
            return """
                CREATE TRIGGER t AFTER UPDATE ON clip BEGIN UPDATE voice SET name = 'written by a trigger'; END;
                CREATE TRIGGER t2 BEFORE INSERT ON clip BEGIN UPDATE voice SET name = 'written by a trigger'; END;
                """
        case .recursiveView:
            return "CREATE VIEW v AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
        case .fts5Table: return "CREATE VIRTUAL TABLE f USING fts5(phrase)"
        case .extraTable: return "CREATE TABLE notes (text TEXT)"
        case .extraIndex: return "CREATE INDEX clip_by_source ON clip(source_name)"
        }
    }

    /// Words the error must contain.
    var expected: String {
        let object: String
        switch self {
        case .writingTrigger: object = "a trigger \"t\""
        case .recursiveView: object = "a view \"v\""
        case .fts5Table: object = "a virtual table \"f\""
        case .extraTable: object = "a table \"notes\""
        case .extraIndex: object = "an index \"clip_by_source\""
        }
        return "holds \(object) that concat-synth does not make; expected only its own tables and indexes"
    }

    var description: String { rawValue }
}

@Suite struct ForeignSchemaObjectTests {
    let concatSynth = Binary("concat-synth")
    let voicebank = Binary("voicebank")

    @Test(
        "a pack holding an object concat-synth does not make: one line naming it, exit 1, nothing written anywhere",
        arguments: SchemaObjectCase.allCases)
    func refused(object: SchemaObjectCase) throws {
        let pack = try SmallPack()
        try pack.damage(object.sql)
        let bytesBefore = try Data(contentsOf: URL(fileURLWithPath: pack.path))
        let output = pack.directory.file("out.wav")

        let rendered = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "hello world"])
        let listed = try voicebank.run(["list", "--bank", pack.path])
        let verified = try voicebank.run(["verify", "--bank", pack.path])

        for (tool, result) in [("render", rendered), ("list", listed), ("verify", verified)] {
            #expect(result.status == 1, "\(tool)")
            #expect(result.standardOutput.isEmpty, "\(tool): \(result.standardOutput)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(tool): \(result.standardError)")
            #expect(
                result.standardError.contains("voice pack \(pack.path) \(object.expected)"),
                "\(tool): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try pack.strayFiles() == [])
        // Nothing ran that writes: the file is as it was, and no write waits in a -wal file either.
        #expect(try Data(contentsOf: URL(fileURLWithPath: pack.path)) == bytesBefore)
        #expect((try? FileManager.default.attributesOfItem(atPath: pack.path + "-wal")[.size] as? Int) ?? 0 == 0)
    }

    @Test("a sound pack and the default pack still render")
    func soundPacksRender() throws {
        let pack = try SmallPack()
        let output = pack.directory.file("out.wav")
        let small = try concatSynth.run(["render", "--bank", pack.path, "-o", output, "hello world"])
        #expect(small.status == 0, "\(small.standardError)")
        #expect(FileManager.default.fileExists(atPath: output))

        let copy = pack.directory.file("default.sqlite")
        try FileManager.default.copyItem(atPath: ScreenReaderPack.path, toPath: copy)
        let standard = try concatSynth.run(["render", "--bank", copy, "-o", "-", "hello"])
        #expect(standard.status == 0, "\(standard.standardError)")
        #expect(!standard.standardOutputBytes.isEmpty)
    }
}
