import Glibc

/// A UDP peer: an IPv4 or IPv6 address as bytes (network order) and a port. Cheap to compare and hash, so a
/// protocol above can key per-peer state by it without formatting strings for every datagram.
public struct UDPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let ip: [UInt8]
    /// The port.
    public let port: UInt16

    /// Creates an address from its parts; nil unless `ip` has 4 or 16 bytes.
    public init?(ip: [UInt8], port: UInt16) {
        guard ip.count == 4 || ip.count == 16 else { return nil }
        self.ip = ip
        self.port = port
    }

    /// Parses a numeric host ("127.0.0.1", "::1"); nil for names.
    public init?(host: String, port: Int) {
        guard let address = SocketAddress(numericHost: host, port: port) else { return nil }
        self.init(address)
    }

    init?(_ address: SocketAddress) {
        let parts: (ip: [UInt8], port: UInt16)? = withUnsafeBytes(of: address.storage) { raw in
            switch address.family {
            case AF_INET:
                let value = raw.loadUnaligned(as: sockaddr_in.self)
                return (withUnsafeBytes(of: value.sin_addr) { Array($0) }, UInt16(bigEndian: value.sin_port))
            case AF_INET6:
                let value = raw.loadUnaligned(as: sockaddr_in6.self)
                return (withUnsafeBytes(of: value.sin6_addr) { Array($0) }, UInt16(bigEndian: value.sin6_port))
            default:
                return nil
            }
        }
        guard let parts else { return nil }
        self.init(ip: parts.ip, port: parts.port)
    }

    var socketAddress: SocketAddress {
        if ip.count == 4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: ip) }
            return SocketAddress(address)
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: ip) }
        return SocketAddress(address)
    }

    /// "127.0.0.1:5000" or "[::1]:5000".
    public var description: String { socketAddress.description }
}
