import LiveProtocol

/// Names one write a show is waiting on, so the driver can hand back its outcome.
public struct CommitID: Sendable, Hashable, CustomStringConvertible {
    /// The number, unique within its show.
    public let value: UInt64

    /// Creates an id.
    public init(_ value: UInt64) {
        self.value = value
    }

    /// "commit 7".
    public var description: String { "commit \(value)" }
}

/// What a show asks its driver to do, in order.
public enum ShowEffect: Sendable, Hashable {
    /// Send a message to one session.
    case send(SessionID, ServerMessage)
    /// Send a message to every session in the show.
    case broadcast(ServerMessage)
    /// Close a session's connection (after the messages before this effect); the show has forgotten it.
    case close(SessionID)
    /// Give a write to the store; hand its outcome to ``Show/committed(_:_:now:)``.
    case persist(CommitID, StoreWrite)
    /// The ingest's view of the show changed: update the ``IngestDirectory`` entry.
    case ingestChanged(IngestDirectory.Entry)
    /// Disconnect publishers of the show: every one (`keyHash` nil, after `end()`), or those using an OBS key
    /// that was just renewed.
    case cutPublishers(keyHash: String?)
    /// A user was banned: the media tokens given to them before now stop working (their sessions are ended by
    /// the effects before this one).
    case revokeMedia(user: String)
}
