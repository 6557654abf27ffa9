/// What a person may do in one stream, decided by the stream's declaration from their user id.
public enum Role: String, Sendable, Hashable, CaseIterable {
    /// Goes live, ends, gets OBS keys, chooses the main picture, moderates anyone but another host.
    case host
    /// Moderates viewers (not the host, not another mod); chats without slow mode.
    case mod
    /// Watches, chats (slow mode applies) and reacts.
    case viewer
    /// Watches only: writing or reacting gives `read_only`.
    case readOnly = "read_only"
    /// May not join: `unauthorized`.
    case none

    /// Whether the role may write in the chat and react.
    public var writes: Bool {
        switch self {
        case .host, .mod, .viewer: true
        case .readOnly, .none: false
        }
    }

    /// Whether the role moderates (delete, pin, timeout, slow, clear, kick, ban).
    public var moderates: Bool {
        switch self {
        case .host, .mod: true
        case .viewer, .readOnly, .none: false
        }
    }
}
