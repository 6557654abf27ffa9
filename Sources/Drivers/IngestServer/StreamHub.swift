#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import RTMP
import Transport

/// Every live stream of one server, and the decisions about them. A loop-thread object.
final class StreamHub {
    /// The most media bytes kept since the last keyframe for late joiners: the chunk bytes shared with joiners (or a
    /// message's body, while no player has received it). A 2 s GOP at 20 Mbps is 5 MB.
    static let groupOfPicturesLimit = 16 << 20

    let configuration: RTMPServer.Configuration
    let sessionConfiguration: ServerSession.Configuration
    let emit: @Sendable (ServerEvent) -> Void
    let statistics: ServerStatisticsCounter
    private var streams: [LiveStream.Key: LiveStream] = [:]
    private var connections: [ObjectIdentifier: ServerConnection] = [:]
    /// Publishes the gate admitted: allowed and not started yet, then publishing.
    private var gateAllowed: [LiveStream.Key: UInt64] = [:]
    private var gatePublishing: [LiveStream.Key: UInt64] = [:]
    /// Bytes all connections hold in unfinished incoming messages (each reports its changes).
    private var inboundBuffered = 0
    private var playerCount = 0
    private let memoryTrim = MemoryTrim()
    /// All connections' queued bytes when last counted, and the bytes queued since: their sum bounds the queued
    /// bytes now (queues only shrink otherwise), so the count over every connection is skipped while it is within
    /// the budget.
    private var queuedAtLastCount = 0
    private var writtenSinceLastCount = 0

    init(configuration: RTMPServer.Configuration, statistics: ServerStatisticsCounter) {
        self.configuration = configuration
        self.emit = configuration.onEvent
        self.statistics = statistics
        var session = ServerSession.Configuration()
        session.limits.maximumMessageLength = configuration.maximumMessageSize
        session.limitsBeforePublish.maximumMessageLength = min(session.limitsBeforePublish.maximumMessageLength,
                                                               configuration.maximumMessageSize)
        sessionConfiguration = session
    }

    /// A connection's unfinished incoming messages went from `old` to `new` bytes.
    /// - Returns: why it must be closed, when all connections together hold more than the budget and this one
    ///   holds more than its even share of it; nil otherwise.
    func inboundBufferChanged(from old: Int, to new: Int) -> String? {
        inboundBuffered += new - old
        let budget = configuration.bufferBudget
        guard inboundBuffered > budget else { return nil }
        let share = budget / max(1, connections.count)
        guard new > share else { return nil }
        return "the server's buffer budget (\(budget >> 20) MiB of unfinished messages for all connections) is "
            + "used up and this peer holds \(new) bytes, more than its share of \(share): closing it"
    }

    /// A connection queued `count` bytes.
    func queued(_ count: Int) {
        writtenSinceLastCount += count
    }

    /// Whether the connections' queued bytes may be past the budget (the bound of ``queuedAtLastCount`` is).
    private func queuedBytesMayExceedBudget() -> Bool {
        queuedAtLastCount + writtenSinceLastCount > configuration.bufferBudget
    }

    func accept(_ connection: Connection) {
        connection.idleTimeout = configuration.idleTimeout
        let handler = ServerConnection(connection: connection, hub: self,
                                       handshakeTimeout: configuration.handshakeTimeout)
        connection.handler = handler
        connections[ObjectIdentifier(handler)] = handler
        statistics.update { $0.connections = connections.count }
    }

    func connectionClosed(_ connection: ServerConnection, loop: EventLoop) {
        connections[ObjectIdentifier(connection)] = nil
        statistics.update { $0.connections = connections.count }
        memoryTrim.connectionClosed(on: loop)
    }

