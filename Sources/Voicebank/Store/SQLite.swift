// SPDX-License-Identifier: GPL-3.0-or-later
import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `SQLITE_TRANSIENT`, which Swift cannot import: SQLite copies the bound bytes before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An open SQLite connection; owns the `sqlite3*` and closes it in `deinit`.
package final class Database {
    package let path: String
    private(set) var handle: OpaquePointer

    enum Mode {
        case readOnly, readWrite, readWriteCreate
        /// Read-only, and promised that nobody writes the file meanwhile (SQLite's `immutable=1`): no locks, and no
        /// `-shm` file, which a WAL pack on a read-only file system or in a read-only folder cannot have.
        case immutable
    }

    /// How long a write waits for another connection's write lock before it fails with `VoicebankError.busy`.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    init(path: String, mode: Mode) throws(VoicebankError) {
        self.path = path
        // NOMUTEX: a connection is used by one thread at a time (see `VoicePackPool` for many threads).
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:\(Self.uriPath(path))?immutable=1"
        }
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(name, &handle, flags, nil)
        guard let handle else { throw .sqlite(path: path, sql: nil, message: String(cString: sqlite3_errstr(status))) }
        self.handle = handle
        // From here on `deinit` closes the handle, also when this initializer throws: Swift deinitializes a class
        // whose initializer throws once every stored property is set, so closing it here too would close it twice.
        guard status == SQLITE_OK else {
            throw .sqlite(path: path, sql: nil, message: String(cString: sqlite3_errmsg(handle)))
        }
        // Before anything reads the file: sqlite3_open_v2 has not read a byte of it yet.
        try configureForUntrustedFile()
        // SQLite quietly opens a file it cannot write read-only; say so now, not at the first write.
        if mode == .readWrite || mode == .readWriteCreate, sqlite3_db_readonly(handle, "main") == 1 {
            throw .readOnlyPack(path: path, reason: Self.unwritableReason(path))
        }
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
    }

    /// The settings of `sqlite3_db_config` a connection to a pack runs with, each with the value it must have: every
    /// pack is a file from a stranger (SQLite's "Defense Against The Dark Arts").
    static let untrustedSettings: [(option: Int32, value: Int32, name: String)] = [
        // No statement may corrupt the file on purpose: writable_schema, journal_mode=OFF, writes to sqlite_dbpage.
        (SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode"),
        // The schema's views, triggers, defaults and index expressions may call only functions SQLite marks
        // innocuous, and use no virtual table.
        (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "untrusted schema"),
        // No SQL may load a shared library (load_extension()).
        (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "no extension loading"),
        // The store makes neither and refuses a pack that holds one (`VoicePack`); off as well, so that one added
        // by another program while a long-lived reader keeps the pack open can neither fire nor be read.
        (SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "no triggers"),
        (SQLITE_DBCONFIG_ENABLE_VIEW, 0, "no views"),
    ]

    /// Pragmas a connection runs with: the cells of each b-tree page checked when the page is first read, so that a
    /// crafted page is an error there rather than further on.
    ///
    /// Pages stay memory-mapped, against SQLite's advice for untrusted files (a mapped file that another program
    /// truncates meanwhile is a SIGBUS rather than an error): without the map, a speech-dispatcher module's first
    /// message after its start missed its first-audio target against espeak-ng's module, and a long render read
    /// clips at a fraction of the rate it does with it (docs/hostile-inputs.md, "Opening a pack", has the figures).
    /// SQLite caps the map at its compile-time limit (2 GB on Debian).
    static let untrustedPragmas = "PRAGMA cell_size_check = ON; PRAGMA mmap_size = \(1 << 40)"

    /// Sets `untrustedSettings` and `untrustedPragmas`, checking each.
    private func configureForUntrustedFile() throws(VoicebankError) {
        for setting in Self.untrustedSettings {
            var result: Int32 = -1
            let status = csqlite_db_config_int(handle, setting.option, setting.value, &result)
            guard status == SQLITE_OK, result == setting.value else {
                let reason = status == SQLITE_OK ? "it stayed \(result)" : String(cString: sqlite3_errstr(status))
                throw .sqlite(path: path, sql: nil, message: "cannot turn on \(setting.name) (\(reason))")
            }
        }
        try execute(Self.untrustedPragmas)
    }

    /// The value a `sqlite3_db_config` option has on this connection, for tests.
    func setting(_ option: Int32) -> Int32? {
        var result: Int32 = -1
        return csqlite_db_config_int(handle, option, -1, &result) == SQLITE_OK ? result : nil
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(VoicebankError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        try check(status, sql: sql)
    }

    package func prepare(_ sql: String) throws(VoicebankError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// The single integer a query such as `PRAGMA user_version` returns.
    package func integer(_ sql: String) throws(VoicebankError) -> Int {
        let statement = try prepare(sql)
        guard try statement.step() else { throw .sqlite(path: path, sql: sql, message: "the query returned no row") }
        return statement.int(0)
    }

    package var lastInsertedRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }

    /// A number that changes whenever the pack file changes, through this connection or any other, in this process
    /// or another (`SQLITE_FCNTL_DATA_VERSION`): two reads under one version see the same bytes. `nil` when SQLite
    /// cannot say.
    var dataVersion: UInt32? {
        var version: UInt32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return version
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed if it returns, rolled back if it throws.
    package func transaction<T>(_ body: () throws(VoicebankError) -> T) throws(VoicebankError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body`, authoring's or sharing's work, in one transaction as `transaction(_:)` does; the transaction's own
    /// failures reach the caller as `Failure.store`.
    package func transaction<T, Failure: CarryingStoreErrors>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        do throws(VoicebankError) { try execute("BEGIN IMMEDIATE") } catch { throw .store(error) }
        do throws(Failure) {
            let result = try body()
            do throws(VoicebankError) { try execute("COMMIT") } catch { throw Failure.store(error) }
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func check(_ status: Int32, sql: String?) throws(VoicebankError) {
        guard status == SQLITE_OK || status == SQLITE_ROW || status == SQLITE_DONE else {
            throw error(status, sql: sql)
        }
    }

    /// The error for a failed call: the failures a person can act on get their own case, the rest SQLite's message.
    func error(_ status: Int32, sql: String?) -> VoicebankError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch status & 0xFF {
        case SQLITE_CORRUPT: return .damagedPack(path: path, message: message)
        case SQLITE_NOTADB: return .notAVoicePack(path: path, reason: "it is not an SQLite database")
        case SQLITE_FULL: return .diskFull(path: path)
        case SQLITE_BUSY: return .busy(path: path)
        case SQLITE_READONLY: return .readOnlyPack(path: path, reason: Self.unwritableReason(path))
        case SQLITE_CANTOPEN where !Self.isWritable(Self.folder(of: path)):
            // A write needs a -wal (and a read of a WAL pack a -shm) file beside the pack.
            return .readOnlyPack(path: path, reason: Self.unwritableReason(path))
        case SQLITE_ERROR where message.hasPrefix("no such table") || message.hasPrefix("no such column"):
            return .incompleteSchema(path: path, detail: message)
        default: return .sqlite(path: path, sql: sql, message: message)
        }
    }

    /// The code of the last failed call on this connection, extended (`SQLITE_CANTOPEN`, `SQLITE_READONLY_…`).
    var lastErrorCode: Int32 { sqlite3_extended_errcode(handle) }

    /// Why the pack, or the folder SQLite keeps its journal in, cannot be written.
    static func unwritableReason(_ path: String) -> String {
        if access(path, W_OK) != 0 {
            switch errno {
            case EROFS: return "it is on a read-only file system"
            case EPERM: return "the file is immutable (chattr +i)"
            case EACCES: return "you have no permission to write the file"
            default: return String(cString: strerror(errno))
            }
        }
        let folder = folder(of: path)
        if access(folder, W_OK) != 0 {
            let reason = errno == EROFS ? "is on a read-only file system" : "cannot be written"
            return "its folder \(folder) \(reason), and SQLite writes a -wal file beside the pack"
        }
        return "SQLite opened it read-only"
    }

    static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` for a `file:` URI: the characters a URI gives meaning to escaped.
    static func uriPath(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...:
                escaped +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0xF, radix: 16, uppercase: true)
            default: escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        // "file://x" would read x as a host name.
        return escaped.hasPrefix("//") ? "/" + escaped.drop { $0 == "/" } : escaped
    }
}

/// A prepared statement; owns the `sqlite3_stmt*` and finalizes it in `deinit`.
package final class Statement {
    private let database: Database
    private let handle: OpaquePointer
    package let sql: String

    fileprivate init(database: Database, sql: String) throws(VoicebankError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        try database.check(status, sql: sql)
        guard let handle else { throw .sqlite(path: database.path, sql: sql, message: "empty statement") }
        self.database = database
        self.handle = handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds values to `?1`, `?2`, … in order; `nil` binds NULL.
    @discardableResult
    package func bind(_ values: SQLValue?...) throws(VoicebankError) -> Statement {
        try bind(values)
    }

    @discardableResult
    package func bind(_ values: [SQLValue?]) throws(VoicebankError) -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case nil: status = sqlite3_bind_null(handle, index)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, Int64(number))
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, transient)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, index, $0.baseAddress, UInt64($0.count), transient)
                }
            case .floats(let samples):
                status = samples.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, index, $0.baseAddress, UInt64($0.count), transient)
                }
            }
            try database.check(status, sql: sql)
        }
        return self
    }

    /// Steps once: `true` when a row is ready, `false` when the statement is done.
    package func step() throws(VoicebankError) -> Bool {
        let status = sqlite3_step(handle)
        try database.check(status, sql: sql)
        return status == SQLITE_ROW
    }

    /// Ends the statement's run before its last row: a statement left on a row keeps its read snapshot of the
    /// pack, and a long-lived reader would go on seeing the pack as it was.
    package func reset() { sqlite3_reset(handle) }

    /// Steps to the end, for statements that return no rows.
    package func run() throws(VoicebankError) {
        while try step() {}
    }

    package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// Steps once and returns the first column of the row, if there is one.
    package func firstInt() throws(VoicebankError) -> Int? {
        try step() ? int(0) : nil
    }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    package func optionalDouble(_ column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : double(column)
    }

    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }

    /// The column's text, or `nil` for NULL.
    package func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : text(column)
    }

    /// How many columns a row of the statement has.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's type as SQLite stores it in this row: `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`,
    /// `SQLITE_BLOB` or `SQLITE_NULL`.
    package func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    /// The length of the column's blob (or text) in bytes, without copying it.
    package func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// A blob of little-endian Float32 samples.
    package func floats(_ column: Int32) -> [Float] {
        let count = Int(sqlite3_column_bytes(handle, column)) / MemoryLayout<Float>.size
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(
                from: UnsafeRawBufferPointer(start: pointer, count: count * 4))
            initialized = count
        }
    }
}

/// A value bound to a statement parameter.
package enum SQLValue {
    case integer(Int)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case floats([Float])
}
