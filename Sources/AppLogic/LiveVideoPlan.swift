import LiveProtocol

/// What `LiveStreamVideoView` plays: the LL-HLS playlist of the main picture (or a chosen tile) while there is a
/// picture, a message while there is none. The view loads a new player item whenever the plan changes (a main
/// playlist that ended with the show cannot be resumed), and keeps it while only the main tile changes (the
/// server switches the main playlist itself, with a discontinuity).
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
    public static func decide(server: String, stream: String, state: ShowState, tiles: [TileKind],
                              chosen: TileKind?) -> LiveVideoPlan {
        if let chosen, !tiles.contains(chosen) {
            return .waiting("The \(chosen.rawValue) picture is not live")
        }
        guard state == .live, !tiles.isEmpty else {
            return .waiting(state == .ended ? "The show has ended" : "Not live yet")
        }
        guard let url = playlistURL(server: server, stream: stream, tile: chosen) else {
            return .waiting("The server address is not an http(s) URL")
        }
        return .play(url)
    }

    /// `{server}/hls/{stream}/main.m3u8`, or `{tile}.m3u8` for one picture; nil for a server URL that is not
    /// http(s).
    public static func playlistURL(server: String, stream: String, tile: TileKind?) -> String? {
        let lowered = server.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        var base = Substring(server)
        while base.hasSuffix("/") { base = base.dropLast() }
        return "\(base)/hls/\(stream)/\(tile?.rawValue ?? "main").m3u8"
    }
}
