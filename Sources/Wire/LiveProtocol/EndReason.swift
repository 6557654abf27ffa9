/// Why a session is out of the stream (the seed's `onEnded`).
public enum EndReason: String, Sendable, Hashable, CaseIterable {
    /// The user left (`leave`).
    case left
    /// A host or mod kicked the user: every session closed; they may join again.
    case kicked
    /// A host or mod banned the user: every session closed; joining again gives `banned` until unbanned.
    case banned
}
