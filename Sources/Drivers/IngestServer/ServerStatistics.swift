import Locking
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

/// The loop thread writes, anyone reads a snapshot: the counts of peers under one lock, the byte counters (bumped on
/// every read and write) as atomics, so that counting bytes takes no lock.
final class ServerStatisticsCounter: Sendable {
    private let values = Locked(ServerStatistics(connections: 0, publishers: 0, players: 0, bytesReceived: 0,
                                                bytesSent: 0, playerSkips: 0))
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)

    var snapshot: ServerStatistics {
        var snapshot = values.withLock { $0 }
        snapshot.bytesReceived = received.load(ordering: .relaxed)
        snapshot.bytesSent = sent.load(ordering: .relaxed)
        return snapshot
    }

    /// Counts bytes read from a peer.
    func addReceived(_ count: Int) {
        received.wrappingAdd(count, ordering: .relaxed)
    }

    /// Counts bytes queued to a peer.
    func addSent(_ count: Int) {
        sent.wrappingAdd(count, ordering: .relaxed)
    }

    /// Changes the counters under one lock.
    func update(_ change: (inout ServerStatistics) -> Void) {
        values.withLock { change(&$0) }
    }
}
