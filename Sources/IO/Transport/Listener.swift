import CEpoll
import Glibc

/// A listening TCP socket, optionally terminating TLS (e.g. RTMPS), that hands each accepted ``Connection`` to
/// `onAccept` on its loop thread. A loop-thread object, like ``Connection``.
public final class Listener: DescriptorSource {
    /// The loop that owns this listener and its connections.
    public let loop: EventLoop
    /// The port actually bound (useful after listening on port 0).
    public let localPort: Int
    /// The most connections from this listener open at once; further peers are accepted and closed at once.
    public let maxConnections: Int
    /// How long an accepted TLS connection may take to finish its handshake before it is closed.
    public var handshakeTimeout: Duration
    /// Connections from this listener that are not closed yet.
    public private(set) var connectionCount = 0
    /// Called on the loop thread with the peer's address each time a peer is accepted and closed at once because
    /// ``maxConnections`` are open (for a log line: the listener itself says nothing).
    public var onRefuse: ((_ peer: String) -> Void)?

    var fd: Int32
    var id: UInt64 = 0
    private let tlsContext: TLSContext?
    private let onAccept: (Connection) -> Void

    private init(fd: Int32, port: Int, loop: EventLoop, tls: TLSContext?, maxConnections: Int,
                 handshakeTimeout: Duration, onAccept: @escaping (Connection) -> Void) {
        self.fd = fd
        self.localPort = port
        self.loop = loop
        self.tlsContext = tls
        self.maxConnections = maxConnections
        self.handshakeTimeout = handshakeTimeout
        self.onAccept = onAccept
    }

    /// Binds and listens on `host:port` and starts accepting. Must be called on `loop`'s thread.
    ///
    /// `onAccept` runs on the loop thread for each new connection, before any of its events: set the
    /// connection's ``Connection/handler`` there. With `tls`, the handler's
    /// ``ConnectionHandler/connectionDidOpen(_:)`` follows a successful handshake; a failed or slow handshake
    /// ends in ``ConnectionHandler/connectionDidClose(_:error:)``.
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address to bind, such as "127.0.0.1", "0.0.0.0" or "::".
    ///   - port: the port, or 0 for any free port (read it back from ``localPort``).
    ///   - tls: certificate and key to terminate TLS with; nil for plain TCP.
    ///   - maxConnections: the most connections open at once.
    ///   - handshakeTimeout: bound on each accepted connection's TLS handshake.
    /// - Throws: ``TransportError`` `.listenFailed` (address in use, bad address) or `.tlsFailure` (unreadable
    ///   certificate or key).
    public static func listen(host: String = "127.0.0.1", port: Int, tls: TLSServerConfiguration? = nil,
                              maxConnections: Int, handshakeTimeout: Duration = .seconds(10), on loop: EventLoop,
                              onAccept: @escaping (Connection) -> Void) throws(TransportError) -> Listener {
        loop.assertInEventLoop()
        let endpoint = endpointName(host: host, port: port)
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw TransportError(.listenFailed, "cannot listen on \(endpoint): the host must be a numeric IP address "
                                     + "such as 127.0.0.1, 0.0.0.0 or ::")
        }
        let context = try tls.map { configuration throws(TransportError) in try TLSContext.server(configuration) }
        let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(address.family, socketType, 0)
        guard fd >= 0 else { throw listenError(errno, "creating a socket for", endpoint) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw listenError(error, "binding", endpoint)
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw listenError(error, "listening on", endpoint)
        }
        let boundPort = SocketAddress.local(of: fd)?.port ?? port
        let listener = Listener(fd: fd, port: boundPort, loop: loop, tls: context, maxConnections: maxConnections,
                                handshakeTimeout: handshakeTimeout, onAccept: onAccept)
        try listener.watchInput()
        return listener
    }

    private static func listenError(_ error: Int32, _ operation: String, _ endpoint: String) -> TransportError {
        let hint = error == EADDRINUSE ? "; another program uses that port: pick another port or stop it" : ""
        return TransportError(.listenFailed, "\(operation) \(endpoint) failed: \(String(cString: strerror(error)))"
                                  + hint)
    }

    /// Stops accepting. Connections already accepted stay open.
    public func close() {
        closeDescriptor()
    }

    func loopDidShutDown() {
        close()
    }

    func handleEvents(_ events: UInt32) {
        // A bounded batch per wake-up; level-triggered epoll brings the listener back for the rest.
        for _ in 0..<64 {
            guard fd >= 0 else { return }
            let (client, peer) = SocketAddress.filled { stream_accept_nonblocking(fd, $0, $1) }
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            guard connectionCount < maxConnections else {
                Glibc.close(client)
                onRefuse?(peer.description)
                continue
            }
            setNoDelay(client)
            let connection: Connection
            do {
                connection = try Connection(accepted: client, peer: peer, loop: loop, tls: tlsContext)
            } catch {
                Glibc.close(client)
                continue
            }
            connectionCount += 1
            connection.onClosed = { [weak self] in self?.connectionCount -= 1 }
            onAccept(connection)
            connection.start(handshakeTimeout: handshakeTimeout)
        }
    }
}
