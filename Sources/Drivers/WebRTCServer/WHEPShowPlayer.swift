/// Who an admitted show player is and what it plays, as ``WHEPShowRoutes``' `admit` said: kept by the caller to
/// follow the main picture and to end the player on a ban.
public struct WHEPShowPlayer: Sendable, Hashable {
    /// The stream name.
    public var show: String
    /// The player's user id; nil for a visitor.
    public var user: String?
    /// The tile asked for; nil: the main picture, followed as the host switches.
    public var tile: String?
    /// The tile whose publish it plays now.
    public var playing: String

    /// Creates a player's record.
    public init(show: String, user: String?, tile: String?, playing: String) {
        self.show = show
        self.user = user
        self.tile = tile
        self.playing = playing
    }
}
