import FLV
import RTMP
import StreamCore

/// Publishes a live stream to an RTMP or RTMPS ingest: `connect(to:)` → `publish(streamKey:)` → `send(_:)` →
/// `close()`.
///
/// The driver of ``PublisherSession`` over any ``ByteStream``: it moves bytes between the state machine and the
/// stream and owns the timeouts. The platform supplies the stream through a ``ByteStreamConnector`` (Transport's
/// TCP/TLS on Linux, `NWConnection` on Apple platforms), so every platform runs this same code. Sends never block:
/// bytes are queued and ``queuedBytes`` tells the caller how far behind the network is, so the broadcast layer can
/// drop by policy instead of growing memory.
public actor RTMPClient {
    /// How the client connects.
    public struct Options: Sendable {
        /// An extra CA certificate file (PEM) to trust for RTMPS, besides the system store (used by the Linux
        /// connector; Apple's uses the system trust).
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
        /// link, and as many seconds of delay before a slow network shows in ``RTMPClient/queuedBytes``). Used by
        /// the Linux connector.
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

    private let connector: any ByteStreamConnector
    private var stream: (any ByteStream)?
    private var url: IngestURL?
    private var session: PublisherSession?
    private var streamKey = ""
    private var readTask: Task<Void, Never>?
    /// Bytes handed to the stream, and whether a wait for the queue to drain found the network stalled.
    private let written = WriteCounter()
    private let stalled = TimeoutFlag()

    /// Creates a client that opens its stream with `connector`.
    /// - Parameters:
    ///   - options: timeouts, buffer limit, chunk size.
    ///   - connector: the platform's TCP/TLS.
    public init(options: Options = Options(), connector: any ByteStreamConnector) {
        self.options = options
        self.connector = connector
    }

    /// Opens the TCP (rtmp://) or TLS (rtmps://) connection to the ingest.
    /// - Throws: ``PublishError`` naming the host: refused, DNS, TLS (certificate, host name), no network, timeout.
    public func connect(to url: IngestURL) async throws(PublishError) {
        guard case .idle = state else { throw PublishError(.invalidState, "connect() called twice") }
        do {
            stream = try await connector.connect(to: url, timeout: options.connectTimeout)
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
        guard case .connected = state, let stream, let url else {
            throw PublishError(.invalidState, "publish() needs a connection: call connect(to:) first")
        }
        self.streamKey = streamKey
        session = PublisherSession(configuration: .init(
            app: url.app, tcUrl: url.tcUrl, streamKey: streamKey, chunkSize: options.chunkSize))
        var published = try run(session?.start(random: HandshakeRandom.bytes()) ?? [], on: stream)
        while !published {
            let bytes = try await readWithTimeout(stream, what: "the ingest's answer to publish")
            guard let bytes else {
                // The machine knows the phase, and so the right hint (not an RTMP server, wrong app, wrong key).
                let phase = (session?.connectionClosed() ?? []).lazy.compactMap { action -> String? in
                    if case .failed(let error) = action { error.description } else { nil }
                }.first ?? "RTMP session closed"
                throw fail(PublishError(.connectionLost, "\(url.host) closed the connection before accepting the "
                                            + "publish (\(phase))", secrets: [streamKey]))
            }
            published = try run(session?.bytesReceived(bytes) ?? [], on: stream)
        }
        state = .publishing
        readTask = Task { [weak self] in await self?.readUntilClosed() }
    }

    /// Sends `@setDataFrame onMetaData` with the stream's properties.
    /// - Throws: ``PublishError`` when the connection failed.
    public func sendMetadata(_ metadata: FLVMetadata) throws(PublishError) {
        let stream = try publishingStream()
        let actions = try encoding { (session: inout PublisherSession) throws(RTMPError) in
            try session.sendMetadata(metadata.properties)
        }
        _ = try run(actions, on: stream)
    }

    /// Queues one FLV tag (AVC/AAC sequence header, frame, or onMetaData script tag) for sending.
    /// - Throws: ``PublishError`` when the connection failed, `.timeout` when the send queue is full (the
    ///   network has stalled for longer than the queue covers), or `.messageTooLarge` for a tag over RTMP's
    ///   16 MiB message limit (that tag is not sent; the connection goes on).
    public func send(_ tag: FLVTag) throws(PublishError) {
        let kind: MediaMessage.Kind
        switch tag.type {
        case .audio: kind = .audio
        case .video: kind = .video
        case .scriptData:
            // Only onMetaData is relayed.
            if let metadata = try? FLVMetadata(parsing: tag.body) { try sendMetadata(metadata) }
            return
        }
        let stream = try publishingStream()
        let actions = try encoding { (session: inout PublisherSession) throws(RTMPError) in
            try session.sendMedia(kind, timestamp: tag.timestamp, body: tag.body)
        }
        _ = try run(actions, on: stream)
    }

    /// Bytes queued for the network and not yet handed to the kernel.
    public var queuedBytes: Int { stream?.queuedBytes ?? 0 }

    /// Bytes of this connection the ingest has acknowledged (TCP), wire bytes: what really crossed the network.
    /// Nil before connecting, after closing, or where the platform does not say.
    public func bytesAcknowledged() async -> Int? {
        await stream?.bytesAcknowledged()
    }

    /// Waits until the send queue holds fewer than `threshold` bytes.
    /// - Throws: ``PublishError``: `.timeout` when not one byte left the queue for ``Options/responseTimeout``
    ///   (the ingest stopped reading; the connection is then closed), `.connectionLost` when it dropped.
    public func waitForDrain(below threshold: Int) async throws(PublishError) {
        guard let stream else { throw notPublishing() }
        let watchdog = SendStallWatchdog(stream: stream, written: written, stalled: stalled,
                                         timeout: options.responseTimeout)
        defer { watchdog.cancel() }
        do {
            try await stream.waitForDrain(below: threshold)
        } catch {
            if stalled.hasFired { throw fail(stallError(stream)) }
            throw fail(PublishError(.connectionLost, "the connection to the ingest was lost: \(error)"))
        }
    }

    /// Unpublishes (`FCUnpublish`, `deleteStream`), flushes what is queued (bounded) and closes.
    public func close(flushTimeout: Duration = .seconds(2)) async {
        if let stream, case .publishing = state {
            for action in session?.stop() ?? [] {
                if case .write(let bytes) = action { try? stream.write(bytes) }
            }
        }
        if case .failed = state {} else { state = .closed }
        readTask?.cancel()
        await stream?.close(flushTimeout: flushTimeout)
        readTask = nil
        stream = nil
    }

    // MARK: - Driver

    private func publishingStream() throws(PublishError) -> any ByteStream {
        guard case .publishing = state, session != nil, let stream else { throw notPublishing() }
        return stream
    }

    /// Runs `body` on the session in place (no copy of its buffers per message); a message too large for RTMP
    /// becomes `.messageTooLarge`, which fails only that message.
    private func encoding(
        _ body: (inout PublisherSession) throws(RTMPError) -> [PublisherSession.Action]
    ) throws(PublishError) -> [PublisherSession.Action] {
        guard session != nil else { throw notPublishing() }
        do {
            return try body(&session!)
        } catch {
            throw PublishError(.messageTooLarge, error.description)
        }
    }

    /// Runs the machine's actions; returns whether the publish was accepted.
    private func run(_ actions: [PublisherSession.Action], on stream: any ByteStream) throws(PublishError) -> Bool {
        var published = false
        for action in actions {
            switch action {
            case .write(let bytes):
                do {
                    try stream.write(bytes)
                    written.add(bytes.count)
                } catch {
                    let reason = error.kind == .bufferFull
                        ? PublishError(.timeout, "the network is not taking data: \(stream.queuedBytes) bytes "
                                           + "are waiting to be sent to \(stream.endpoint)")
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

    private func readWithTimeout(_ stream: any ByteStream, what: String) async throws(PublishError) -> [UInt8]? {
        let timer = TimeoutFlag()
        let timeout = options.responseTimeout
        let deadline = Task {
            // Cancelled when the answer came first; otherwise closing the stream ends the pending read.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            timer.fire()
            await stream.close(flushTimeout: .zero)
        }
        defer { deadline.cancel() }
        do throws(LinkError) {
            let bytes = try await stream.read()
            if timer.hasFired { throw LinkError(.timedOut, "") }
            return bytes
        } catch {
            if timer.hasFired {
                throw fail(PublishError(.timeout, "\(stream.endpoint) did not send \(what) within \(timeout)"))
            }
            throw fail(PublishError(error, secrets: [streamKey]))
        }
    }

    /// While publishing: answers pings, sends acknowledgements, and notices a server that ends the stream.
    private func readUntilClosed() async {
        while !Task.isCancelled, case .publishing = state, let stream {
            let bytes: [UInt8]?
            do {
                bytes = try await stream.read()
            } catch {
                _ = fail(stalled.hasFired ? stallError(stream) : PublishError(error, secrets: [streamKey]))
                return
            }
            guard case .publishing = state else { return }
            guard let bytes else {
                _ = fail(stalled.hasFired ? stallError(stream)
                            : PublishError(.connectionLost, "the ingest closed the connection"))
                return
            }
            do {
                _ = try run(session?.bytesReceived(bytes) ?? [], on: stream)
            } catch {
                return
            }
        }
    }

    private func stallError(_ stream: any ByteStream) -> PublishError {
        PublishError(.timeout, "the network stalled: \(stream.endpoint) took no data for "
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
