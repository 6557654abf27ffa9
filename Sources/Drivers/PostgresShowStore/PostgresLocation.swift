import LiveShows

/// Where a PostgreSQL database is: `postgres://USER@HOST:PORT/DB` (or `postgresql://`), as `stream serve --store`
/// takes it. The password never comes from the URL (it would show in `ps` and in shell history): libpq reads
/// `PGPASSWORD` or `PGPASSFILE`, or the caller passes one read from a private file.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The role to connect as.
    public var user: String
    /// A host name, an IP address, or a directory holding the server's Unix socket (starts with `/`).
    public var host: String
    /// The TCP port (also names the Unix socket).
    public var port: Int
    /// The database.
    public var database: String
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`), nil for libpq's default.
    public var sslMode: String?

    /// The port when the URL gives none.
    public static let defaultPort = 5432
    /// The `sslmode` values libpq knows.
    static let sslModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Creates a location.
    public init(user: String, host: String, port: Int = defaultPort, database: String, sslMode: String? = nil) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Parses a URL.
    /// - Parameter url: `postgres://USER@HOST[:PORT]/DB[?sslmode=MODE]`; parts may be percent-encoded (a socket
    ///   directory as host: `%2Frun%2Fpostgresql`); `[::1]` for an IPv6 address.
    /// - Throws: ``StoreError`` (`unavailable`) saying what is missing or wrong; the message never repeats a
    ///   password, even one given by mistake.
    public init(url: String) throws(StoreError) {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { url.hasPrefix($0) }) else {
            throw StoreError(.unavailable, "a PostgreSQL store is a postgres://USER@HOST:PORT/DB URL")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw StoreError(.unavailable, "the PostgreSQL URL names no database (postgres://USER@HOST:PORT/DB)")
        }
        let authority = rest[..<slash]
        let databasePart = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else {
            throw StoreError(.unavailable, "the PostgreSQL URL names no user (postgres://USER@HOST:PORT/DB)")
        }
        let userInfo = authority[..<at]
        guard !userInfo.contains(":") else {
            throw StoreError(.unavailable, "the PostgreSQL URL holds a password: leave it out (it would show in ps) "
                             + "and give it in a file (--store-password-file) or in PGPASSWORD or PGPASSFILE")
        }
        var hostPort = authority[authority.index(after: at)...]
        var port = Self.defaultPort
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw StoreError(.unavailable, "the PostgreSQL URL's host has a [ without its ]")
            }
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                    throw StoreError(.unavailable, "the PostgreSQL URL's port is not a number")
                }
                port = number
            }
            hostPort = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
        } else if let colon = hostPort.lastIndex(of: ":") {
            guard let number = Int(hostPort[hostPort.index(after: colon)...]) else {
                throw StoreError(.unavailable, "the PostgreSQL URL's port is not a number")
            }
            port = number
            hostPort = hostPort[..<colon]
        }
        guard (1...65_535).contains(port) else {
            throw StoreError(.unavailable, "the PostgreSQL URL's port \(port) is not from 1 to 65535")
        }
        let user = try Self.decode(userInfo, "user")
        let host = try Self.decode(hostPort, "host")
        let database = try Self.decode(databasePart, "database")
        for (part, value) in [("user", user), ("host", host), ("database", database)] where value.isEmpty {
            throw StoreError(.unavailable, "the PostgreSQL URL names no \(part) (postgres://USER@HOST:PORT/DB)")
        }
        var sslMode: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "sslmode", Self.sslModes.contains(String(parts[1])) else {
                throw StoreError(.unavailable, "the PostgreSQL URL takes only ?sslmode= (one of "
                                 + "\(Self.sslModes.sorted().joined(separator: ", "))), not '\(pair.prefix(40))'")
            }
            sslMode = String(parts[1])
        }
        self.init(user: user, host: host, port: port, database: database, sslMode: sslMode)
    }

    /// The URL without anything secret, for messages and logs.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]"
            : host.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "%2F")
        return "postgres://\(user)@\(shownHost):\(port)/\(database)" + (sslMode.map { "?sslmode=\($0)" } ?? "")
    }

    /// Percent-decodes one part of the URL; a part that does not decode to UTF-8 or holds a NUL is refused.
    private static func decode(_ part: Substring, _ name: String) throws(StoreError) -> String {
        var bytes: [UInt8] = []
        var iterator = part.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw StoreError(.unavailable, "the PostgreSQL URL's \(name) has a % not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            throw StoreError(.unavailable, "the PostgreSQL URL's \(name) is not UTF-8 text")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
