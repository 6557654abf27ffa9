import ByteIO
import Glibc

/// The machine's interface addresses (getifaddrs): the host candidates of an ICE agent.
public enum InterfaceAddresses {
    /// IPv4 and IPv6 addresses of the interfaces that are up, IPv4 first; link-local IPv6 addresses are left out
    /// (they need a scope id that SDP cannot carry).
    /// - Parameter includeLoopback: whether to list 127.0.0.1 and ::1.
    /// - Returns: the addresses with port 0.
    public static func current(includeLoopback: Bool) -> [TransportAddress] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var ipv4: [TransportAddress] = []
        var ipv6: [TransportAddress] = []
        var current = first
        while let entry = current {
            defer { current = entry.pointee.ifa_next }
            let flags = entry.pointee.ifa_flags
            guard let address = entry.pointee.ifa_addr, flags & UInt32(IFF_UP) != 0 else { continue }
            let isLoopback = flags & UInt32(IFF_LOOPBACK) != 0
            guard includeLoopback || !isLoopback else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard let parsed = TransportAddress(SocketAddress(address, length: length)) else { continue }
            if family == AF_INET {
                ipv4.append(parsed)
            } else if !(parsed.ip[0] == 0xFE && parsed.ip[1] & 0xC0 == 0x80) {
                ipv6.append(parsed)
            }
        }
        return ipv4 + ipv6
    }
}
