import HTTPServer
import LiveProtocol
import LiveShows
import Locking
import ShowServer
import WebRTCServer

/// `stream serve`'s WHEP playback of live shows (`POST /v1/streams/{name}/whep[?tile=…]`, docs/webrtc.md): the
/// show server admits the player (role rule, bans), the show's pictures say which tile's publish it gets (a WHIP
/// session's, or an RTMP publish's forwarded under the show's name), a main-picture player moves to the host's new
/// choice, and a ban ends the banned user's players.
final class ServeWHEPShows: Sendable {
    /// The most players remembered: the WebRTC server's own player bound (192) is far lower, so only players that
    /// ended by themselves (consent lost, the publish ended) fill it; then the oldest are forgotten.
    static let maximumPlayers = 4096

    private let shows: ShowServer
    private let whip: ServeWHIPShows
    /// Each show's published tiles and main picture, as the show server last said (``picturesChanged``).
    private let pictures = Locked([String: (tiles: [TileKind], main: TileKind?)]())
    /// The players by session id (a capability: never logged), in the order they came.
    private let players = Locked([(session: String, player: WHEPShowPlayer)]())
    private let server = Locked<WebRTCServer?>(nil)
    /// The RTMP publishes forwarded as a show's pictures (OBS, `stream live`): their stream tags by show and tile.
    private let rtmpPictures = Locked([String: [TileKind: String]]())

    init(shows: ShowServer, whip: ServeWHIPShows) {
        self.shows = shows
        self.whip = whip
        let players = self.players
        let server = self.server
        // A ban revokes the user's media tokens: their players end too.
        shows.setMediaRevoker { show, user in
            let ended = players.withLock { table in
                let gone = table.filter { $0.player.show == show && $0.player.user == user }.map(\.session)
                table.removeAll { $0.player.show == show && $0.player.user == user }
                return gone
            }
            guard !ended.isEmpty, let server = server.withLock({ $0 }) else { return }
            Task {
                for session in ended { _ = await server.close(session: session, app: show, playback: true,
                                                         reason: "its user was banned") }
            }
        }
    }

    /// Decides a player: who it is (the show server), then the tile whose publish it gets now.
    func admit(stream: String, tile: String?, bearer: String?) async -> WHEPShowRoutes.Admission {
        let picture: ShowWHEPAdmission.Picture
        switch ShowWHEPAdmission.picture(query: tile) {
        case .success(let asked): picture = asked
        case .failure(let refusal): return .refuse(status: refusal.status, reason: refusal.reason)
        }
        let user: String?
        switch await shows.authorizeWHEP(stream: stream, bearer: bearer) {
        case .success(let admitted): user = admitted
        case .failure(let refusal): return .refuse(status: refusal.status, reason: refusal.reason)
        }
        let now = pictures.withLock { $0[stream] } ?? (tiles: [], main: nil)
        switch ShowWHEPAdmission.source(of: picture, tiles: now.tiles, main: now.main) {
        case .failure(let refusal):
            return .refuse(status: refusal.status, reason: refusal.reason)
        case .success(let source):
            guard let tag = streamTag(show: stream, tile: source) else {
                return .refuse(status: 404, reason: "the \(source.rawValue) picture is not forwarded to WebRTC "
                                   + "players: play it over LL-HLS")
            }
            return .play(streamTag: tag, player: WHEPShowPlayer(show: stream, user: user, tile: tile,
                                                                playing: source.rawValue))
        }
    }

    /// An RTMP publish of a show's picture is forwarded under the show's name with `streamTag`.
    func rtmpPictureStarted(show: String, tile: TileKind, streamTag: String) {
        rtmpPictures.withLock { $0[show, default: [:]][tile] = streamTag }
        let now = pictures.withLock { $0[show] }
        // Players waiting on this picture (it is main now) start on it.
        if let now { follow(stream: show, tiles: now.tiles, main: now.main, sessions: nil) }
    }

    /// That RTMP publish stopped.
    func rtmpPictureStopped(show: String, tile: TileKind, streamTag: String) {
        rtmpPictures.withLock { table in
            guard table[show]?[tile] == streamTag else { return }
            table[show]?[tile] = nil
            if table[show]?.isEmpty == true { table[show] = nil }
        }
    }

    /// The stream tag a show's picture is forwarded with now: its WHIP session's, else its RTMP publish's.
    private func streamTag(show: String, tile: TileKind) -> String? {
        whip.streamTag(show: show, tile: tile) ?? rtmpPictures.withLock { $0[show]?[tile] }
    }

    /// A show's tiles or main picture changed: main-picture players move to the new main picture.
    func picturesChanged(stream: String, tiles: [TileKind], main: TileKind?) {
        pictures.withLock { table in
            if tiles.isEmpty { table[stream] = nil } else { table[stream] = (tiles, main) }
        }
        follow(stream: stream, tiles: tiles, main: main, sessions: nil)
    }

    /// Moves the show's main-picture players (all, or those of `sessions`) to the main picture's tile.
    private func follow(stream: String, tiles: [TileKind], main: TileKind?, sessions: Set<String>?) {
        let followers = players.withLock { table in
            table.filter { entry in
                entry.player.show == stream && entry.player.tile == nil
                    && sessions?.contains(entry.session) != false
            }
        }
        guard !followers.isEmpty, let server = server.withLock({ $0 }) else { return }
        let forwardable = Set(tiles.filter { streamTag(show: stream, tile: $0) != nil })
        var moves: [(session: String, tile: TileKind, tag: String)] = []
        for follower in followers {
            let playing = TileKind(rawValue: follower.player.playing)
            guard case .switchTo(let tile) = ShowWHEPAdmission.follow(playing: playing, main: main,
                                                                     forwardable: forwardable),
                  let tag = streamTag(show: stream, tile: tile) else { continue }
            moves.append((follower.session, tile, tag))
        }
        guard !moves.isEmpty else { return }
        let players = self.players
        Task {
            for move in moves {
                let followed = await server.follow(session: move.session, app: stream, streamTag: move.tag)
                players.withLock { table in
                    guard let index = table.firstIndex(where: { $0.session == move.session }) else { return }
                    if followed { table[index].player.playing = move.tile.rawValue } else { table.remove(at: index) }
                }
            }
        }
    }

    /// Adds the show WHEP routes.
    func addRoutes(to router: inout HTTPRouter, server: WebRTCServer) {
        self.server.withLock { $0 = server }
        let players = self.players
        WHEPShowRoutes(server: server, admit: { [self] stream, tile, bearer in
            await admit(stream: stream, tile: tile, bearer: bearer)
        }, created: { [self] session, player in
            players.withLock { table in
                if table.count >= Self.maximumPlayers { table.removeFirst(table.count - Self.maximumPlayers + 1) }
                table.append((session, player))
            }
            // The main picture may have moved between the admission and the answer: follow it now.
            if player.tile == nil, let now = self.pictures.withLock({ $0[player.show] }),
               now.main?.rawValue != player.playing {
                self.follow(stream: player.show, tiles: now.tiles, main: now.main, sessions: [session])
            }
        }, deleted: { session in
            players.withLock { $0.removeAll { $0.session == session } }
        }).add(to: &router)
    }
}
