#if os(Linux)
import Locking
import StreamCore
import Transport

/// Linux's ``ByteStreamConnector``: TCP and TLS (OpenSSL) connections of Transport's epoll loop.
public struct TCPConnector: ByteStreamConnector {
    /// An extra CA certificate file (PEM) to trust for RTMPS, besides the system store.
    public var caFile: String?
    /// The socket's kernel send buffer (SO_SNDBUF); nil for Linux's auto-tuning.
    public var sendBufferSize: Int?
    /// The most bytes a stream may have queued.
    public var writeBufferLimit: Int
    /// The loop that drives the sockets; nil for the process-wide client loop, started on first use.
    public let loop: EventLoop?

    /// Creates a connector.
    /// - Parameters:
    ///   - caFile: an extra CA file for RTMPS.
    ///   - sendBufferSize: SO_SNDBUF, nil for the kernel's auto-tuning.
    ///   - writeBufferLimit: the bound on each stream's queue.
    ///   - loop: the event loop; by default the process-wide client loop.
    public init(caFile: String? = nil, sendBufferSize: Int? = nil, writeBufferLimit: Int = 16 << 20,
                loop: EventLoop? = nil) {
        self.caFile = caFile
        self.sendBufferSize = sendBufferSize
        self.writeBufferLimit = writeBufferLimit
        self.loop = loop
    }

    /// The connector for a client's options: their CA file, send buffer and write buffer limit.
    public init(options: RTMPClient.Options, loop: EventLoop? = nil) {
        self.init(caFile: options.caFile, sendBufferSize: options.socketSendBufferSize,
                  writeBufferLimit: options.writeBufferLimit, loop: loop)
    }

    /// Connects with TCP, and TLS for `rtmps` (the certificate is verified against the system store and
    /// ``caFile``).
    public func connect(to url: IngestURL, timeout: Duration) async throws(LinkError) -> any ByteStream {
        let tls = url.usesTLS ? TLSClientConfiguration(serverName: url.host, caFile: caFile) : nil
        do throws(TransportError) {
            let loop = try resolvedLoop()
            return TCPByteStream(try await AsyncConnection.connect(
                host: url.host, port: url.port, tls: tls, timeout: timeout, writeBufferLimit: writeBufferLimit,
                sendBufferSize: sendBufferSize, loop: loop))
        } catch {
            throw LinkError(error)
        }
    }

    private func resolvedLoop() throws(TransportError) -> EventLoop {
        if let loop { return loop }
        return try EventLoop.sharedClient()
    }
}

extension RTMPClient {
    /// Creates a client on Linux's TCP/TLS, with the options' CA file and send buffer.
    /// - Parameters:
    ///   - options: timeouts, extra CA, buffer limit, socket send buffer.
    ///   - loop: the event loop for the socket; by default the process-wide client loop, started now.
    /// - Throws: ``PublishError`` when the client loop cannot start (no thread or epoll set).
    public init(options: Options = Options(), loop: EventLoop? = nil) throws(PublishError) {
        var running = loop
        do throws(TransportError) {
            if running == nil { running = try EventLoop.sharedClient() }
        } catch {
            throw PublishError(.connectionLost, "cannot start the network event loop: \(error)")
        }
        self.init(options: options, connector: TCPConnector(options: options, loop: running))
    }
}

/// An ``AsyncConnection`` as a ``ByteStream``.
struct TCPByteStream: ByteStream {
    let connection: AsyncConnection

    init(_ connection: AsyncConnection) {
        self.connection = connection
    }

    var endpoint: String { connection.endpoint }
    var queuedBytes: Int { connection.queuedBytes }

    func write(_ bytes: [UInt8]) throws(LinkError) {
        do {
            try connection.write(bytes)
        } catch {
            throw LinkError(error)
        }
    }

    func read() async throws(LinkError) -> [UInt8]? {
        do {
            return try await connection.read()
        } catch {
            throw LinkError(error)
        }
    }

    func waitForDrain(below threshold: Int) async throws(LinkError) {
        do {
            try await connection.waitForDrain(below: threshold)
        } catch {
            throw LinkError(error)
        }
    }

    func bytesAcknowledged() async -> Int? {
        await connection.bytesAcknowledged()
    }

    func close(flushTimeout: Duration) async {
        await connection.close(flushTimeout: flushTimeout)
    }
}

extension LinkError {
    /// The link error for a transport error (same message).
    init(_ error: TransportError) {
        let kind: Kind = switch error.code {
        case .connectionRefused: .refused
        case .dnsFailure: .dns
        case .tlsFailure: .tls
        case .timeout: .timedOut
        case .unreachable: .unreachable
        case .bufferLimitExceeded: .bufferFull
        case .peerClosed, .closed, .io, .listenFailed: .closed
        }
        self.init(kind, error.description)
    }
}
#endif
