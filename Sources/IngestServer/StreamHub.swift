import Foundation
import RTMP
import Transport

/// Every live stream of one server, and the decisions about them. A loop-thread object.
final class StreamHub {
    /// The most media bytes kept since the last keyframe for late joiners (a 2 s GOP at 20 Mbps is 5 MB).
    static let groupOfPicturesLimit = 8 << 20

    let configuration: RTMPServer.Configuration
    let sessionConfiguration: ServerSession.Configuration
    let emit: @Sendable (ServerEvent) -> Void
    let statistics: ServerStatisticsCounter
    private var streams: [LiveStream.Key: LiveStream] = [:]
    private var connections: [ObjectIdentifier: ServerConnection] = [:]
    /// Publishes the gate admitted: allowed and not started yet, then publishing.
    private var gateAllowed: [LiveStream.Key: UInt64] = [:]
    private var gatePublishing: [LiveStream.Key: UInt64] = [:]

    init(configuration: RTMPServer.Configuration, statistics: ServerStatisticsCounter) {
        self.configuration = configuration
        self.emit = configuration.onEvent
        self.statistics = statistics
        var session = ServerSession.Configuration()
        session.limits.maximumMessageLength = configuration.maximumMessageSize
        sessionConfiguration = session
    }

    func accept(_ connection: Connection) {
        connection.idleTimeout = configuration.idleTimeout
        let handler = ServerConnection(connection: connection, hub: self,
                                       handshakeTimeout: configuration.handshakeTimeout)
        connection.handler = handler
        connections[ObjectIdentifier(handler)] = handler
        statistics.update { $0.connections = connections.count }
    }

    func connectionClosed(_ connection: ServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
        statistics.update { $0.connections = connections.count }
    }

    func authorizePublish(app: String, name: String, peer: String) -> (allowed: Bool, statusCode: String) {
        let tag = StreamKeyTag.tag(name)
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
        if let directory = configuration.recordDirectory {
            do {
                let recorder = try FLVRecorder(directory: directory, app: app, keyTag: stream.keyTag)
                stream.recorder = recorder
                emit(.recordingStarted(path: recorder.path))
            } catch {
                emit(.recordingFailed(path: directory, reason: error.description))
            }
        }
        return stream
    }

    func stopPublishing(_ stream: LiveStream, connection: ServerConnection) {
        guard stream.publisher === connection else { return }
        stream.detachPublisher()
        if let id = gatePublishing.removeValue(forKey: stream.key) { configuration.publishGate?.stopped(id) }
        statistics.update { $0.publishers -= 1 }
        emit(.publishStopped(app: stream.key.app, keyTag: stream.keyTag, peer: connection.peer))
        if let recorder = stream.recorder {
            recorder.close()
            if let failure = recorder.failure {
                emit(.recordingFailed(path: recorder.path, reason: failure))
            } else {
                emit(.recordingFinished(path: recorder.path, bytes: recorder.bytesWritten))
            }
            stream.recorder = nil
        }
        if stream.isEmpty { streams[stream.key] = nil }
    }

    func startPlaying(app: String, name: String, connection: ServerConnection, streamID: UInt32) -> LiveStream {
        let stream = stream(app: app, name: name)
        stream.addPlayer(connection, streamID: streamID)
        statistics.update { $0.players += 1 }
        emit(.playStarted(app: app, keyTag: stream.keyTag, peer: connection.peer))
        return stream
    }

    func stopPlaying(_ stream: LiveStream, connection: ServerConnection) {
        guard stream.players[ObjectIdentifier(connection)] != nil else { return }
        stream.removePlayer(connection)
        statistics.update { $0.players -= 1 }
        emit(.playStopped(app: stream.key.app, keyTag: stream.keyTag, peer: connection.peer))
        if stream.isEmpty { streams[stream.key] = nil }
    }

    func relay(_ message: MediaMessage, in stream: LiveStream) {
        stream.publishMedia(message, playerQueueLimit: configuration.playerQueueLimit) { connection, queued in
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
        let made = LiveStream(key: key)
        streams[key] = made
        return made
    }
}
