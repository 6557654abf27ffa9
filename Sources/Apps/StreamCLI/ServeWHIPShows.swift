import HTTPServer
import LiveProtocol
import LiveShows
import Locking
import ShowServer
import WebRTCServer

/// `stream serve`'s WHIP publishes into live shows (`POST /v1/streams/{name}/whip?tile=…`, docs/webrtc.md): the
/// show server admits them, LL-HLS learns which show and picture each session's media is, and the show goes live
/// when the session connects and follows when it ends, as for an RTMP publish with a grant.
final class ServeWHIPShows: Sendable {
    private let shows: ShowServer
    private let hls: ServeHLS
    /// The admitted sessions, by media tag (random: a session's own, never derived from a token).
    private let admitted = Locked(WHIPShowSessions())
    private let server = Locked<WebRTCServer?>(nil)
    /// Where the table's time counts from.
    private let origin = ContinuousClock.now

    init(shows: ShowServer, hls: ServeHLS) {
        self.shows = shows
        self.hls = hls
        let admitted = self.admitted
        let server = self.server
        // The host ended the show: its WHIP pictures are closed, as its RTMP publishers are cut.
        shows.setWHIPCutter { show in
            let sessions = admitted.withLock { $0.sessions(of: show) }
            guard !sessions.isEmpty, let server = server.withLock({ $0 }) else { return }
            Task {
                for session in sessions { _ = await server.close(session: session, app: show) }
            }
        }
    }

    /// Decides a publish; an admitted one gets a fresh media tag that LL-HLS maps to the show's picture. A picture
    /// already published over WHIP is taken over: the host's page publishes again when its path is lost, and the old
    /// session, which may take 30 s to lose its consent, is closed now (as a WHIP publish with a plain key replaces
    /// the last). A picture published over RTMP stays refused (409).
    func admit(stream: String, tile: String?, bearer: String?) async -> WHIPShowRoutes.Admission {
        let previous = tile.flatMap(TileKind.init(rawValue:)).flatMap { picture in
            admitted.withLock { $0.connectedSession(show: stream, tile: picture) }
        }
        switch await shows.authorizeWHIP(stream: stream, tile: tile, bearer: bearer, replacing: previous != nil) {
        case .failure(let refusal):
            return .refuse(status: refusal.status, reason: refusal.reason)
        case .success(let ticket):
            var generator = SystemRandomNumberGenerator()
            let tag = (0..<16).map { _ in
                let byte = UInt8.random(in: 0...255, using: &generator)
                return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
            }.joined()
            let now = ContinuousClock.now - origin
            // The session it replaces is closed once this one connects (``started(streamTag:)``).
            let room = admitted.withLock { $0.admit(tag, ticket: ticket, now: now, replacing: previous?.session) }
            guard room else { return .refuse(status: 503, reason: "too many WHIP sessions: try again later") }
            hls.expectShowPublish(app: stream, keyTag: tag, show: ticket.show, tile: ticket.tile)
            return .admit(streamTag: tag)
        }
    }

    /// An admitted session's offer was refused after all: it never starts.
    func abandoned(streamTag: String) {
        admitted.withLock { $0.abandon(streamTag) }
    }

    /// A session connected: its picture goes live (nothing for a plain `/whip/{app}` publish).
    /// - Returns: whether the session was a show's picture.
    @discardableResult
    func started(streamTag: String) -> Bool {
        guard let (ticket, replacing) = admitted.withLock({ $0.started(streamTag) }) else { return false }
        shows.publishStarted(ticket)
        // The session it replaces ends now that this one is live, not before: the picture never goes off the air
        // in between, and an offer that never connects leaves the old session be.
        if let replacing, let server = server.withLock({ $0 }) {
            Task {
                _ = await server.handOver(session: replacing, app: ticket.show, to: streamTag,
                                          reason: "replaced by a new WHIP session of the same picture")
            }
        }
        return true
    }

    /// A session ended: its picture stops.
    func stopped(streamTag: String) {
        guard let ticket = admitted.withLock({ $0.stopped(streamTag) }) else { return }
        shows.publishStopped(ticket)
    }

    /// The media tag of the WHIP session publishing the show's `tile` now, for WHEP players; nil: none connected.
    func streamTag(show: String, tile: TileKind) -> String? {
        admitted.withLock { $0.connectedTag(show: show, tile: tile) }
    }

    /// Adds the show WHIP routes.
    func addRoutes(to router: inout HTTPRouter, server: WebRTCServer) {
        self.server.withLock { $0 = server }
        let admitted = self.admitted
        WHIPShowRoutes(server: server, admit: { [self] stream, tile, bearer in
            await admit(stream: stream, tile: tile, bearer: bearer)
        }, abandoned: { [self] _, tag in abandoned(streamTag: tag) }, created: { _, tag, session in
            admitted.withLock { $0.created(tag, session: session) }
        }).add(to: &router)
    }
}
