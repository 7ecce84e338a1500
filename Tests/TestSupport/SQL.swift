import CSQLite

/// Runs SQL on a database file through SQLite's C API, as another program would.
public func execute(_ sql: String, on path: String) throws {
    var handle: OpaquePointer?
    defer { sqlite3_close(handle) }
    guard sqlite3_open(path, &handle) == SQLITE_OK, sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
        throw SQLFailure(description: "\(path): \(String(cString: sqlite3_errmsg(handle)))")
    }
}

public struct SQLFailure: Error, CustomStringConvertible {
    public var description: String
}
