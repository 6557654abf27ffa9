/// A check that runs before the key list on every publish: how a live-show server admits its hosts' publish
/// grants and OBS keys. The key passes through the gate and nowhere else (never a log or an event).
public struct PublishGate: Sendable {
    /// The gate's answer to a publish.
    public enum Decision: Sendable, Equatable {
        /// Not the gate's key: the ingest's own rules (applications, key list) decide.
        case pass
        /// Admitted: the id names this admission in ``PublishGate/started`` and ``PublishGate/stopped`` and in
        /// ``RTMPServer/disconnectPublishers(admittedAs:)``.
        case allow(UInt64)
        /// Refused (`NetStream.Publish.Unauthorized`), with the reason for the log.
        case refuse(String)
    }

    /// Decides a publish to `app` with the stream key `key` (on the server's loop thread: keep it quick).
    public var authorize: @Sendable (_ app: String, _ key: String) -> Decision
    /// An admitted publisher started publishing.
    public var started: @Sendable (UInt64) -> Void
    /// An admitted publisher stopped (or its connection closed).
    public var stopped: @Sendable (UInt64) -> Void

    /// Creates a gate.
    public init(authorize: @escaping @Sendable (_ app: String, _ key: String) -> Decision,
                started: @escaping @Sendable (UInt64) -> Void, stopped: @escaping @Sendable (UInt64) -> Void) {
        self.authorize = authorize
        self.started = started
        self.stopped = stopped
    }
}
