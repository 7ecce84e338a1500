import CSQLite
import Foundation
import TestSupport
import Testing

@testable import Voicebank

/// Rows a query returns, through SQLite's C API as another program would (no defensive settings), as text.
func rows(_ sql: String, on path: String) throws -> [[String?]] {
    var handle: OpaquePointer?
    defer { sqlite3_close(handle) }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_open(path, &handle) == SQLITE_OK, sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK
    else { throw UntrustedPackTests.Failure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))") }
    var result: [[String?]] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        result.append(
            (0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
    }
    return result
}

@Suite struct UntrustedPackTests {
    struct Failure: Error, CustomStringConvertible { var description: String }

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
        #expect(try database.integer("PRAGMA mmap_size") == 0)
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

}