    func authorizePublish(app: String, name: String, peer: String) -> (allowed: Bool, statusCode: String) {
        let tag = StreamKeyTag.tag(name)
        // An empty key is no key: every such publish would share one address anyone can guess.
        guard !name.isEmpty else {
            emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: "an empty stream key"))
            return (false, "NetStream.Publish.BadName")
        }
        guard configuration.applications.isEmpty || configuration.applications.contains(app) else {
            emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: "unknown application"))
            return (false, "NetStream.Publish.BadName")
        }
        switch configuration.publishGate?.authorize(app, name) ?? .pass {
        case .pass:
            break
        case .allow(let id):
            if streams[LiveStream.Key(app: app, name: name)]?.isLive == true {
                emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: "already publishing"))
                return (false, "NetStream.Publish.BadName")
            }
            gateAllowed[LiveStream.Key(app: app, name: name)] = id
            return (true, "")
        case .refuse(let reason):
            emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: reason))
            return (false, "NetStream.Publish.Unauthorized")
        }
        if let keys = configuration.allowedKeys, !keys.allows(name) {
            // The same answer for every refused key: the server does not tell which keys exist.
            emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: "stream key not allowed"))
            return (false, "NetStream.Publish.Unauthorized")
        }
        if streams[LiveStream.Key(app: app, name: name)]?.isLive == true {
            emit(.publishRefused(app: app, keyTag: tag, peer: peer, reason: "already publishing"))
            return (false, "NetStream.Publish.BadName")
        }
        return (true, "")
    }

    func startPublishing(app: String, name: String, connection: ServerConnection) -> LiveStream {
        let stream = stream(app: app, name: name)
        stream.attachPublisher(connection)
        if let id = gateAllowed.removeValue(forKey: stream.key) {
            gatePublishing[stream.key] = id
            configuration.publishGate?.started(id)
        }
        statistics.update { $0.publishers += 1 }
        emit(.publishStarted(app: app, keyTag: stream.keyTag, peer: connection.peer))
        configuration.onMedia?(.publishStarted(app: app, keyTag: stream.mediaTag))
        if let directory = configuration.recordDirectory {
            stream.recording = StreamRecording(directory: directory, format: configuration.recordFormat, app: app,
                                               keyTag: stream.keyTag, emit: emit)
        }
        return stream
    }

    func stopPublishing(_ stream: LiveStream, connection: ServerConnection) {
        guard stream.publisher === connection else { return }
        stream.detachPublisher()
        if let id = gatePublishing.removeValue(forKey: stream.key) { configuration.publishGate?.stopped(id) }
        statistics.update { $0.publishers -= 1 }
        emit(.publishStopped(app: stream.key.app, keyTag: stream.keyTag, peer: connection.peer))
        configuration.onMedia?(.publishStopped(app: stream.key.app, keyTag: stream.mediaTag))
        stream.recording?.finish()
        stream.recording = nil
        if stream.isEmpty { streams[stream.key] = nil }
    }

    func startPlaying(app: String, name: String, connection: ServerConnection, streamID: UInt32) -> LiveStream {
        let stream = stream(app: app, name: name)
        stream.addPlayer(connection, streamID: streamID)
        playerCount += 1
        statistics.update { $0.players += 1 }
        emit(.playStarted(app: app, keyTag: stream.keyTag, peer: connection.peer))
        return stream
    }

    func stopPlaying(_ stream: LiveStream, connection: ServerConnection) {
        guard stream.players[ObjectIdentifier(connection)] != nil else { return }
        stream.removePlayer(connection)
        playerCount -= 1
        statistics.update { $0.players -= 1 }
        emit(.playStopped(app: stream.key.app, keyTag: stream.keyTag, peer: connection.peer))
        if stream.isEmpty { streams[stream.key] = nil }
    }

    func relay(_ message: MediaMessage, in stream: LiveStream) {
        configuration.onMedia?(.tag(app: stream.key.app, keyTag: stream.mediaTag, message.flvTag))
        var budgetShare: Int?
        if !stream.players.isEmpty && queuedBytesMayExceedBudget() {
            // Every player's queue, against the server's budget: past it, players holding more than an even share
            // skip to the next keyframe, so slow players shed frames before anything else grows.
            let queued = connections.values.reduce(0) { $0 + $1.queuedBytes }
            queuedAtLastCount = queued
            writtenSinceLastCount = 0
            if queued > configuration.bufferBudget {
                budgetShare = configuration.bufferBudget / max(1, playerCount)
            }
        }
        stream.publishMedia(message, playerQueueLimit: configuration.playerQueueLimit,
                            budgetShare: budgetShare) { connection, queued in
            statistics.update { $0.playerSkips += 1 }
            emit(.playerBehind(app: stream.key.app, keyTag: stream.keyTag, peer: connection.peer,
                               queuedBytes: queued))
        }
    }

    /// Closes the connections of the publishers the gate admitted with these ids.
    func disconnectPublishers(admittedAs ids: Set<UInt64>) {
        for (key, id) in gatePublishing where ids.contains(id) {
            streams[key]?.publisher?.close()
        }
    }

    /// Closes every connection; publishers' recordings are finished by their tear-down.
    func closeAll() {
        for connection in Array(connections.values) {
            connection.close()
        }
    }

    private func stream(app: String, name: String) -> LiveStream {
        let key = LiveStream.Key(app: app, name: name)
        if let existing = streams[key] { return existing }
        let made = LiveStream(key: key, mediaTagKey: configuration.mediaTagKey)
        streams[key] = made
        return made
    }
}
