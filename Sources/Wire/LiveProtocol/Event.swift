/// What the server tells sessions without being asked.
public enum Event: Sendable, Hashable {
    /// The show's state changed.
    case state(ShowState)
    /// The main picture changed: which tile it is, or nil when nothing is published (media off).
    case media(main: TileKind?)
    /// The published pictures changed.
    case tiles([TileKind], main: TileKind?)
    /// The count of distinct watchers changed (at most once a second).
    case viewers(Int)
    /// A chat message was committed; its id is its chat sequence number.
    case message(ChatMessage)
    /// A message was deleted, at chat sequence number `seq`.
    case deleted(id: Int64, seq: Int64)
    /// Every message was deleted, at chat sequence number `seq`.
    case cleared(seq: Int64)
    /// The pinned message changed (nil: unpinned).
    case pinned(ChatMessage?)
    /// Slow mode changed (seconds, 0 = off).
    case slow(Int)
    /// Reactions since the last such event (sent at most every 250 ms), counted by kind.
    case reactions([Reaction: Int])
    /// This session's standing changed (timed out, timeout over).
    case you(SessionStanding)
    /// This session is out of the stream; the server closes the connection after this.
    case ended(EndReason)
    /// This session's media token was renewed: use this one from now on (the old one works until it expires).
    case access(MediaAccess)
}
