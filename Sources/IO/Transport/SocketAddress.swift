import Glibc

/// A resolved IPv4 or IPv6 socket address.
struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }

    /// Copies `length` bytes of a `sockaddr`.
    init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        let count = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: count))
        }
        self.storage = storage
        self.length = socklen_t(count)
    }

    /// Holds an IPv4 address.
    init(_ address: sockaddr_in) {
        self.init(copying: address)
    }

    /// Holds an IPv6 address.
    init(_ address: sockaddr_in6) {
        self.init(copying: address)
    }

    /// Copies a `sockaddr_in` or `sockaddr_in6` into the storage.
    private init<Address>(copying address: Address) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
        }
        self.storage = storage
        self.length = socklen_t(MemoryLayout<Address>.size)
    }

    /// Calls `fill` with room for an address (`accept4`, `recvfrom` and `getsockname` write one there), then reads
    /// the address it wrote.
    /// - Returns: what `fill` returned, and the address (meaningful only when `fill` succeeded).
    static func filled<Result>(by fill: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Result)
        -> (Result, SocketAddress) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { fill($0, &length) }
        }
        let address = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length) }
        }
        return (result, address)
    }

    /// The address socket `fd` is bound to, or nil when `getsockname` fails.
    static func local(of fd: Int32) -> SocketAddress? {
        let (result, address) = filled { getsockname(fd, $0, $1) }
        return result == 0 ? address : nil
    }

    /// Parses a numeric IPv4 or IPv6 address (no DNS). Returns nil for host names.
    init?(numericHost host: String, port: Int) {
        let bigEndianPort = in_port_t(truncatingIfNeeded: port).bigEndian
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = bigEndianPort
            address.sin_addr = ipv4
            self.init(address)
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = bigEndianPort
            address.sin6_addr = ipv6
            self.init(address)
        } else {
            return nil
        }
    }

    /// True when `host` is a numeric IPv4 or IPv6 address.
    static func isNumeric(_ host: String) -> Bool {
        SocketAddress(numericHost: host, port: 0) != nil
    }

    /// The port in host byte order.
    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, right after the family.
            Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    /// "127.0.0.1:1935" or "[::1]:1935".
    var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let result = withUnsafeBytes(of: storage) { raw in
            getnameinfo(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length, &host, socklen_t(host.count),
                        nil, 0, NI_NUMERICHOST)
        }
        guard result == 0 else { return "unknown address" }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(text)]:\(port)" : "\(text):\(port)"
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}

/// Formats "host:port", bracketing IPv6 literals.
func endpointName(host: String, port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}
