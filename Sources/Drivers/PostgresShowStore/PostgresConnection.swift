import CPostgres
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LiveShows

/// One libpq connection, owned by one thread at a time. Every query waits for its answer with a bound (a server
/// that stops answering is an error after `timeout`, not a thread blocked for ever); every libpq failure becomes a
/// ``StoreError`` in ``failure(_:)`` or ``check(_:_:)``.
///
/// A broken connection is closed; the next query opens a new one, so a server that comes back is used again.
final class PostgresConnection {
    private var handle: OpaquePointer?
    /// Whether the last query was given up for lack of an answer (a connection made now would likely wait too).
    private var timedOut = false
    let location: PostgresLocation
    private let password: String?
    /// The bound on connecting and on each query's answer.
    let timeout: Duration
    /// Runs after each connection is made (to take session locks again); a failure closes the connection.
    var afterOpen: ((PostgresConnection) throws(StoreError) -> Void)?

    /// Makes a connection (not opened yet: ``open()`` or the first query opens it).
    init(location: PostgresLocation, password: String?, timeout: Duration) {
        self.location = location
        self.password = password
        self.timeout = timeout
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether a connection is open and not known to be broken.
    var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Opens the connection (closing a broken one first).
    /// - Throws: ``StoreError`` (`unavailable`) with libpq's reason: the server is down, refuses the role, ...
    func open() throws(StoreError) {
        close()
        let seconds = max(1, Int(timeout.components.seconds))
        var parameters: [(String, String)] = [
            ("host", location.host), ("port", String(location.port)), ("user", location.user),
            ("dbname", location.database), ("connect_timeout", String(seconds)), ("application_name", "stream"),
            ("client_encoding", "UTF8"),
            // A peer that vanishes without a word (a machine gone, a cable pulled) is noticed in seconds.
            ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
            ("tcp_user_timeout", String(seconds * 1000)),
        ]
        if let sslMode = location.sslMode { parameters.append(("sslmode", sslMode)) }
        if let password { parameters.append(("password", password)) }
        if let missing = stream_pq_load_error() {
            throw StoreError(.unavailable, "\(place): libpq is not installed (\(String(cString: missing))); "
                                + "install libpq5")
        }
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let opened = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keywordList in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { valueList in
                PQconnectdbParams(keywordList.baseAddress, valueList.baseAddress, 0)
            }
        }
        guard let opened else { throw StoreError(.unavailable, "\(place): libpq could not allocate a connection") }
        guard PQstatus(opened) == CONNECTION_OK else {
            let reason = Self.oneLine(PQerrorMessage(opened))
            PQfinish(opened)
            throw StoreError(.unavailable, "cannot connect to PostgreSQL at \(location): \(reason)")
        }
        handle = opened
        guard let afterOpen else { return }
        do {
            try afterOpen(self)
        } catch {
            close()
            throw error
        }
    }

    /// Closes the connection (the server rolls back a transaction left open).
    func close() {
        PQfinish(handle)
        handle = nil
    }

    /// Runs SQL without parameters, several statements allowed (the simple protocol); rows are dropped.
    func execute(_ sql: String) throws(StoreError) {
        let handle = try ready()
        timedOut = false
        guard PQsendQuery(handle, sql) == 1 else { throw lost(sql) }
        _ = try results(sql)
    }

    /// Runs one statement with parameters (`$1`, `$2`, ...; nil is NULL), in text format both ways.
    /// - Returns: the rows.
    @discardableResult
    func query(_ sql: String, _ parameters: String?...) throws(StoreError) -> [PostgresRow] {
        let handle = try ready()
        timedOut = false
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer {
            for pointer in copies { free(pointer) }
        }
        let sent = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
        }
        guard sent == 1 else { throw lost(sql) }
        return try results(sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<Result>(_ begin: String = "BEGIN", _ body: () throws(StoreError) -> Result)
        throws(StoreError) -> Result {
        do {
            try execute(begin)
        } catch where !isOpen && !timedOut {
            // The connection broke while idle (the server restarted): nothing was sent that counts, so once more on
            // a new one. A server that did not answer is not asked again: the caller has waited long enough.
            try execute(begin)
        }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isOpen { try? execute("ROLLBACK") }
            throw error
        }
    }

    // MARK: Waiting for answers

    private func ready() throws(StoreError) -> OpaquePointer {
        if !isOpen { try open() }
        guard let handle else { throw StoreError(.unavailable, "\(place): not connected") }
        return handle
    }

