import Identity
import LiveProtocol

/// Who may play a show over WHEP (`POST /v1/streams/{name}/whep[?tile=…]`, docs/webrtc.md) and what, decided
/// without sockets. The bearer is the viewer's access token, the media token of a session that joined (what a
/// watch page holds), or nothing for a visitor; the role rule and bans are the show's LL-HLS ones, checked by the
/// show server with ``credential(bearer:)``'s answer. Then ``picture(query:)`` reads what is asked for (400) and
/// ``source(of:tiles:main:)`` names the published picture to forward (404 when nothing is live there).
public enum ShowWHEPAdmission {
    /// What the bearer is, by its form (its signature is checked where the secret is).
    public enum Credential: Sendable, Hashable {
        /// No bearer: a visitor, as the declaration's `visitors` role allows.
        case visitor
        /// A media token from a session's welcome (`m1.…`): checked as LL-HLS checks it.
        case mediaToken(String)
        /// An access token (a JWT): the user's role and bans decide.
        case accessToken(String)
    }

    /// What a player asks to watch.
    public enum Picture: Sendable, Hashable {
        /// The main picture: it follows the host's choice while the session lasts.
        case main
        /// One tile, whichever is main.
        case tile(TileKind)
    }

    /// Reads the bearer: none or an empty one is a visitor; a media token's prefix tells it from an access token.
    public static func credential(bearer: String?) -> Credential {
        guard let bearer, !bearer.isEmpty else { return .visitor }
        return bearer.hasPrefix(MediaToken.prefix) ? .mediaToken(bearer) : .accessToken(bearer)
    }

    /// The role rule's refusal, as for the show's LL-HLS and status: nil when `user` (nil: a visitor) may watch;
    /// 401 for a visitor the declaration does not let watch (sign in), 403 for a user whose role does not watch or
    /// who is banned.
    public static func refusal(user: String?, mayWatch: Bool, stream: String) -> ShowWHIPAdmission.Refusal? {
        guard !mayWatch else { return nil }
        return user == nil
            ? .init(status: 401, reason: "sign in to watch \(stream.prefix(128))")
            : .init(status: 403, reason: "you may not watch \(stream.prefix(128))")
    }

    /// Reads the `tile` query: absent is the main picture; `camera`, `screen` or `obs` that tile; else 400.
    public static func picture(query: String?) -> Result<Picture, ShowWHIPAdmission.Refusal> {
        guard let query else { return .success(.main) }
        guard let tile = TileKind(rawValue: query) else {
            return .failure(.init(status: 400, reason: "tile is camera, screen or obs (none: the main picture)"))
        }
        return .success(.tile(tile))
    }

    /// The tile whose media a player of `picture` gets now, given the show's published `tiles` and its `main`
    /// picture; 404 when that picture is not live.
    public static func source(of picture: Picture, tiles: [TileKind],
                              main: TileKind?) -> Result<TileKind, ShowWHIPAdmission.Refusal> {
        switch picture {
        case .main:
            guard let main, tiles.contains(main) else {
                return .failure(.init(status: 404, reason: "the show has no main picture now: nothing is live"))
            }
            return .success(main)
        case .tile(let tile):
            guard tiles.contains(tile) else {
                return .failure(.init(status: 404, reason: "nothing is live on the \(tile.rawValue) tile now"))
            }
            return .success(tile)
        }
    }

    /// What a main-picture player does when the show's pictures change.
    public enum Follow: Sendable, Hashable {
        /// Keep playing the tile it plays.
        case stay
        /// Switch to this tile, starting at its last keyframe (the player's rewriter keeps it seamless).
        case switchTo(TileKind)
        /// No main picture: keep the session and wait (nothing is sent until one is back).
        case wait
    }

    /// Which source a main-picture player follows: `playing` is the tile it plays now (nil: none), `main` the
    /// show's main picture after the change, `forwardable` the tiles whose media the server can forward.
    public static func follow(playing: TileKind?, main: TileKind?, forwardable: Set<TileKind>) -> Follow {
        guard let main, forwardable.contains(main) else { return .wait }
        return main == playing ? .stay : .switchTo(main)
    }
}
