#if canImport(Glibc)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import Identity
import JSON
import LiveProtocol
import LiveShows
import Locking
import ShowServer
import SQLiteShowStore

/// The live show `stream demo` serves: one stream, `demo`, whose host is the demo's own broadcast.
///
/// Anyone who opens the watch page is a viewer without a token (visitors may chat and react). The token secret is
/// random and lives only in memory; the host's session is in-process (no token leaves it); the show's store is a
/// temporary directory removed when the demo ends.
final class DemoShow: Sendable {
    /// The stream's name (its page is /watch/demo).
    static let streamName = "demo"
    /// The declaration: the host is the broadcast, visitors and signed-in users are viewers, reactions on, a title.
    static let declarations = #"""
        {"streams": [{"pattern": "demo", "hosts": ["host"], "users": "viewer", "visitors": "viewer",
                      "reactions": true, "title": "Stream demo",
                      "description": "A test picture from this machine, live. Chat, react, and watch the clock."}]}
        """#

    let shows: ServeShows
    /// An access token for the host's page in a browser (a session of its own beside the broadcast's): good for
    /// this run only, as the secret it is signed with is drawn at start and never leaves the process.
    let browserHostToken: String
    private let hostToken: String
    private let host = HostConnection()
    private let session = Locked<SessionID?>(nil)
    private let nextRequest = Locked(1)

    /// Creates the show server (not started) over a store in `dataDirectory`.
    /// - Parameter onPictures: told when the show's pictures change (for LL-HLS's main picture).
    init(dataDirectory: String,
         onPictures: @escaping @Sendable (String, [TileKind], TileKind?) -> Void) throws {
        do {
            let catalog = try ShowsFile.catalog(from: Array(Self.declarations.utf8))
            let secret = try TokenSecret((0..<32).map { _ in UInt8.random(in: .min ... .max) })
            let server = try ShowServer(configuration: ShowServer.Configuration(
                catalog: catalog, secret: secret,
                makeStore: { () throws(StoreError) -> any ShowStore in
                    try SQLiteShowStore(directory: dataDirectory)
                },
                onPictures: onPictures))
            shows = ServeShows(server: server, dataDirectory: dataDirectory, storeDescription: dataDirectory,
                               ingestURL: nil, mediaTagKey: ServeShows.tagKey(of: secret))
            let expiresAt = Int64(Date().timeIntervalSince1970) + 86_400
            hostToken = AccessToken(subject: "host", name: "Stream demo", expiresAt: expiresAt).signed(with: secret)
            browserHostToken = AccessToken(subject: "host", name: "Host (browser)", expiresAt: expiresAt)
                .signed(with: secret)
        } catch {
            throw CLIError.failure("cannot set up the demo show: \(error)")
        }
    }

    /// Joins as the host and asks for the show's ingest key (the key the broadcast publishes with; never printed).
    /// - Throws: `CLIError.failure` when the show does not answer as the protocol says.
    func hostIngestKey() throws -> String {
        let id = shows.server.connected(host, streamName: Self.streamName, token: hostToken)
        session.withLock { $0 = id }
        let joined = try request(#""op":"join""#)
        guard joined["ok"]?.boolValue == true else { throw CLIError.failure("the demo host could not join: \(joined)") }
        let ingest = try request(#""op":"ingest""#)
        guard ingest["ok"]?.boolValue == true, let key = ingest["key"]?.stringValue else {
            throw CLIError.failure("the demo show gave no ingest key")
        }
        return key
    }

    /// Ends the show (its pages say "ended"), as the host.
    func end() {
        _ = try? request(#""op":"end""#)
    }

    /// Sends a request as the host and waits for its reply.
    private func request(_ fields: String) throws -> JSONValue {
        guard let session = session.withLock({ $0 }) else { throw CLIError.failure("the demo host is not connected") }
        let id = nextRequest.withLock { value -> Int in
            defer { value += 1 }
            return value
        }
        shows.server.received(Array(#"{"id":\#(id),\#(fields)}"#.utf8), from: session)
        guard let reply = host.reply(to: id, within: .seconds(10)) else {
            throw CLIError.failure("the demo show did not answer")
        }
        return reply
    }
}

/// The host's in-process connection: keeps the replies, ignores the events.
private final class HostConnection: ShowConnection {
    private let replies = Locked<[Int: [UInt8]]>([:])
    private let arrived = DispatchSemaphore(value: 0)

    func send(_ text: [UInt8]) {
        guard let object = try? JSONParser.parse(text),
              let id = object["reply"]?.numberValue.flatMap({ Int(exactly: $0) }) else { return }
        replies.withLock { $0[id] = text }
        arrived.signal()
    }

    func close(code: UInt16, reason: String) {}

    func reply(to id: Int, within timeout: Duration) -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let text = replies.withLock({ $0.removeValue(forKey: id) }) {
                return try? JSONParser.parse(text)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            _ = arrived.wait(timeout: .now() + .milliseconds(Int(left / .milliseconds(1)) + 1))
        }
    }
}