    /// Collects every result of the query sent, waiting at most `timeout` in all; the first error wins (the rest
    /// are still read, so the connection is ready for the next query).
    private func results(_ sql: String) throws(StoreError) -> [PostgresRow] {
        guard let handle else { throw StoreError(.unavailable, "\(place): not connected") }
        let deadline = ContinuousClock.now + timeout
        var rows: [PostgresRow] = []
        var firstError: StoreError?
        while true {
            while PQisBusy(handle) == 1 {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    // The server is alive for TCP but does not answer (stopped, or a lock held for ever): the
                    // connection is given up, which also ends the transaction on the server's side.
                    close()
                    timedOut = true
                    throw StoreError(.unavailable, "PostgreSQL at \(location) did not answer within \(timeout) "
                                     + "(\(Self.statementName(sql)))")
                }
                let milliseconds = Int32(clamping: left.components.seconds * 1000
                                         + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
                let polled = poll(&descriptor, 1, milliseconds)
                if polled < 0 && errno != EINTR {
                    let reason = String(cString: strerror(errno))
                    close()
                    throw StoreError(.unavailable, "\(place): poll failed: \(reason)")
                }
                guard PQconsumeInput(handle) == 1 else {
                    let error = failure(sql)
                    close()
                    throw error
                }
            }
            guard let result = PQgetResult(handle) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK:
                rows += Self.rows(of: result)
            case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                break
            default:
                if firstError == nil { firstError = Self.error(of: result, sql: sql, location: location) }
            }
        }
        if let firstError {
            if PQstatus(handle) != CONNECTION_OK { close() }
            throw firstError
        }
        return rows
    }

    private static func rows(of result: OpaquePointer) -> [PostgresRow] {
        let count = PQntuples(result)
        let columns = PQnfields(result)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(count))
        for row in 0..<count {
            var values: [String?] = []
            values.reserveCapacity(Int(columns))
            for column in 0..<columns {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    values.append(PQgetvalue(result, row, column).withMemoryRebound(to: UInt8.self,
                                                                                    capacity: length) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                    })
                }
            }
            rows.append(PostgresRow(values: values))
        }
        return rows
    }

    // MARK: Errors

    /// Where, for messages: the URL without secrets.
    private var place: String { "PostgreSQL at \(location)" }

    /// A send that failed: the connection is no use any more; closed, so the next query makes a new one.
    private func lost(_ sql: String) -> StoreError {
        let error = failure(sql)
        close()
        return error
    }

    /// The connection's last error as a store error (a send or read that failed: the connection is usually gone).
    private func failure(_ sql: String) -> StoreError {
        let reason = handle.map { Self.oneLine(PQerrorMessage($0)) } ?? "not connected"
        return StoreError(.unavailable, "\(place): \(reason) (\(Self.statementName(sql)))")
    }

    /// A failed result: SQLSTATE class XX (internal error: data corrupted) is damage a person must see to; anything
    /// else may pass (the server restarting, a lock timeout, a deadlock with another node).
    private static func error(of result: OpaquePointer, sql: String, location: PostgresLocation) -> StoreError {
        let state = PQresultErrorField(result, cpostgres_diag_sqlstate()).map { String(cString: $0) } ?? "?????"
        let message = PQresultErrorField(result, cpostgres_diag_message()).map { oneLine($0) }
            ?? oneLine(PQresultErrorMessage(result))
        let code: StoreError.Code = state.hasPrefix("XX") ? .damaged : .unavailable
        return StoreError(code, "PostgreSQL at \(location): \(message) (SQLSTATE \(state), \(statementName(sql)))")
    }

    /// libpq's multi-line messages on one line.
    private static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let words = String(cString: text).split(whereSeparator: { $0 == "\n" || $0 == "\t" || $0 == " " })
        return words.joined(separator: " ")
    }

    /// The first words of a statement, to say which failed without quoting its values.
    private static func statementName(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(4).joined(separator: " ")
    }
}

/// A row of a result, its values in text format (nil for NULL), copied out of libpq's result.
struct PostgresRow {
    var values: [String?]

    func text(_ column: Int) -> String {
        values[column] ?? ""
    }

    func optionalText(_ column: Int) -> String? {
        values[column]
    }

    func integer(_ column: Int) -> Int64 {
        values[column].flatMap { Int64($0) } ?? 0
    }

    func optionalInteger(_ column: Int) -> Int64? {
        values[column].flatMap { Int64($0) }
    }

    /// A boolean column (`t` or `f` in text format).
    func bool(_ column: Int) -> Bool {
        values[column] == "t"
    }
}
