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
        }
    }

    private static func days(_ days: Double) -> String {
        if days >= 1, days == days.rounded() { return "\(Int(days)) day\(days == 1 ? "" : "s")" }
        return "\(Int((days * 86_400).rounded())) s"
    }
}
