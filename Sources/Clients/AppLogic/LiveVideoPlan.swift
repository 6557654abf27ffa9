import LiveProtocol

/// What `LiveStreamVideoView` plays: the LL-HLS playlist of the main picture (or a chosen tile) while there is a
/// picture, a message while there is none. The view loads a new player item whenever the plan changes (a main
/// playlist that ended with the show cannot be resumed), and keeps it while only the main tile changes (the
/// server switches the main playlist itself, with a discontinuity). The playlist's path holds the session's media
/// token, so a renewed token is a new plan (the view loads it again; the old token works until it expires).
public enum LiveVideoPlan: Sendable, Hashable {
    /// Play this playlist URL.
    case play(String)
    /// Nothing to play: show this text instead.
    case waiting(String)

    /// Decides from the show.
    /// - Parameters:
    ///   - server: the server's HTTP(S) base URL.
    ///   - stream: the stream name.
    ///   - state: the show's state.
    ///   - tiles: the published pictures.
    ///   - chosen: a tile to draw instead of the main picture (nil: the main picture).
    ///   - access: the session's media grant (from its welcome, renewed by `access` events).
    public static func decide(server: String, stream: String, state: ShowState, tiles: [TileKind],
                              chosen: TileKind?, access: MediaAccess?) -> LiveVideoPlan {
        if let chosen, !tiles.contains(chosen) {
            return .waiting("The \(chosen.rawValue) picture is not live")
        }
        guard state == .live, !tiles.isEmpty else {
            return .waiting(state == .ended ? "The show has ended" : "Not live yet")
        }
        guard let access else { return .waiting("The server gave no media token: the picture cannot be fetched") }
        guard let url = playlistURL(server: server, stream: stream, token: access.token, tile: chosen) else {
            return .waiting("The server address is not an http(s) URL")
        }
        return .play(url)
    }

    /// `{server}/hls/{stream}/{token}/main.m3u8`, or `{tile}.m3u8` for one picture; nil for a server URL that is
    /// not http(s).
    public static func playlistURL(server: String, stream: String, token: String, tile: TileKind?) -> String? {
        let lowered = server.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        var base = Substring(server)
        while base.hasSuffix("/") { base = base.dropLast() }
        return "\(base)/hls/\(stream)/\(token)/\(tile?.rawValue ?? "main").m3u8"
    }
}
