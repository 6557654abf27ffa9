#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Identity
import IngestServer
import LiveProtocol
import LiveShows
import Locking
import PostgresShowStore
import ShowServer
import SQLiteShowStore

/// The live-show part of `stream serve`: `--shows`, `--token-secret-file`, `--data-dir`, `--ingest-url`, `--store`.
///
/// It reads and checks the declarations and the secret before anything starts, gates the RTMP ingest with the
/// shows' publish grants and OBS keys, and serves the protocol of docs/live-protocol.md on the HTTP listener.
struct ServeShows {
    static let options: [OptionSpec] = [
        .value("shows", valueName: "FILE",
               help: "Serve live shows declared in FILE (JSON) at /v1/streams/NAME on the HTTP listener."),
        .value("token-secret-file", valueName: "FILE",
               help: "The secret access tokens are signed with (mode 0600, at least 32 bytes); needs --shows."),
        .value("data-dir", valueName: "DIR",
               help: "Where shows keep chat, bans and keys (default $XDG_DATA_HOME/stream)."),
        .value("ingest-url", valueName: "URL",
               help: "The RTMP(S) URL hosts are told to publish to (default: from the ingest's listener)."),
        .value("chat-retention", valueName: "DAYS",
               help: "Remove chat older than this, but pinned messages (default 30; 0 keeps all)."),
        .value("store", valueName: "URL",
               help: "Keep shows in PostgreSQL (postgres://USER@HOST:PORT/DB), not SQLite in --data-dir. One node "
                   + "per database for now: nodes share no live chat until --bus exists (docs/scale.md)."),
        .value("store-password-file", valueName: "FILE",
               help: "The PostgreSQL role's password (mode 0600); without it libpq's PGPASSWORD or PGPASSFILE."),
    ]

    let server: ShowServer
    let dataDirectory: String
    /// Where the store is, for messages: the SQLite file's directory or the PostgreSQL URL (without secrets).
    let storeDescription: String
    let ingestURL: String?
    /// The key of plain publishes' LL-HLS address tags, derived from the token secret (so they outlive a restart).
    let mediaTagKey: [UInt8]

    /// Reads the options.
    /// - Returns: nil without `--shows`.
    /// - Throws: `CLIError.usage` for a shows file that does not parse (with its line), a missing or non-private
    ///   secret, or options given without `--shows`.
    static func make(_ arguments: ParsedArguments, context: CommandContext,
                     onEvent: @escaping @Sendable (ShowServerEvent) -> Void,
                     onPictures: @escaping @Sendable (String, [TileKind], TileKind?) -> Void = { _, _, _ in })
        throws -> ServeShows? {
        guard let file = arguments.value("shows") else {
            for option in ["token-secret-file", "data-dir", "ingest-url", "chat-retention", "store",
                           "store-password-file"]
            where arguments.value(option) != nil {
                throw CLIError.usage("--\(option) needs --shows FILE")
            }
            return nil
        }
        guard let contents = FileManager.default.contents(atPath: file) else {
            throw CLIError.usage("--shows: cannot read \(file)")
        }
        let catalog: StreamCatalog
        do {
            catalog = try ShowsFile.catalog(from: Array(contents))
        } catch {
            throw CLIError.usage("--shows \(file): \(error)")
        }
        guard let secretFile = arguments.value("token-secret-file") else {
            throw CLIError.usage("--shows needs --token-secret-file FILE (make one with `openssl rand -hex 32 > FILE; "
                                    + "chmod 600 FILE`)")
        }
        let secret = try TokenSecretFile.read(secretFile, flag: "--token-secret-file")
        let directory = try arguments.value("data-dir") ?? Self.defaultDataDirectory(context.environment)
        let ingestURL = arguments.value("ingest-url")
        if let ingestURL, !(ingestURL.hasPrefix("rtmp://") || ingestURL.hasPrefix("rtmps://")) {
            throw CLIError.usage("--ingest-url must be an rtmp:// or rtmps:// URL, not '\(ingestURL.prefix(60))'")
        }
        let retention = try arguments.value("chat-retention").map { text -> Duration? in
            guard let days = Double(text), days >= 0, days <= 36_500, days.isFinite else {
                throw CLIError.usage("--chat-retention \(text.prefix(20)) is not a number of days from 0 to 36500")
            }
            return days == 0 ? nil : .seconds(days * 86_400)
        } ?? .seconds(30 * 86_400)
        let (makeStore, storeDescription) = try Self.store(arguments, directory: directory)
        let server: ShowServer
        do {
            server = try ShowServer(configuration: ShowServer.Configuration(
                catalog: catalog, secret: secret, makeStore: makeStore,
                onEvent: onEvent, onPictures: onPictures, chatRetention: retention))
        } catch {
            throw CLIError.failure(error.reason)
        }
        return ServeShows(server: server, dataDirectory: directory, storeDescription: storeDescription,
                          ingestURL: ingestURL, mediaTagKey: tagKey(of: secret))
    }

