// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// A pack of schema `version` as that version of `voicebank create` left it: the first `version` migrations, one voice.
func makePack(version: Int, at path: String) throws {
    let database = try Database(path: path, mode: .readWriteCreate)
    for step in 0..<version { try database.execute(Schema.migrations[step]) }
    try database.execute(
        """
        INSERT INTO voice (identifier, name, primary_languages, supported_languages)
            VALUES ('com.example.old', 'Old', 'en-US', 'en-US');
        PRAGMA application_id = \(Schema.applicationID);
        PRAGMA user_version = \(version);
        """)
}

/// Objects a pack's schema may not hold, each made by SQL on a good pack, with the kind and name the error gives.
enum ForeignObjectCase: String, CaseIterable, Sendable, CustomStringConvertible {
    case trigger, recursiveView, fts5Table, extraTable, extraIndex, statistics, virtualTableNamedClip

    var sql: String {
        switch self {
        // A write on every change of a clip: the store must never let it fire.
        case .trigger:
            return "CREATE TRIGGER t BEFORE UPDATE ON clip BEGIN UPDATE voice SET name = 'written by a trigger'; END"
        case .recursiveView:
            return "CREATE VIEW v AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
        case .fts5Table: return "CREATE VIRTUAL TABLE f USING fts5(phrase)"
        case .extraTable: return "CREATE TABLE notes (text TEXT)"
        case .extraIndex: return "CREATE INDEX clip_by_source ON clip(source_name)"
        // ANALYZE makes sqlite_stat1: SQLite's own table, but not one the store makes.
        case .statistics: return "ANALYZE"
        // The clip table replaced by a module's table of the same name: the name alone is not enough.
        case .virtualTableNamedClip:
            return "DROP TABLE clip; CREATE VIRTUAL TABLE clip USING fts5(phrase)"
        }
    }

    var kind: String {
        switch self {
        case .trigger: "trigger"
        case .recursiveView: "view"
        case .fts5Table, .virtualTableNamedClip: "virtual table"
        case .extraTable, .statistics: "table"
        case .extraIndex: "index"
        }
    }

    var name: String {
        switch self {
        case .trigger: "t"
        case .recursiveView: "v"
        case .fts5Table: "f"
        case .extraTable: "notes"
        case .extraIndex: "clip_by_source"
        case .statistics: "sqlite_stat1"
        case .virtualTableNamedClip: "clip"
        }
    }

    var description: String { rawValue }
}

@Suite struct UntrustedPackTests {
    @Test(
        "every connection the store opens is set up for a file from a stranger",
        arguments: [Database.Mode.readOnly, .readWrite, .readWriteCreate, .immutable])
    func settings(mode: Database.Mode) throws {
        let temporary = try TemporaryPack()
        let database = try Database(path: temporary.pack.path, mode: mode)

        #expect(database.setting(SQLITE_DBCONFIG_DEFENSIVE) == 1)
        #expect(database.setting(SQLITE_DBCONFIG_TRUSTED_SCHEMA) == 0)
        #expect(database.setting(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION) == 0)
        #expect(database.setting(SQLITE_DBCONFIG_ENABLE_TRIGGER) == 0)
        #expect(database.setting(SQLITE_DBCONFIG_ENABLE_VIEW) == 0)
        #expect(try database.integer("PRAGMA trusted_schema") == 0)
        #expect(try database.integer("PRAGMA cell_size_check") == 1)
        // Mapped on purpose (see `Database.untrustedPragmas`).
        #expect(try database.integer("PRAGMA mmap_size") > 0)
    }

