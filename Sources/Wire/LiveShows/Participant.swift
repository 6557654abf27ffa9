import ByteIO

/// A driver's handle for one connection in a show.
public struct SessionID: Sendable, Hashable, CustomStringConvertible {
    /// The number; unique among the driver's sessions (and, with several nodes, random enough to be unique across
    /// them).
    public let value: UInt64

    /// Creates an id.
    public init(_ value: UInt64) {
        self.value = value
    }

    /// "session 42".
    public var description: String { "session \(value)" }
}

/// Who is behind a session: the app user id from a checked token (nil for a visitor) and the display name.
public struct Participant: Sendable, Hashable {
    /// The app user id; nil for a visitor.
    public var user: String?
    /// The display name in chat.
    public var name: String

    /// Creates a participant.
    public init(user: String?, name: String) {
        self.user = user
        self.name = name
    }

    /// The key distinct watchers are counted (and slow mode and reactions limited) by: the user id's bytes in hex
    /// (two ids that differ in bytes are two people, however alike they look: ``UserID``), or for a visitor (who has
    /// none) the session.
    func watcherKey(session: SessionID) -> String {
        user.map { "u:" + Hex.encode($0.utf8) } ?? "s:\(session.value)"
    }
}
