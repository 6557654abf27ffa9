import Foundation

/// A blocking UDP socket on 127.0.0.1 for driving a sans-I/O endpoint (DTLS, STUN) against a real peer in a test.
public final class UDPTestSocket {
    private let fd: Int32
    private var peer: sockaddr_in?
    /// The bound port.
    public let localPort: Int

    /// Binds a free port; sends to `port` when given, else to whoever sends first.
    public init(connectingTo port: Int?) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw Subprocess.Failure(description: "cannot bind a UDP socket") }
        localPort = Int(UInt16(bigEndian: address.sin_port))
        if let port { connect(toPort: port) }
    }

    deinit { close(fd) }

    /// Sends to `port` on 127.0.0.1 from now on.
    public func connect(toPort port: Int) {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        target.sin_port = UInt16(port).bigEndian
        peer = target
    }

    /// Sends one datagram to the peer (nothing before a peer is known).
    public func send(_ bytes: [UInt8]) {
        guard var target = peer else { return }
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bytes.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, 0, raw, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Waits up to `timeoutMilliseconds` for one datagram; the first sender becomes the peer when none was given.
    public func receive(timeoutMilliseconds: Int32) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, &buffer, buffer.count, 0, $0, &length)
            }
        }
        guard count > 0 else { return nil }
        if peer == nil { peer = source }
        return Array(buffer.prefix(count))
    }
}
