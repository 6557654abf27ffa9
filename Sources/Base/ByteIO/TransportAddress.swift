/// A transport address: an IPv4 or IPv6 address and a port, parsed and printed without the C library. The one
/// address value of the package: ICE's candidates and the UDP sockets' peers (Transport converts it to `sockaddr`).
public struct TransportAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let ip: [UInt8]
    /// The port.
    public let port: UInt16

    /// Creates an address from its bytes.
    /// - Parameters:
    ///   - ip: 4 or 16 bytes.
    ///   - port: the port.
    public init?(ip: [UInt8], port: UInt16) {
        guard ip.count == 4 || ip.count == 16 else { return nil }
        self.ip = ip
        self.port = port
    }

    /// Parses a numeric address (`192.0.2.1`, `2001:db8::1`, `[::1]`); nil for host names and anything malformed.
    public init?(host: String, port: UInt16) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let bytes = Self.parseIPv4(text) ?? Self.parseIPv6(text) {
            self.init(ip: bytes, port: port)
        } else {
            return nil
        }
    }

    /// True for an IPv6 address.
    public var isIPv6: Bool { ip.count == 16 }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        isIPv6 ? ip == [UInt8](repeating: 0, count: 15) + [1] : ip[0] == 127
    }

    /// The address alone: `192.0.2.1` or `2001:db8::1`.
    public var host: String {
        if !isIPv6 { return ip.map(String.init).joined(separator: ".") }
        var groups: [UInt16] = []
        for index in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(ip[index]) << 8 | UInt16(ip[index + 1])) }
        // RFC 5952 §4.2: the longest run of two or more zero groups becomes "::".
        var best: (start: Int, length: Int) = (-1, 0)
        var index = 0
        while index < 8 {
            if groups[index] == 0 {
                var end = index
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - index > best.length && end - index >= 2 { best = (index, end - index) }
                index = end
            } else {
                index += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::"
            + hex[(best.start + best.length)...].joined(separator: ":")
    }

    /// `192.0.2.1:3478` or `[2001:db8::1]:3478`.
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if index == fields.count - 1, field.contains("."), let v4 = parseIPv4(field) {
                    result += [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
                } else {
                    guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tail = halves.count == 2 ? groups(halves[1]) : []
        guard let tail else { return nil }
        let all: [UInt16]
        if halves.count == 2 {
            guard head.count + tail.count <= 7 else { return nil }
            all = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }
}

extension String {
    /// Splits on a multi-character separator (Foundation's `components(separatedBy:)` without Foundation).
    fileprivate func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}

extension Substring {
    fileprivate func components(separatedBy separator: String) -> [String] {
        String(self).components(separatedBy: separator)
    }
}
