import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP socket for scripted fake peers: whole writes and reads with a deadline, on a blocking thread.
///
/// Tests use it to play a broken server or client byte by byte. Use one socket from one thread at a time;
/// ``close()`` may be called from anywhere.
public final class RawSocket: Sendable {
    /// Why a socket call failed; `isTimeout` tells a deadline apart from an error.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed.
        public var description: String
        /// True when the deadline passed.
        public var isTimeout: Bool

        /// Creates a failure.
        public init(description: String, isTimeout: Bool = false) {
            self.description = description
            self.isTimeout = isTimeout
        }
    }

    private let descriptor: Atomic<Int32>

    /// Takes ownership of a connected socket and makes it non-blocking.
    public init(adopting fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        descriptor = Atomic(fd)
    }

    deinit { close() }

    /// Connects to 127.0.0.1:`port`.
    /// - Parameter receiveBufferSize: SO_RCVBUF to set before connecting (small values make a slow reader).
    public static func connect(port: Int, receiveBufferSize: Int? = nil) throws -> RawSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        if var size = receiveBufferSize.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = LoopbackAddress.make(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let error = errno
            Glibc.close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
        return RawSocket(adopting: fd)
    }

    /// The descriptor, or -1 after ``close()``.
    public var fd: Int32 { descriptor.load(ordering: .acquiring) }

    /// The local port (the peer sees us as 127.0.0.1:localPort); 0 when unknown.
    public var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : 0
    }

    /// Sends all of `bytes`, waiting for room up to `timeout` seconds in total.
    /// - Throws: ``Failure`` when the peer closed, or with `isTimeout` when it stopped reading.
    public func write(_ bytes: [UInt8], timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var offset = 0
        while offset < bytes.count {
            let fd = self.fd
            guard fd >= 0 else { throw Failure(description: "write on a closed socket") }
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
                continue
            }
            let error = errno
            guard sent < 0, error == EAGAIN || error == EWOULDBLOCK || error == EINTR else {
                throw Failure(description: "send failed: errno \(error)")
            }
            guard try wait(for: Int16(POLLOUT), until: deadline) else {
                throw Failure(description: "peer stopped reading: \(bytes.count - offset) bytes unsent",
                              isTimeout: true)
            }
        }
    }

    /// Sends as much of `bytes` as the kernel takes now, without waiting.
    /// - Returns: the count sent (0 when the socket buffer is full).
    public func writeAvailable(_ bytes: [UInt8]) throws -> Int {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent >= 0 { return sent }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
        throw Failure(description: "send failed: errno \(errno)")
    }

    /// Reads what is available (at most `maximum` bytes), waiting up to `timeout` seconds for something.
    /// - Returns: the bytes, or nil when the peer closed (or reset) the connection.
    /// - Throws: ``Failure`` with `isTimeout` when nothing arrived in time.
    public func read(maximum: Int = 65536, timeout: TimeInterval) throws -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let fd = self.fd
            guard fd >= 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count == 0 { return nil }
            let error = errno
            if error == ECONNRESET { return nil }
            guard error == EAGAIN || error == EWOULDBLOCK || error == EINTR else {
                throw Failure(description: "recv failed: errno \(error)")
            }
            guard try wait(for: Int16(POLLIN), until: deadline) else {
                throw Failure(description: "nothing received within \(timeout) s", isTimeout: true)
            }
        }
    }

    /// Reads exactly `count` bytes.
    /// - Throws: ``Failure`` when the peer closes first or the deadline passes.
    public func read(exactly count: Int, timeout: TimeInterval) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard let more = try read(maximum: count - bytes.count,
                                      timeout: max(0.001, deadline.timeIntervalSinceNow)) else {
                throw Failure(description: "peer closed after \(bytes.count) of \(count) bytes")
            }
            bytes += more
        }
        return bytes
    }

    /// Reads and discards until the peer closes.
    /// - Returns: how many bytes came before the close.
    /// - Throws: ``Failure`` with `isTimeout` when the peer keeps the connection open past `timeout`.
    @discardableResult
    public func drainUntilClosed(timeout: TimeInterval) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var total = 0
        while let bytes = try read(timeout: max(0.001, deadline.timeIntervalSinceNow)) {
            total += bytes.count
        }
        return total
    }

    /// Half-closes: the peer reads end of stream, we can still read.
    public func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket (idempotent).
    public func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        guard fd >= 0 else { return }
        _ = shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    /// Polls for `events` until `deadline`; false when it passed.
    private func wait(for events: Int16, until deadline: Date) throws -> Bool {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 0.1) * 1000) + 1)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw Failure(description: "poll failed: errno \(errno)") }
        }
    }
}

/// `sockaddr_in` for 127.0.0.1.
enum LoopbackAddress {
    static func make(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
