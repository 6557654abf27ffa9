import AMF
import FLV
import RTMP
import StreamCore
import Transport

/// Publishes a live stream to an RTMP or RTMPS ingest: `connect(to:)` → `publish(streamKey:)` → `send(_:)` →
/// `close()`.
///
/// The driver of ``PublisherSession``: it moves bytes between the state machine and an ``AsyncConnection`` and
/// owns the timeouts. Sends never block: bytes are queued and ``queuedBytes`` tells the caller how far behind
/// the network is, so the broadcast layer can drop by policy instead of growing memory.
public actor RTMPClient {
    /// How the client connects.
    public struct Options: Sendable {
        /// An extra CA certificate file (PEM) to trust for RTMPS, besides the system store.
        public var caFile: String?
        /// Bound on DNS + TCP connect + TLS handshake.
        public var connectTimeout: Duration
        /// Bound on each server answer during the RTMP handshake, connect and publish, and on a send queue from
        /// which not one byte leaves while ``RTMPClient/waitForDrain(below:)`` waits (a stalled network).
        public var responseTimeout: Duration
        /// The most bytes that may wait in the send queue; past it `send` throws.
        public var writeBufferLimit: Int
        /// The outgoing chunk size announced first (RTMP §5.4.1).
        public var chunkSize: UInt32
        /// The kernel's send buffer for the socket (SO_SNDBUF), nil for Linux's auto-tuning (megabytes on a fast
        /// link, and as many seconds of delay before a slow network shows in ``RTMPClient/queuedBytes``).
        public var socketSendBufferSize: Int?

        /// Creates options with defaults a broadcaster would pick.
        public init(caFile: String? = nil, connectTimeout: Duration = .seconds(10),
                    responseTimeout: Duration = .seconds(10), writeBufferLimit: Int = 8 << 20,
                    chunkSize: UInt32 = 4096, socketSendBufferSize: Int? = nil) {
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.responseTimeout = responseTimeout
            self.writeBufferLimit = writeBufferLimit
            self.chunkSize = chunkSize
            self.socketSendBufferSize = socketSendBufferSize
        }
    }

    /// Where the client is in its life.
    public enum State: Sendable, Equatable {
        case idle, connected, publishing, closed
        case failed(PublishError)
    }

    /// The options in force.
    public let options: Options
    /// Where the client is in its life.
    public private(set) var state: State = .idle

    private let loop: EventLoop
    private var connection: AsyncConnection?
    private var url: IngestURL?
    private var session: PublisherSession?
    private var streamKey = ""
    private var readTask: Task<Void, Never>?
    /// Bytes handed to the connection, and whether a wait for the queue to drain found the network stalled.
    private let written = WriteCounter()
    private let stalled = TimeoutFlag()

    /// Creates a client.
    /// - Parameters:
    ///   - options: timeouts, extra CA, buffer limit.
    ///   - loop: the event loop for the socket; by default the process-wide client loop.
    public init(options: Options = Options(), loop: EventLoop? = nil) throws(PublishError) {
        self.options = options
        if let loop {
            self.loop = loop
        } else {
            do {
                self.loop = try ClientEventLoop.shared()
            } catch {
                throw PublishError(.connectionLost, "cannot start the network event loop: \(error)")
            }
        }
    }

    /// Opens the TCP (rtmp://) or TLS (rtmps://) connection to the ingest.
    /// - Throws: ``PublishError`` naming the host: refused, DNS, TLS (certificate, host name), timeout.
    public func connect(to url: IngestURL) async throws(PublishError) {
        guard case .idle = state else { throw PublishError(.invalidState, "connect() called twice") }
        let tls = url.usesTLS ? TLSClientConfiguration(serverName: url.host, caFile: options.caFile) : nil
        do {
            connection = try await AsyncConnection.connect(
                host: url.host, port: url.port, tls: tls, timeout: options.connectTimeout,
                writeBufferLimit: options.writeBufferLimit, sendBufferSize: options.socketSendBufferSize,
                loop: loop)
        } catch {
            throw fail(PublishError(error, secrets: []))
        }
        self.url = url
        state = .connected
    }

    /// Runs the RTMP handshake, `connect`, `createStream` and `publish(streamKey, "live")`, and returns once
    /// the ingest answered `NetStream.Publish.Start`.
    /// - Parameter streamKey: the publish name the ingest gave you; it never appears in errors or logs.
    /// - Throws: ``PublishError``: `.publishRejected` with the server's status (e.g. a wrong key), `.timeout`,
    ///   `.connectionLost`, `.protocolError`.
    public func publish(streamKey: String) async throws(PublishError) {
        guard case .connected = state, let connection, let url else {
            throw PublishError(.invalidState, "publish() needs a connection: call connect(to:) first")
        }
        self.streamKey = streamKey
        var session = PublisherSession(configuration: .init(
            app: url.app, tcUrl: url.tcUrl, streamKey: streamKey, chunkSize: options.chunkSize))
        var random = [UInt8](repeating: 0, count: 1528)
        var generator = SystemRandomNumberGenerator()
        for index in random.indices { random[index] = generator.next() }
        var published = try run(session.start(random: random), on: connection)
        while !published {
            let bytes = try await readWithTimeout(connection, what: "the ingest's answer to publish")
            guard let bytes else {
                // The machine knows the phase, and so the right hint (not an RTMP server, wrong app, wrong key).
                let phase = session.connectionClosed().lazy.compactMap { action -> String? in
                    if case .failed(let error) = action { error.description } else { nil }
                }.first ?? "RTMP session closed"
                throw fail(PublishError(.connectionLost, "\(url.host) closed the connection before accepting the "
                                            + "publish (\(phase))", secrets: [streamKey]))
            }
            published = try run(session.bytesReceived(bytes), on: connection)
        }
        self.session = session
        state = .publishing
        readTask = Task { [weak self] in await self?.readUntilClosed() }
    }

    /// Sends `@setDataFrame onMetaData` with the stream's properties.
    public func sendMetadata(_ metadata: FLVMetadata) throws(PublishError) {
        guard case .publishing = state, var session, let connection else { throw notPublishing() }
        let actions = session.sendMetadata(metadata.properties)
        self.session = session
        _ = try run(actions, on: connection)
    }

    /// Queues one FLV tag (AVC/AAC sequence header, frame, or onMetaData script tag) for sending.
    /// - Throws: ``PublishError`` when the connection failed, or `.timeout` when the send queue is full (the
    ///   network has stalled for longer than the queue covers).
    public func send(_ tag: FLVTag) throws(PublishError) {
        guard case .publishing = state, var session, let connection else { throw notPublishing() }
        let actions: [PublisherSession.Action]
        switch tag.type {
        case .audio: actions = session.sendMedia(.audio, timestamp: tag.timestamp, body: tag.body)
        case .video: actions = session.sendMedia(.video, timestamp: tag.timestamp, body: tag.body)
        case .scriptData:
            guard let metadata = try? FLVMetadata(parsing: tag.body) else { return }  // only onMetaData is relayed
            actions = session.sendMetadata(metadata.properties)
        }
        self.session = session
        _ = try run(actions, on: connection)
    }

    /// Bytes queued for the network and not yet handed to the kernel.
    public var queuedBytes: Int { connection?.queuedBytes ?? 0 }

    /// Bytes of this connection the ingest has acknowledged (TCP), wire bytes: what really crossed the network.
    /// Nil before connecting, after closing, or where the kernel does not say.
    public func bytesAcknowledged() async -> Int? {
        await connection?.bytesAcknowledged()
    }

    /// Waits until the send queue holds fewer than `threshold` bytes.
    /// - Throws: ``PublishError``: `.timeout` when not one byte left the queue for ``Options/responseTimeout``
    ///   (the ingest stopped reading; the connection is then closed), `.connectionLost` when it dropped.
    public func waitForDrain(below threshold: Int) async throws(PublishError) {
        guard let connection else { throw notPublishing() }
        let watchdog = SendStallWatchdog(connection: connection, written: written, stalled: stalled,
                                         timeout: options.responseTimeout, loop: loop)
        watchdog.start()
        defer { watchdog.cancel() }
        do {
            try await connection.waitForDrain(below: threshold)
        } catch {
            if stalled.hasFired { throw fail(stallError(connection)) }
            throw fail(PublishError(.connectionLost, "the connection to the ingest was lost: \(error)"))
        }
    }

    /// Unpublishes (`FCUnpublish`, `deleteStream`), flushes what is queued (bounded) and closes.
    public func close(flushTimeout: Duration = .seconds(2)) async {
        if var session, let connection, case .publishing = state {
            for action in session.stop() {
                if case .write(let bytes) = action { try? connection.write(bytes) }
            }
            self.session = session
        }
        if case .failed = state {} else { state = .closed }
        readTask?.cancel()
        await connection?.close(flushTimeout: flushTimeout)
        readTask = nil
        connection = nil
    }

    // MARK: - Driver

    /// Runs the machine's actions; returns whether the publish was accepted.
    private func run(_ actions: [PublisherSession.Action], on connection: AsyncConnection) throws(PublishError) -> Bool {
        var published = false
        for action in actions {
            switch action {
            case .write(let bytes):
                do {
                    try connection.write(bytes)
                    written.add(bytes.count)
                } catch {
                    let reason = error.code == .bufferLimitExceeded
                        ? PublishError(.timeout, "the network is not taking data: \(connection.queuedBytes) bytes "
                                           + "are waiting to be sent to \(connection.endpoint)")
                        : PublishError(error, secrets: [streamKey])
                    throw fail(reason)
                }
            case .published:
                published = true
            case .failed(let error):
                throw fail(PublishError(error, secrets: [streamKey]))
            case .closed:
                break
            }
        }
        return published
    }

    private func readWithTimeout(_ connection: AsyncConnection, what: String) async throws(PublishError) -> [UInt8]? {
        let timer = TimeoutFlag()
        let scheduled = loop.schedule(after: options.responseTimeout) {
            timer.fire()
            Task { await connection.close(flushTimeout: .zero) }
        }
        defer { scheduled.cancel() }
        do throws(TransportError) {
            let bytes = try await connection.read()
            if timer.hasFired { throw TransportError(.timeout, "") }
            return bytes
        } catch {
            if timer.hasFired {
                throw fail(PublishError(.timeout, "\(connection.endpoint) did not send \(what) within "
                                            + "\(options.responseTimeout)"))
            }
            throw fail(PublishError(error, secrets: [streamKey]))
        }
    }

    /// While publishing: answers pings, sends acknowledgements, and notices a server that ends the stream.
    private func readUntilClosed() async {
        while !Task.isCancelled, case .publishing = state, let connection {
            let bytes: [UInt8]?
            do {
                bytes = try await connection.read()
            } catch {
                _ = fail(stalled.hasFired ? stallError(connection) : PublishError(error, secrets: [streamKey]))
                return
            }
            guard case .publishing = state else { return }
            guard let bytes else {
                _ = fail(stalled.hasFired ? stallError(connection)
                            : PublishError(.connectionLost, "the ingest closed the connection"))
                return
            }
            guard var session else { return }
            let actions = session.bytesReceived(bytes)
            self.session = session
            do {
                _ = try run(actions, on: connection)
            } catch {
                return
            }
        }
    }

    private func stallError(_ connection: AsyncConnection) -> PublishError {
        PublishError(.timeout, "the network stalled: \(connection.endpoint) took no data for "
                         + "\(options.responseTimeout); the connection is closed, reconnect to go on")
    }

    private func notPublishing() -> PublishError {
        if case .failed(let error) = state { return error }
        return PublishError(.invalidState, "not publishing: call connect(to:) and publish(streamKey:) first")
    }

    private func fail(_ error: PublishError) -> PublishError {
        if case .failed(let first) = state { return first }
        state = .failed(error)
        return error
    }
}
