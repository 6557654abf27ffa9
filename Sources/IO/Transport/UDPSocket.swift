import ByteIO
import CEpoll
import Glibc

/// A non-blocking UDP socket on an ``EventLoop``: datagrams in through `onDatagram`, out through ``send(_:to:)``.
/// A loop-thread object, like ``Connection``; no protocol knowledge.
///
/// Sends never queue: UDP protocols above (RTP with its pacer, STUN with its retransmissions) decide what to do
/// when the kernel's buffer is full, so a datagram the kernel refuses is dropped and counted in ``sendDrops``.
public final class UDPSocket: DescriptorSource {
    /// The loop that owns this socket.
    public let loop: EventLoop
    /// The port actually bound (after binding port 0).
    public let localPort: Int
    /// Datagrams the kernel refused (its send buffer was full).
    public private(set) var sendDrops = 0
    /// The largest datagram read; longer ones are truncated by the kernel and dropped here.
    public static let maximumDatagramSize = 2048

    var fd: Int32
    var id: UInt64 = 0
    private let onDatagram: ([UInt8], TransportAddress) -> Void

    private init(fd: Int32, port: Int, loop: EventLoop, onDatagram: @escaping ([UInt8], TransportAddress) -> Void) {
        self.fd = fd
        self.localPort = port
        self.loop = loop
        self.onDatagram = onDatagram
    }

    /// Binds `host:port` and starts reading. Must be called on `loop`'s thread.
    /// - Parameters:
    ///   - host: a numeric address: "0.0.0.0" for every IPv4 interface, "127.0.0.1", "::".
    ///   - port: the port, or 0 for any free port (read ``localPort``).
    ///   - receiveBufferBytes: the kernel's receive buffer (a keyframe's worth of packets arrives at once).
    ///   - loop: the owning loop.
    ///   - onDatagram: called on the loop thread with each datagram and its source.
    /// - Throws: ``TransportError`` `.listenFailed` when the address cannot be bound.
    public static func bind(host: String = "0.0.0.0", port: Int = 0, receiveBufferBytes: Int = 1 << 20,
                            on loop: EventLoop,
                            onDatagram: @escaping ([UInt8], TransportAddress) -> Void) throws(TransportError) -> UDPSocket {
        loop.assertInEventLoop()
        let endpoint = endpointName(host: host, port: port)
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw TransportError(.listenFailed, "cannot bind UDP \(endpoint): the host must be a numeric IP address")
        }
        let socketType = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(address.family, socketType, 0)
        guard fd >= 0 else { throw .posix(errno, "creating a UDP socket for", endpoint: endpoint) }
        var size = Int32(clamping: receiveBufferBytes)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockaddr({ Glibc.bind(fd, $0, $1) }) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TransportError(.listenFailed, "binding UDP \(endpoint) failed: \(String(cString: strerror(error)))")
        }
        let boundPort = SocketAddress.local(of: fd)?.port ?? port
        let udp = UDPSocket(fd: fd, port: boundPort, loop: loop, onDatagram: onDatagram)
        try udp.watchInput()
        return udp
    }

    /// Sends one datagram now, or drops it when the kernel's buffer is full.
    /// - Returns: whether the kernel took it.
    @discardableResult
    public func send(_ bytes: [UInt8], to destination: TransportAddress) -> Bool {
        loop.assertInEventLoop()
        guard fd >= 0 else { return false }
        let sent = destination.socketAddress.withSockaddr { address, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
        guard sent == bytes.count else {
            sendDrops += 1
            return false
        }
        return true
    }

    /// Closes the socket; no more datagrams are delivered.
    public func close() {
        closeDescriptor()
    }

    func loopDidShutDown() {
        close()
    }

    func handleEvents(_ events: UInt32) {
        // A bounded batch per wake-up; level-triggered epoll calls again for the rest.
        for _ in 0..<256 {
            guard fd >= 0 else { return }
            let (received, source) = SocketAddress.filled { address, length in
                loop.withReadBuffer { buffer -> (Int, [UInt8]) in
                    let count = recvfrom(fd, buffer.baseAddress, min(buffer.count, Self.maximumDatagramSize + 1),
                                         Int32(MSG_TRUNC), address, length)
                    guard count > 0, count <= Self.maximumDatagramSize else { return (count, []) }
                    return (count, Array(UnsafeRawBufferPointer(rebasing: buffer[..<count])))
                }
            }
            guard received.0 >= 0 else { return }  // EAGAIN: drained
            guard !received.1.isEmpty else { continue }
            guard let peer = TransportAddress(source) else { continue }
            onDatagram(received.1, peer)
        }
    }
}
