import Transport
import WebSocket

/// One server WebSocket after the upgrade: its ``WebSocketMachine`` driven on the loop thread, the session's
/// bounded outbound queue, keep-alive pings and the closing handshake's timer.
final class ServerWebSocket: ConnectionHandler {
    private let connection: Connection
    // Strong: the core holds its connections only until they close, so the cycle ends there.
    private let core: ServerCore
    private let options: WebSocketOptions
    private let handlers: WebSocketHandlers
    private var machine: WebSocketMachine
    /// Set once started; released when the session ends (the session holds this object through its LoopBound).
    private var session: WebSocketSession?
    private var pingTimer: Scheduled?
    private var closeTimer: Scheduled?
    private var heardSinceTick = false
    private var pingOutstanding = false
    /// Set once the session was closed for reading too slowly: pongs the machine answered in the same batch are
    /// dropped, not queued past the bound.
    private var closedForSlowness = false

    init(connection: Connection, core: ServerCore, request: HTTPRequest, subprotocol: String?,
         options: WebSocketOptions, handlers: WebSocketHandlers) {
        self.connection = connection
        self.core = core
        self.options = options
        self.handlers = handlers
        machine = WebSocketMachine(role: .server, maximumMessageSize: options.maximumMessageSize)
        session = WebSocketSession(id: core.nextSessionID(), request: request, subprotocol: subprotocol,
                                   channel: LoopBound(self, loop: connection.loop))
    }

    /// Takes over the connection and feeds what arrived with the upgrade request.
    func start(leftover: [UInt8]) {
        guard let session else { return }
        // The session enforces its own bound (see send(_:)); the connection's only catches a runaway.
        connection.writeBufferLimit = options.outboundQueueLimit + max(options.maximumMessageSize, 16 << 20) + 256
        if let bytes = options.socketSendBufferSize { connection.limitSocketSendBuffer(to: bytes) }
        connection.handler = self
        core.webSocketOpened(self)
        armPing()
        handlers.onOpen(session)
        if !leftover.isEmpty && connection.isOpen { connectionDidRead(connection, bytes: leftover) }
        connection.resumeReading()
    }

    var peer: String { connection.remoteAddress ?? connection.endpoint }

    // MARK: ConnectionHandler

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        core.traffic.webSocketReceived += bytes.count
        heardSinceTick = true
        machine.append(bytes)
        // One batch at a time: an answer to a message goes out before what a later frame causes.
        while case let actions = machine.next(), !actions.isEmpty {
            run(actions)
        }
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        pingTimer?.cancel()
        closeTimer?.cancel()
        run(machine.connectionClosed())
        core.webSocketClosed(self)
    }

    // MARK: Session commands

    /// Queues an encoded frame (a message, or a pong the machine answered), or closes a reader too slow to take it.
    func send(_ bytes: [UInt8]) {
        guard machine.isOpen, connection.isOpen else { return }
        // The bound is on what already waits: one message of any size may go out when the client keeps up.
        guard queuedCost <= options.outboundQueueLimit else {
            core.emit(.slowWebSocketClosed(peer: peer, path: session?.request.path ?? "",
                                           queuedBytes: queuedCost))
            close(code: .policyViolation, reason: "the client reads too slowly: its outbound queue is full")
            closedForSlowness = true
            return
        }
        write(bytes)
    }

    /// What the queued frames hold in memory: their bytes, and each frame's own allocation. A client that sends
    /// pings and never reads queues a 2-byte pong per ping: counted by bytes alone, 150,000 of them were 300 KB
    /// under a 1 MiB bound while they held 25 MiB.
    private var queuedCost: Int {
        connection.queuedBytes + connection.queuedWrites * Self.costPerQueuedFrame
    }

    /// A queued frame's memory beside its bytes: the array's header and the allocator's overhead (~48 bytes), and
    /// its slot in the queue.
    static let costPerQueuedFrame = 64

    func close(code: WebSocketCloseCode, reason: String) {
        session?.markClosing()
        run(machine.close(code: code, reason: reason))
        closeTimer?.cancel()
        closeTimer = connection.loop.scheduleOnLoop(after: options.closeTimeout) { [weak self] in
            guard let self else { return }
            run(machine.closeTimedOut())
        }
    }

    /// Server shutdown: 1001.
    func goAway() {
        close(code: .goingAway, reason: "the server is shutting down")
    }

    // MARK: Machine

    private func write(_ bytes: [UInt8]) {
        core.traffic.webSocketSent += bytes.count
        do {
            try connection.write(bytes)
        } catch {
            connection.close()
        }
    }

    private func run(_ actions: [WebSocketMachine.Action]) {
        for action in actions {
            switch action {
            case .write(let bytes):
                if machine.isOpen {
                    // A pong: it counts against the session's bound like any frame.
                    send(bytes)
                } else if !closedForSlowness {
                    // A close frame (ours, or the answer to the peer's).
                    write(bytes)
                }
            case .message(let message):
                if let session { handlers.onMessage(session, message) }
            case .pong:
                pingOutstanding = false
            case .closeConnection(let waitForPeer):
                session?.markClosing()
                if waitForPeer {
                    linger(until: ContinuousClock.now + options.closeTimeout)
                } else {
                    connection.closeAfterFlush(timeout: options.closeTimeout)
                }
            case .closed(let close):
                // The close timer stays: after a failure it is the linger that ends the connection.
                pingTimer?.cancel()
                guard let session else { continue }
                self.session = nil
                session.markClosing()
                handlers.onClose(session, close)
            }
        }
    }

    // MARK: Failing

    /// After failing the connection: keep reading (the machine drops it) until the client has been quiet for a
    /// moment, or `deadline`, then close, so it reads our close frame instead of a reset.
    private func linger(until deadline: ContinuousClock.Instant) {
        heardSinceTick = false
        closeTimer?.cancel()
        closeTimer = connection.loop.scheduleOnLoop(after: Self.lingerQuietPeriod) { [weak self] in
            guard let self, connection.isOpen else { return }
            if heardSinceTick && ContinuousClock.now < deadline {
                linger(until: deadline)
            } else {
                connection.closeAfterFlush(timeout: options.closeTimeout)
            }
        }
    }

    /// A failed connection closes once the client has sent nothing for this long.
    static let lingerQuietPeriod = Duration.milliseconds(100)

    // MARK: Keep-alive

    private func armPing() {
        guard let interval = options.pingInterval else { return }
        pingTimer = connection.loop.scheduleOnLoop(after: interval) { [weak self] in self?.tick() }
    }

    private func tick() {
        guard machine.isOpen, connection.isOpen else { return }
        if heardSinceTick {
            heardSinceTick = false
            pingOutstanding = false
        } else if pingOutstanding {
            // Silent for two intervals, our ping unanswered: the peer is gone.
            connection.close()
            return
        } else if let ping = machine.ping() {
            pingOutstanding = true
            write(ping)
        }
        armPing()
    }
}
