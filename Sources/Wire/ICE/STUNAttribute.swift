import ByteIO

/// One STUN attribute (RFC 8489 §14): a type and its value, without the padding.
public struct STUNAttribute: Sendable, Hashable {
    /// Attribute types this agent reads or writes (RFC 8489 §18.3, RFC 8445 §16.1).
    public enum Kind {
        /// RFC 8489 §14.1.
        public static let mappedAddress: UInt16 = 0x0001
        /// RFC 8489 §14.3.
        public static let username: UInt16 = 0x0006
        /// RFC 8489 §14.5: HMAC-SHA1 of the message before it.
        public static let messageIntegrity: UInt16 = 0x0008
        /// RFC 8489 §14.8.
        public static let errorCode: UInt16 = 0x0009
        /// RFC 8489 §14.9.
        public static let unknownAttributes: UInt16 = 0x000A
        /// RFC 8489 §14.6: HMAC-SHA256 of the message before it.
        public static let messageIntegritySHA256: UInt16 = 0x001C
        /// RFC 8489 §14.2.
        public static let xorMappedAddress: UInt16 = 0x0020
        /// RFC 8445 §7.1.1: the priority a peer-reflexive candidate learned from this check would get.
        public static let priority: UInt16 = 0x0024
        /// RFC 8445 §7.1.2: the controlling agent nominates this pair.
        public static let useCandidate: UInt16 = 0x0025
        /// RFC 8489 §14.14.
        public static let software: UInt16 = 0x8022
        /// RFC 8489 §14.7: CRC-32 of the message before it, XORed with 0x5354554e.
        public static let fingerprint: UInt16 = 0x8028
        /// RFC 8445 §7.1.3: the sender is the controlled agent; the value is its tie-breaker.
        public static let iceControlled: UInt16 = 0x8029
        /// RFC 8445 §7.1.3: the sender is the controlling agent; the value is its tie-breaker.
        public static let iceControlling: UInt16 = 0x802A
    }

    /// The attribute type.
    public var type: UInt16
    /// The value, unpadded.
    public var value: [UInt8]

    /// Creates an attribute.
    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// Comprehension-required attributes have types below 0x8000 (RFC 8489 §14).
    public var isComprehensionRequired: Bool { type < 0x8000 }

    /// USERNAME: `remote-ufrag:local-ufrag` in an ICE check (RFC 8445 §7.2.2).
    public static func username(_ name: String) -> STUNAttribute {
        STUNAttribute(type: Kind.username, value: Array(name.utf8))
    }

    /// PRIORITY.
    public static func priority(_ priority: UInt32) -> STUNAttribute {
        STUNAttribute(type: Kind.priority, value: bigEndian(UInt64(priority), width: 4))
    }

    /// USE-CANDIDATE (no value).
    public static let useCandidate = STUNAttribute(type: Kind.useCandidate, value: [])

    /// ICE-CONTROLLING with the agent's tie-breaker.
    public static func iceControlling(_ tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: Kind.iceControlling, value: bigEndian(tieBreaker, width: 8))
    }

    /// ICE-CONTROLLED with the agent's tie-breaker.
    public static func iceControlled(_ tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: Kind.iceControlled, value: bigEndian(tieBreaker, width: 8))
    }

    /// ERROR-CODE (RFC 8489 §14.8): class and number, then a reason phrase.
    public static func errorCode(_ code: Int, reason: String) -> STUNAttribute {
        let value = [0, 0, UInt8(truncatingIfNeeded: code / 100), UInt8(truncatingIfNeeded: code % 100)]
            + Array(reason.utf8.prefix(763))
        return STUNAttribute(type: Kind.errorCode, value: value)
    }

    /// UNKNOWN-ATTRIBUTES (RFC 8489 §14.9): the comprehension-required types a 420 response refuses.
    public static func unknownAttributes(_ types: [UInt16]) -> STUNAttribute {
        STUNAttribute(type: Kind.unknownAttributes, value: types.flatMap { bigEndian(UInt64($0), width: 2) })
    }

    /// XOR-MAPPED-ADDRESS (RFC 8489 §14.2): the port XORed with the cookie's top half, an IPv4 address with the
    /// cookie, an IPv6 address with the cookie and the transaction id.
    public static func xorMappedAddress(_ address: TransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        let mask = STUNMessage.magicCookieBytes + transactionID
        let port = address.port ^ UInt16(STUNMessage.magicCookie >> 16)
        var value: [UInt8] = [0, address.isIPv6 ? 0x02 : 0x01] + bigEndian(UInt64(port), width: 2)
        value += address.ip.enumerated().map { $0.element ^ mask[$0.offset] }
        return STUNAttribute(type: Kind.xorMappedAddress, value: value)
    }

    /// Reads an XOR-MAPPED-ADDRESS (or, with `xor: false`, a MAPPED-ADDRESS) value.
    static func address(from value: [UInt8], transactionID: [UInt8], xor: Bool) -> TransportAddress? {
        guard value.count >= 4 else { return nil }
        let length = value[1] == 0x01 ? 4 : value[1] == 0x02 ? 16 : 0
        guard length > 0, value.count == 4 + length else { return nil }
        let mask = xor ? STUNMessage.magicCookieBytes + transactionID : [UInt8](repeating: 0, count: 16)
        let port = (UInt16(value[2]) << 8 | UInt16(value[3])) ^ (xor ? UInt16(STUNMessage.magicCookie >> 16) : 0)
        let ip = (0..<length).map { value[4 + $0] ^ mask[$0] }
        return TransportAddress(ip: ip, port: port)
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
