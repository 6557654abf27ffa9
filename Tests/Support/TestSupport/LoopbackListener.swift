import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on 127.0.0.1 and a free port, for fake servers written in tests.
public final class LoopbackListener: Sendable {
    /// The port the kernel picked.
    public let port: Int
    private let descriptor: Atomic<Int32>

    /// Binds 127.0.0.1:0 and listens.
    /// - Parameters:
    ///   - receiveBufferSize: SO_RCVBUF inherited by accepted sockets (small values make a slow reader).
    ///   - maximumSegmentSize: TCP_MAXSEG announced to clients. Loopback's 64 kB segments make a peer's kernel
    ///     size its send buffer in megabytes at once; an Ethernet-like 1460 keeps it to what a real link sees.
    public init(backlog: Int32 = 128, receiveBufferSize: Int? = nil, maximumSegmentSize: Int? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RawSocket.Failure(description: "socket() failed: errno \(errno)") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBufferSize.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if var segment = maximumSegmentSize.map(Int32.init) {
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &segment, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = LoopbackAddress.make(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, listen(fd, backlog) == 0 else {
            Glibc.close(fd)
            throw RawSocket.Failure(description: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = Atomic(fd)
    }

    deinit { close() }

    /// Accepts the next connection.
    /// - Throws: ``RawSocket/Failure`` with `isTimeout` when nobody connects in time, or after ``close()``.
    public func accept(timeout: TimeInterval) throws -> RawSocket {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = descriptor.load(ordering: .acquiring)
            guard fd >= 0 else { throw RawSocket.Failure(description: "the listener is closed") }
            let client = Glibc.accept(fd, nil, nil)
            if client >= 0 { return RawSocket(adopting: client) }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED else {
                throw RawSocket.Failure(description: "accept failed: errno \(errno)")
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw RawSocket.Failure(description: "nobody connected within \(timeout) s", isTimeout: true)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, Int32(min(remaining, 0.05) * 1000) + 1)
        }
    }

    /// Stops listening (idempotent).
    public func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { Glibc.close(fd) }
    }
}
