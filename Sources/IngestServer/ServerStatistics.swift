import Locking

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

/// The loop thread writes, anyone reads a consistent snapshot.
final class ServerStatisticsCounter: Sendable {
    private let values = Locked(ServerStatistics(connections: 0, publishers: 0, players: 0, bytesReceived: 0,
                                                bytesSent: 0, playerSkips: 0))

    var snapshot: ServerStatistics { values.withLock { $0 } }

    /// Changes the counters under one lock.
    func update(_ change: (inout ServerStatistics) -> Void) {
        values.withLock { change(&$0) }
    }
}
