import ByteIO
import LiveProtocol

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

/// Who is behind a session: the app user id from a checked token, or a visitor's id (``VisitorPass``: slow mode,
/// timeouts, kicks and bans follow it as they follow a user), and the display name.
public struct Participant: Sendable, Hashable {
    /// The app user id, or the visitor's; nil for a visitor without one (the protocol's visitors before ids).
    public var user: String?
    /// The display name in chat.
    public var name: String

    /// Creates a participant.
    public init(user: String?, name: String) {
        self.user = user
        self.name = name
    }

    /// The longest display name a visitor may choose, in code points (as an access token's `name`).
    public static let maximumNameLength = 64

    /// A display name a visitor chose (the `name` of its `join`): 1 to 64 code points with a visible one, without
    /// control or bidi-control characters (a name that reversed the text after it could pass for another's).
    /// - Throws: `invalid`, saying what is wrong.
    public static func visitorName(choosing text: String) throws(ShowError) -> String {
        let scalars = text.unicodeScalars
        guard (1...maximumNameLength).contains(scalars.count), scalars.contains(where: Show.isVisible) else {
            throw ShowError(.invalid, "a display name is 1 to \(maximumNameLength) characters, at least one visible")
        }
        guard !scalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isBidiControl })
        else {
            throw ShowError(.invalid, "a display name cannot hold control or bidi-control characters")
        }
        return text
    }

    /// The key distinct watchers are counted (and slow mode and reactions limited) by: the user id's bytes in hex
    /// (two ids that differ in bytes are two people, however alike they look: ``UserID``), or for a visitor (who has
    /// none) the session.
    func watcherKey(session: SessionID) -> String {
        user.map { "u:" + Hex.encode($0.utf8) } ?? "s:\(session.value)"
    }
}
