import Synchronization

/// Counters of a running server, readable from any thread.
public struct ServerStatistics: Sendable, Equatable {
    /// Open connections.
    public var connections: Int
    /// Streams with a publisher.
    public var publishers: Int
    /// Players attached to a stream.
    public var players: Int
    /// Bytes read from all peers.
    public var bytesReceived: Int
    /// Bytes queued to all peers.
    public var bytesSent: Int
    /// Times a player fell behind and skipped to the next keyframe.
    public var playerSkips: Int
}

/// The loop thread writes, anyone reads: each field is an atomic.
final class ServerStatisticsCounter: Sendable {
    private let values = Mutex(ServerStatistics(connections: 0, publishers: 0, players: 0, bytesReceived: 0,
                                                bytesSent: 0, playerSkips: 0))

    var snapshot: ServerStatistics { values.withLock { $0 } }

    var connections: Int {
        get { values.withLock { $0.connections } }
        set { values.withLock { $0.connections = newValue } }
    }
    var publishers: Int {
        get { values.withLock { $0.publishers } }
        set { values.withLock { $0.publishers = newValue } }
    }
    var players: Int {
        get { values.withLock { $0.players } }
        set { values.withLock { $0.players = newValue } }
    }
    var bytesReceived: Int {
        get { values.withLock { $0.bytesReceived } }
        set { values.withLock { $0.bytesReceived = newValue } }
    }
    var bytesSent: Int {
        get { values.withLock { $0.bytesSent } }
        set { values.withLock { $0.bytesSent = newValue } }
    }
    var playerSkips: Int {
        get { values.withLock { $0.playerSkips } }
        set { values.withLock { $0.playerSkips = newValue } }
    }
}