    @Test("the store's own connection cannot rewrite the schema or load a library")
    func defensive() throws {
        let temporary = try TemporaryPack()
        let database = temporary.pack.database
        try database.execute("PRAGMA writable_schema = ON")

        #expect { try database.execute("UPDATE sqlite_schema SET sql = 'x' WHERE name = 'clip_by_content'") } throws: {
            "\($0)".contains("may not be modified")
        }
        #expect(throws: VoicebankError.self) { try database.execute("SELECT load_extension('libm.so.6')") }
        #expect(
            try rows("SELECT sql FROM sqlite_schema WHERE name = 'clip_by_content'", on: temporary.pack.path)
                == [["CREATE INDEX clip_by_content ON clip(voice_id, content_hash)"]])
    }

    @Test(
        "the objects listed for each schema version are what its migrations make", arguments: 0...Schema.currentVersion)
    func objectsOfEachVersion(version: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pack.sqlite")
        let database = try Database(path: path, mode: .readWriteCreate)
        for step in 0..<version { try database.execute(Schema.migrations[step]) }

        let made = try rows("SELECT type, name, tbl_name FROM sqlite_schema ORDER BY rowid", on: path).map {
            Schema.Object(type: $0[0] ?? "", name: $0[1] ?? "", table: $0[2] ?? "")
        }
        #expect(made == Schema.objects(version: version))
    }

    @Test(
        "a pack of every schema version opens: read-only, one older than schema 7 upgraded, a later one as it is; to write, upgraded",
        arguments: 1...Schema.currentVersion)
    func everyVersionOpens(version: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("pack.sqlite")
        try makePack(version: version, at: path)

        let opened = try VoicePack(path: path, access: .readOnly)

        let readVersion = version < Schema.oldestReadVersion ? Schema.currentVersion : version
        #expect(try opened.schemaVersion == readVersion)
        #expect(try opened.voices().map(\.identifier) == ["com.example.old"])
        #expect(opened.hasTakeFeatures == (try opened.schemaVersion >= Schema.takeFeaturesVersion))
        let written = try VoicePack(path: path, access: .readWrite)
        #expect(try written.schemaVersion == Schema.currentVersion)
        #expect(written.hasTakeFeatures)
    }

    // The tables exactly as the first default pack committed (schema 1) holds them: a comment of today's first
    // migration has changed since, and SQLite keeps each statement as it was written, comments and all.
    static let oldestCommittedSchema = Schema.migrations[0].replacingOccurrences(
        of: "-- render-ready frames at 22050 Hz (played, from schema 3)", with: "-- render-ready frames at 22050 Hz")

    @Test("a pack made with the oldest committed schema opens and is upgraded")
    func oldestCommittedSchema() throws {
        try #require(Self.oldestCommittedSchema != Schema.migrations[0], "the comment the old pack differs by is gone")
        let directory = TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try execute(
            Self.oldestCommittedSchema + """
                INSERT INTO voice (identifier, name, primary_languages, supported_languages)
                    VALUES ('com.example.old', 'Old', 'en-US', 'en-US');
                PRAGMA application_id = \(Schema.applicationID);
                PRAGMA user_version = 1;
                """, on: path)

        let opened = try VoicePack(path: path, access: .readOnly)

        #expect(try opened.schemaVersion == Schema.currentVersion)
        #expect(try opened.voices().map(\.name) == ["Old"])
    }

    @Test(
        "a pack holding an object the store does not make is refused, read-only or not",
        arguments: ForeignObjectCase.allCases)
    func foreignObject(object: ForeignObjectCase) throws {
        let temporary = try TemporaryPack()
        let path = temporary.pack.path
        try execute(object.sql, on: path)

        for access in [VoicePack.Access.readOnly, .readWrite, .create] {
            #expect(throws: VoicebankError.foreignSchemaObject(path: path, kind: object.kind, name: object.name)) {
                try VoicePack(path: path, access: access)
            }
        }
        #expect(
            VoicebankError.foreignSchemaObject(path: path, kind: object.kind, name: object.name).description
                == "voice pack \(path) holds \(object.kind.first == "i" ? "an" : "a") \(object.kind) \"\(object.name)\" that concat-synth does not make; expected only its own tables and indexes (it may be damaged or hostile)"
        )
    }

    @Test("an older pack holding a trigger is refused before it is upgraded: nothing is written")
    func foreignObjectInOlderPack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old.sqlite")
        try makePack(version: Schema.currentVersion - 1, at: path)
        try execute(ForeignObjectCase.trigger.sql, on: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        #expect(throws: VoicebankError.foreignSchemaObject(path: path, kind: "trigger", name: "t")) {
            try VoicePack(path: path, access: .readOnly)
        }

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try rows("PRAGMA user_version", on: path) == [["\(Schema.currentVersion - 1)"]])
    }

    @Test("a row whose statement is not as SQLite writes ours is refused, even under one of our names")
    func rewrittenRow() throws {
        let temporary = try TemporaryPack()
        let path = temporary.pack.path
        // The table keeps its name and columns; only its statement's first words differ from what SQLite writes.
        try execute(
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'create table ' || substr(sql, 14) WHERE name = 'voice';
            PRAGMA writable_schema = OFF;
            """, on: path)

        #expect(throws: VoicebankError.foreignSchemaObject(path: path, kind: "table", name: "voice")) {
            try VoicePack(path: path, access: .readOnly)
        }
    }

    @Test("a name from a hostile schema is quoted on one line and cut short")
    func quotedNames() {
        #expect(VoicebankError.quoted("t") == "\"t\"")
        #expect(VoicebankError.quoted("a\"b\\c\nd\u{2028}") == "\"a\\\"b\\\\c\\nd\\u{2028}\"")
        #expect(
            VoicebankError.quoted(String(repeating: "x", count: 1_000)) == "\"" + String(repeating: "x", count: 64)
                + "…\"")
    }

    @Test("the kind of a schema row is read from its statement's first words")
    func kinds() {
        #expect(VoicePack.kind(ofStatement: "CREATE VIRTUAL TABLE f USING fts5(x)") == "virtual table")
        #expect(VoicePack.kind(ofStatement: "create  temp trigger t") == "trigger")
        #expect(VoicePack.kind(ofStatement: "CREATE UNIQUE INDEX i ON t(x)") == "index")
        #expect(VoicePack.kind(ofStatement: "CREATE VIEW v AS SELECT 1") == "view")
        #expect(VoicePack.kind(ofStatement: "CREATE/**/VIRTUAL TABLE f USING fts5(x)") == nil)
        #expect(VoicePack.kind(ofStatement: nil) == nil)
    }
}
