/// Something the show server did that an operator wants to see. Never holds a token or a key.
public enum ShowServerEvent: Sendable, Equatable, CustomStringConvertible {
    /// The store failed a load or a commit.
    case storeFailed(show: String, reason: String)
    /// Publishers of a show were disconnected (its host ended it, or renewed its OBS key).
    case publishersCut(show: String, reason: String)
    /// A connection was closed for sending too many malformed messages.
    case connectionDropped(session: UInt64, reason: String)
    /// Chat older than the retention was removed from the store.
    case chatPruned(messages: Int, olderThanDays: Double)
    /// More bans than ``MediaGate`` keeps came within one media token lifetime: the oldest revocation was
    /// forgotten (the banned user's older media tokens may work until they expire).
    case revocationForgotten(ageSeconds: Int64)
    /// A show went live: a host picture is published.
    case showLive(show: String)
    /// A live show stopped being live (its pictures stopped, or its host ended it), after `seconds` live with at most
    /// `peakViewers` distinct viewers at once.
    case showEnded(show: String, seconds: Double, peakViewers: Int)
    /// A picture of a show started being published.
    case tileAdded(show: String, tile: String)
    /// A picture of a show stopped.
    case tileEnded(show: String, tile: String)
    /// A moderator banned a user from a show (committed to the store).
    case userBanned(show: String, user: String)
    /// A moderator kicked a user out of a show (committed to the store).
    case userKicked(show: String, user: String)

    /// One log line.
    public var description: String {
        switch self {
        case .storeFailed(let show, let reason): "show \(show): the store failed: \(reason)"
        case .publishersCut(let show, let reason): "show \(show): publishers cut (\(reason))"
        case .connectionDropped(let session, let reason): "show session \(session) dropped: \(reason)"
        case .chatPruned(let messages, let days):
            "shows: \(messages) chat message\(messages == 1 ? "" : "s") older than \(Self.days(days)) removed"
        case .revocationForgotten(let age):
            "shows: too many bans at once: a revocation \(age) s old was forgotten (its media tokens expire soon)"
        case .showLive(let show): "show \(show): live"
        case .showEnded(let show, let seconds, let peak):
            "show \(show): no longer live after \(Int(seconds.rounded())) s, at most \(peak) viewers"
        case .tileAdded(let show, let tile): "show \(show): picture \(tile) started"
        case .tileEnded(let show, let tile): "show \(show): picture \(tile) stopped"
        case .userBanned(let show, let user): "show \(show): user \(user) banned"
        case .userKicked(let show, let user): "show \(show): user \(user) kicked"
        }
    }

    private static func days(_ days: Double) -> String {
        if days >= 1, days == days.rounded() { return "\(Int(days)) day\(days == 1 ? "" : "s")" }
        return "\(Int((days * 86_400).rounded())) s"
    }
}
