import ByteIO
import Glibc

/// The one address value of the package (ICE's candidates, a UDP socket's peers) to and from the C library's
/// `sockaddr`. Cheap to compare and hash, so a protocol above can key per-peer state by it without formatting
/// strings for every datagram.
extension TransportAddress {
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
}
