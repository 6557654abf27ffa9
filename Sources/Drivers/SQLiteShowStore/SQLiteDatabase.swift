import CSQLite
import LiveShows

/// One SQLite connection, owned by one thread at a time. Every SQLite return code is checked in ``check(_:_:)``;
/// statements are prepared once and kept.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) a database file.
    init(path: String) throws(StoreError) {
        if let missing = stream_sqlite_load_error() {
            throw StoreError(.unavailable, "cannot open the database \(path): SQLite is not installed "
                                + "(\(String(cString: missing))); install libsqlite3-0")
        }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close(opened)
            throw StoreError(.unavailable, "cannot open the database \(path): \(reason)")
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close(handle)
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw StoreError(Self.code(of: code), "SQLite: \(reason)")
        }
    }

    /// A prepared statement, reset and unbound, ready for new arguments.
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var prepared: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil), sql)
        guard let prepared else { throw StoreError(.unavailable, "SQLite: empty statement \(sql)") }
        let statement = SQLiteStatement(prepared, database: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
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

    /// Turns an SQLite result code into an error with SQLite's message.
    func check(_ code: Int32, _ context: String) throws(StoreError) {
        guard code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE else {
            throw StoreError(Self.code(of: code),
                             "SQLite: \(String(cString: sqlite3_errmsg(handle))) (\(context.prefix(60)))")
        }
    }

    /// A damaged file is not a passing failure (a full disk, a read-only directory, a busy lock may pass).
    static func code(of result: Int32) -> StoreError.Code {
        switch result & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: .damaged
        default: .unavailable
        }
    }
}

/// A prepared statement: bind by position from 1, step, read columns by position from 0.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds arguments in order (nil binds NULL).
    @discardableResult
    func bind(_ values: SQLiteValue?...) throws(StoreError) -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch value {
            case .none: sqlite3_bind_null(handle, index)
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            // The length is given, so a NUL inside the text is kept rather than ending it.
            case .text(let text): sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), csqlite_transient())
            }
            try database.check(code, "bind")
        }
        return self
    }

    /// Advances to the next row. - Returns: false when there are no more rows.
    func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        try database.check(code, "step")
        return code == SQLITE_ROW
    }

    /// Runs a statement that returns no rows.
    func run() throws(StoreError) {
        while try step() {}
    }

    func integer(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func optionalInteger(_ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
    }

    func text(_ column: Int32) -> String {
        optionalText(column) ?? ""
    }

    func optionalText(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// A value bound to a statement.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
}

extension SQLiteValue {
    static func int<I: BinaryInteger>(_ value: I) -> SQLiteValue { .integer(Int64(value)) }
}
