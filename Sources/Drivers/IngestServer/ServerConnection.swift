import AMF
import RTMP
import Transport

/// One accepted connection: its ``ServerSession`` machine, driven by the transport on the loop thread.
final class ServerConnection: ConnectionHandler {
    private let connection: Connection
    private unowned let hub: StreamHub
    private var session: ServerSession
    private var app = ""
    private var published: (stream: LiveStream, streamID: UInt32)?
    private var playing: [UInt32: LiveStream] = [:]
    private var pendingPublish: (app: String, name: String)?
    private var handshakeTimer: Scheduled?
    /// Bytes of unfinished incoming messages last reported to the hub's budget.
    private var inboundHeld = 0
    private var isTornDown = false
    /// The publisher's media of one read, relayed before the read's actions (kept between reads for its capacity).
    private var media: [MediaMessage] = []
    private(set) var bytesSent = 0
    let peer: String

    init(connection: Connection, hub: StreamHub, handshakeTimeout: Duration) {
        self.connection = connection
        self.hub = hub
        self.peer = connection.remoteAddress ?? connection.endpoint
        session = ServerSession(configuration: hub.sessionConfiguration, random: HandshakeRandom.bytes())
        // A peer that connects and never completes the RTMP handshake and connect is dropped.
        // It reaches this handler through the connection, which lets go of it when it closes: a weak reference to
        // self would give it a side table, and its retains and releases (one per relayed message and player) the
        // runtime's slow path.
        handshakeTimer = connection.loop.scheduleOnLoop(after: handshakeTimeout) { [connection] in
            (connection.handler as? ServerConnection)?.fail(
                "no RTMP connect within \(handshakeTimeout): dropping the idle connection")
        }
    }

    var queuedBytes: Int { connection.queuedBytes }

    // MARK: ConnectionHandler

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        bytes.withUnsafeBytes { connectionDidRead(connection, buffer: $0) }
    }

    func connectionDidRead(_ connection: Connection, buffer: UnsafeRawBufferPointer) {
        hub.statistics.addReceived(buffer.count)
        let actions = session.bytesReceived(buffer, media: &media)
        if !media.isEmpty {
            relay(media)
            media.removeAll(keepingCapacity: true)
        }
        run(actions)
        guard !isTornDown else { return }
        let held = session.bufferedByteCount
        // ffmpeg writes a message's header and body apart: the body follows our read of the header at once.
        connection.awaitsRestOfMessage = held > 0
        let old = inboundHeld
        inboundHeld = held
        if let reason = hub.inboundBufferChanged(from: old, to: held) { fail(reason) }
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        handshakeTimer?.cancel()
        if let error, error.code != .peerClosed {
            hub.emit(.connectionFailed(peer: peer, reason: error.description))
        }
        tearDown()
    }

    // MARK: Called by LiveStream

    func sendMedia(_ message: MediaMessage, streamID: UInt32) {
        var copy = message
        copy.streamID = streamID
        run(session.sendMedia(copy))
    }

    /// Sends a relayed message as bytes shared with the stream's other players.
    func sendMedia(sharing chunks: inout SharedMediaChunks, streamID: UInt32) {
        guard let (pending, shared) = session.mediaWrites(sharing: &chunks, streamID: streamID) else { return }
        if !pending.isEmpty {
            guard write(pending) else { return }
        }
        write(shared)
    }

    func sendMetadata(_ metadata: AMF0Object, streamID: UInt32) {
        run(session.sendMetadata(metadata, streamID: streamID))
    }

    func endPlay(streamID: UInt32) {
        run(session.endPlay(streamID: streamID))
    }

    /// Closes the connection at once (server shutdown).
    func close() {
        connection.close()
    }

    // MARK: Driver

    /// Relays the publisher's media of one read.
    private func relay(_ media: [MediaMessage]) {
        for message in media { relay(message) }
    }

    /// Relays a message of the stream this connection publishes. A player's failure may tear this connection down
    /// mid-read: the publish is looked up for each message.
    private func relay(_ message: MediaMessage) {
        if let current = published, message.streamID == current.streamID { hub.relay(message, in: current.stream) }
    }

    /// Queues bytes for the peer.
    /// - Returns: false when they could not be queued (the connection is then failing).
    @discardableResult
    private func write(_ bytes: [UInt8]) -> Bool {
        do {
            try connection.write(bytes)
        } catch {
            fail("cannot queue data for \(peer): \(error)")
            return false
        }
        bytesSent += bytes.count
        hub.statistics.addSent(bytes.count)
        hub.queued(bytes.count)
        return true
    }

    private func run(_ actions: [ServerSession.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes):
                guard write(bytes) else { return }
            case .connected(let app):
                self.app = app
                handshakeTimer?.cancel()
                handshakeTimer = nil
            case .authorizePublish(let app, let name):
                pendingPublish = (app, name)
                let decision = hub.authorizePublish(app: app, name: name, peer: peer)
                run(session.authorization(allowed: decision.allowed, rejectionCode: decision.statusCode))
            case .publishStarted(let streamID):
                guard let (app, name) = pendingPublish else { continue }
                pendingPublish = nil
                published = (hub.startPublishing(app: app, name: name, connection: self), streamID)
            case .publishStopped(let streamID):
                if let current = published, current.streamID == streamID {
                    hub.stopPublishing(current.stream, connection: self)
                    published = nil
                }
            case .play(let app, let name, let streamID):
                // A second play on the same message stream replaces the first: the stream played before forgets
                // this player (it would otherwise keep an entry for a connection that goes away).
                if let previous = playing.removeValue(forKey: streamID) {
                    hub.stopPlaying(previous, connection: self)
                }
                playing[streamID] = hub.startPlaying(app: app, name: name, connection: self, streamID: streamID)
            case .playStopped(let streamID):
                if let stream = playing.removeValue(forKey: streamID) {
                    hub.stopPlaying(stream, connection: self)
                }
            case .media(let message):
                relay(message)
            case .metadata(let streamID, let object):
                if let current = published, streamID == current.streamID {
                    current.stream.publishMetadata(object)
                }
            case .close:
                connection.closeAfterFlush(timeout: .seconds(2))
                return
            case .failed(let error):
                fail(error.description)
                return
            }
        }
    }

    private func fail(_ reason: String) {
        hub.emit(.connectionFailed(peer: peer, reason: reason))
        connection.close()
    }

    private func tearDown() {
        isTornDown = true
        _ = hub.inboundBufferChanged(from: inboundHeld, to: 0)
        inboundHeld = 0
        if let current = published {
            hub.stopPublishing(current.stream, connection: self)
            published = nil
        }
        for stream in playing.values {
            hub.stopPlaying(stream, connection: self)
        }
        playing.removeAll()
        hub.connectionClosed(self, loop: connection.loop)
    }
}