    /// The store `--store` names (PostgreSQL), else SQLite in the data directory; checked before anything starts.
    /// - Returns: how to open it (on the store's thread), and where it is for messages.
    static func store(_ arguments: ParsedArguments, directory: String) throws
        -> (@Sendable () throws(StoreError) -> any ShowStore, String) {
        guard let url = arguments.value("store") else {
            if arguments.value("store-password-file") != nil {
                throw CLIError.usage("--store-password-file needs --store postgres://USER@HOST:PORT/DB")
            }
            return ({ () throws(StoreError) -> any ShowStore in try SQLiteShowStore(directory: directory) },
                    directory)
        }
        let location: PostgresLocation
        do {
            location = try PostgresLocation(url: url)
        } catch {
            throw CLIError.usage("--store: \(error.reason)")
        }
        let password = try arguments.value("store-password-file").map { file in
            let bytes = try TokenSecretFile.privateContents(file, flag: "--store-password-file",
                                                            what: "a password")
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.unicodeScalars.last, last == "\n" || last == "\r" {
                text.unicodeScalars.removeLast()
            }
            guard !text.isEmpty, !text.contains("\0") else {
                throw CLIError.usage("--store-password-file: \(file) holds no password (or a NUL)")
            }
            return text
        }
        return ({ () throws(StoreError) -> any ShowStore in
            try PostgresShowStore(location: location, password: password)
        }, location.description)
    }

    /// The key of plain publishes' address tags that a secret gives.
    static func tagKey(of secret: TokenSecret) -> [UInt8] {
        secret.derivedKey(for: "stream media tags")
    }

    /// `$XDG_DATA_HOME/stream`, else `~/.local/share/stream`.
    static func defaultDataDirectory(_ environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/stream" }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw CLIError.failure("neither XDG_DATA_HOME nor HOME is set: pass --data-dir DIR")
        }
        return home + "/.local/share/stream"
    }

    /// Gates the ingest with the shows' keys.
    func configureIngest(_ configuration: inout RTMPServer.Configuration) {
        configuration.publishGate = server.publishGate()
    }

    /// Opens the store and starts serving, once the ingest listens.
    /// - Parameters:
    ///   - ingest: the running ingest (it disconnects publishers whose key was renewed or whose show ended).
    ///   - ingestURL: the URL derived from the ingest's listener, unless `--ingest-url` gave one.
    func start(ingest: RTMPServer, ingestURL derived: String?) throws {
        server.setPublisherDisconnector { ingest.disconnectPublishers(admittedAs: $0) }
        let url = ingestURL ?? derived
        do {
            try runBlocking { try await server.start(ingestURL: url) }
        } catch {
            throw CLIError.failure("cannot open the shows' store in \(storeDescription): \(error)")
        }
    }

    /// Reads the shows file again and serves its declarations (SIGHUP); a file that does not parse is refused,
    /// with its line, and the declarations in force stay.
    /// - Returns: the log line that says which.
    func reload(_ file: String) -> String {
        guard let contents = FileManager.default.contents(atPath: file) else {
            return "shows: reload refused: cannot read \(file); the declarations in force stay"
        }
        do {
            let catalog = try ShowsFile.catalog(from: Array(contents))
            server.replaceCatalog(catalog)
            let count = catalog.declarations.count
            return "shows: reloaded \(file): \(count) pattern\(count == 1 ? "" : "s")"
        } catch {
            return "shows: reload refused: \(file): \(error); the declarations in force stay"
        }
    }

    /// The ingest URL of a listener: 0.0.0.0 and :: become 127.0.0.1 (pass --ingest-url for other machines).
    static func ingestURL(scheme: String, host: String, port: Int) -> String {
        let reachable = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return "\(scheme)://\(reachable.contains(":") ? "[\(reachable)]" : reachable):\(port)/live"
    }
}
