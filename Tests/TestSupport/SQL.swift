// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite

/// Runs SQL on a database file through SQLite's C API, as another program would.
public func execute(_ sql: String, on path: String) throws {
    var handle: OpaquePointer?
    defer { sqlite3_close(handle) }
    guard sqlite3_open(path, &handle) == SQLITE_OK, sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
        throw SQLFailure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))")
    }
}

/// Rows a query returns, through SQLite's C API as another program would (no defensive settings), as text.
public func rows(_ sql: String, on path: String) throws -> [[String?]] {
    var handle: OpaquePointer?
    defer { sqlite3_close(handle) }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_open(path, &handle) == SQLITE_OK, sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK
    else { throw SQLFailure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))") }
    var result: [[String?]] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        result.append(
            (0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
    }
    return result
}

public struct SQLFailure: Error, CustomStringConvertible {
    public var description: String
}
