import ByteIO
import Digest

/// A STUN message (RFC 8489 §5): header, transaction id and attributes, with MESSAGE-INTEGRITY and FINGERPRINT.
///
/// Decoding keeps the received bytes so that integrity and fingerprint can be checked afterwards against the exact
/// bytes that were covered, padding included (RFC 5769's vectors pad with spaces).
public struct STUNMessage: Sendable, Hashable {
    /// RFC 8489 §5: the fixed magic cookie.
    public static let magicCookie: UInt32 = 0x2112_A442
    static let magicCookieBytes: [UInt8] = [0x21, 0x12, 0xA4, 0x42]
    /// RFC 8489 §5: the header is 20 bytes.
    public static let headerSize = 20
    /// Largest message read: a UDP datagram under a typical path MTU (RFC 8489 §6.1 wants messages below 576
    /// bytes for IPv4 where the MTU is unknown; 1500 leaves room for peers that ignore that).
    public static let maximumSize = 1500
    /// Most attributes read from one message.
    public static let maximumAttributes = 32
    /// RFC 8489 §18.2: the Binding method.
    public static let bindingMethod: UInt16 = 0x001
    /// RFC 8489 §14.7: FINGERPRINT's CRC is XORed with "STUN".
    static let fingerprintXOR: UInt32 = 0x5354_554E

    /// The message class (RFC 8489 §5, the C1 and C0 bits).
    public enum Class: UInt16, Sendable, Hashable {
        /// A request, answered by a success or error response.
        case request = 0b00
        /// An indication: no response.
        case indication = 0b01
        /// A success response.
        case success = 0b10
        /// An error response.
        case error = 0b11
    }

    /// The class.
    public var messageClass: Class
    /// The method (Binding is 1).
    public var method: UInt16
    /// 12 random bytes matching a response to its request.
    public var transactionID: [UInt8]
    /// The attributes in order. After decoding: those before MESSAGE-INTEGRITY (others are ignored, RFC 8489
    /// §14.5), without MESSAGE-INTEGRITY and FINGERPRINT themselves.
    public var attributes: [STUNAttribute]

    /// The received bytes and where MESSAGE-INTEGRITY and FINGERPRINT start in them (decoded messages only).
    private var received: [UInt8] = []
    private var integrityOffset: Int?
    private var fingerprintOffset: Int?

    /// Creates a message to send.
    public init(class messageClass: Class, method: UInt16 = STUNMessage.bindingMethod, transactionID: [UInt8],
                attributes: [STUNAttribute] = []) {
        precondition(transactionID.count == 12, "a STUN transaction id is 12 bytes")
        self.messageClass = messageClass
        self.method = method
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// Whether `bytes` looks like STUN (RFC 7983 §7: the first byte is 0...3; the cookie sits at offset 4), which
    /// tells it apart from DTLS and SRTP on the shared port.
    public static func looksLikeSTUN<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8, C.Index == Int {
        guard bytes.count >= headerSize, bytes[bytes.startIndex] < 4 else { return false }
        let start = bytes.startIndex
        return Array(bytes[(start + 4)..<(start + 8)]) == magicCookieBytes
    }

    /// Whether `bytes` starts like a Binding request (RFC 8489 §5: type 0x0001, the magic cookie), without reading
    /// the rest: what a demultiplexer needs before it knows which session's credentials apply.
    public static func isBindingRequest(_ bytes: [UInt8]) -> Bool {
        bytes.count >= headerSize && bytes[0] == 0x00 && bytes[1] == 0x01 && Array(bytes[4..<8]) == magicCookieBytes
    }

    /// The USERNAME attribute's value, found by walking the attribute headers only: no integrity or fingerprint is
    /// checked and nothing is copied but the value, so a demultiplexer can pick the session (by the ufrag before
    /// the colon) whose password then checks the whole message.
    /// - Parameter bytes: one datagram that ``looksLikeSTUN(_:)``.
    /// - Returns: the value, or nil when there is none before MESSAGE-INTEGRITY or the attributes are cut short.
    public static func peekUsername(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= headerSize, bytes.count <= maximumSize else { return nil }
        let end = min(bytes.count, headerSize + (Int(bytes[2]) << 8 | Int(bytes[3])))
        var offset = headerSize
        while end - offset >= 4 {
            let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard end - offset - 4 >= length else { return nil }
            if type == STUNAttribute.Kind.username { return Array(bytes[(offset + 4)..<(offset + 4 + length)]) }
            // RFC 8489 §14.5: what follows MESSAGE-INTEGRITY is not covered by it, so a USERNAME there is ignored.
            if type == STUNAttribute.Kind.messageIntegrity { return nil }
            offset += 4 + (length + 3) & ~3
        }
        return nil
    }

    /// Reads a message.
    /// - Parameter bytes: one whole UDP datagram.
    /// - Throws: ``STUNError`` naming what is malformed.
    public init(decoding bytes: [UInt8]) throws(STUNError) {
        guard bytes.count >= Self.headerSize else {
            throw STUNError("a STUN message needs a 20-byte header, got \(bytes.count) bytes")
        }
        guard bytes.count <= Self.maximumSize else {
            throw STUNError("a STUN message of \(bytes.count) bytes is larger than the \(Self.maximumSize) accepted")
        }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        guard type & 0xC000 == 0 else { throw STUNError("the two top bits of a STUN message type must be 0") }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard Array(bytes[4..<8]) == Self.magicCookieBytes else { throw STUNError("no STUN magic cookie") }
        guard length % 4 == 0, length == bytes.count - Self.headerSize else {
            throw STUNError("the STUN length field says \(length) bytes, the datagram holds "
                + "\(bytes.count - Self.headerSize) (it must match and be a multiple of 4)")
        }
        // RFC 8489 §5: M11..M0 and C1 C0 interleave in the type.
        let classBits = (type >> 7 & 0b10) | (type >> 4 & 0b01)
        let method = (type & 0x000F) | (type >> 1 & 0x0070) | (type >> 2 & 0x0F80)
        self.messageClass = Class(rawValue: classBits) ?? .request
        self.method = method
        self.transactionID = Array(bytes[8..<20])
        self.attributes = []
        self.received = bytes
        var offset = Self.headerSize
        var count = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw STUNError("a STUN attribute header is cut short") }
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let attributeLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let padded = (attributeLength + 3) & ~3
            guard bytes.count - offset - 4 >= padded else {
                throw STUNError(String(format4(attributeType)) + " attribute of \(attributeLength) bytes runs past "
                    + "the message")
            }
            count += 1
            guard count <= Self.maximumAttributes else {
                throw STUNError("a STUN message with more than \(Self.maximumAttributes) attributes")
            }
            let value = Array(bytes[(offset + 4)..<(offset + 4 + attributeLength)])
            if fingerprintOffset != nil {
                throw STUNError("FINGERPRINT must be the last STUN attribute (RFC 8489 §14.7)")
            }
            switch attributeType {
            case STUNAttribute.Kind.messageIntegrity:
                guard attributeLength == 20 else { throw STUNError("MESSAGE-INTEGRITY must be 20 bytes") }
                if integrityOffset == nil { integrityOffset = offset }
            case STUNAttribute.Kind.fingerprint:
                guard attributeLength == 4 else { throw STUNError("FINGERPRINT must be 4 bytes") }
                fingerprintOffset = offset
            default:
                if integrityOffset == nil { attributes.append(STUNAttribute(type: attributeType, value: value)) }
            }
            offset += 4 + padded
        }
    }

    /// Encodes the message, appending MESSAGE-INTEGRITY (HMAC-SHA1 keyed with `integrityKey`) and FINGERPRINT.
    /// - Parameters:
    ///   - integrityKey: the short-term credential's key (the peer's or our ICE password), or nil for none.
    ///   - fingerprint: whether to append FINGERPRINT (ICE requires it, RFC 8445 §7.2.2).
    /// - Returns: the datagram.
    public func encoded(integrityKey: [UInt8]? = nil, fingerprint: Bool = true) -> [UInt8] {
        let type = method & 0x000F | (method & 0x0070) << 1 | (method & 0x0F80) << 2
            | (messageClass.rawValue & 0b01) << 4 | (messageClass.rawValue & 0b10) << 7
        var bytes = STUNAttribute.bigEndian(UInt64(type), width: 2) + [0, 0] + Self.magicCookieBytes + transactionID
        for attribute in attributes {
            bytes += STUNAttribute.bigEndian(UInt64(attribute.type), width: 2)
            bytes += STUNAttribute.bigEndian(UInt64(attribute.value.count), width: 2)
            bytes += attribute.value
            bytes += [UInt8](repeating: 0, count: (4 - attribute.value.count % 4) % 4)
        }
        if let integrityKey {
            Self.setLength(&bytes, bodyLength: bytes.count - Self.headerSize + 24)
            let mac = HMACSHA1.authenticationCode(key: integrityKey, message: bytes)
            bytes += [0x00, 0x08, 0x00, 0x14] + mac
        }
        if fingerprint {
            Self.setLength(&bytes, bodyLength: bytes.count - Self.headerSize + 8)
            let crc = CRC32.checksum(bytes) ^ Self.fingerprintXOR
            bytes += [0x80, 0x28, 0x00, 0x04] + STUNAttribute.bigEndian(UInt64(crc), width: 4)
        }
        Self.setLength(&bytes, bodyLength: bytes.count - Self.headerSize)
        return bytes
    }

    /// Whether the decoded message carried MESSAGE-INTEGRITY.
    public var hasIntegrity: Bool { integrityOffset != nil }

    /// Checks MESSAGE-INTEGRITY (RFC 8489 §14.5) of a decoded message.
    /// - Parameter key: the short-term key (the ICE password of whoever the message was sent to... or by).
    /// - Returns: false when the attribute is missing or does not match.
    public func hasValidIntegrity(key: [UInt8]) -> Bool {
        guard let integrityOffset else { return false }
        var covered = Array(received[..<integrityOffset])
        Self.setLength(&covered, bodyLength: integrityOffset - Self.headerSize + 24)
        let expected = HMACSHA1.authenticationCode(key: key, message: covered)
        let actual = received[(integrityOffset + 4)..<(integrityOffset + 24)]
        // Constant time: every byte compared whatever the first difference.
        return zip(expected, actual).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// FINGERPRINT of a decoded message: nil when absent, else whether it matches (RFC 8489 §14.7).
    public var hasValidFingerprint: Bool? {
        guard let fingerprintOffset else { return nil }
        var covered = Array(received[..<fingerprintOffset])
        Self.setLength(&covered, bodyLength: fingerprintOffset - Self.headerSize + 8)
        let expected = CRC32.checksum(covered) ^ Self.fingerprintXOR
        let value = received[(fingerprintOffset + 4)..<(fingerprintOffset + 8)]
            .reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return value == expected
    }

    /// The first attribute of a type.
    public func attribute(_ type: UInt16) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    /// USERNAME as text.
    public var username: String? {
        attribute(STUNAttribute.Kind.username).map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// PRIORITY.
    public var priority: UInt32? {
        attribute(STUNAttribute.Kind.priority).flatMap { $0.value.count == 4 ? UInt32(Self.integer($0.value)) : nil }
    }

    /// Whether USE-CANDIDATE is present.
    public var useCandidate: Bool { attribute(STUNAttribute.Kind.useCandidate) != nil }

    /// The ICE-CONTROLLING tie-breaker.
    public var iceControlling: UInt64? {
        attribute(STUNAttribute.Kind.iceControlling).flatMap { $0.value.count == 8 ? Self.integer($0.value) : nil }
    }

    /// The ICE-CONTROLLED tie-breaker.
    public var iceControlled: UInt64? {
        attribute(STUNAttribute.Kind.iceControlled).flatMap { $0.value.count == 8 ? Self.integer($0.value) : nil }
    }

    /// XOR-MAPPED-ADDRESS, or MAPPED-ADDRESS from an old server.
    public var mappedAddress: TransportAddress? {
        if let xor = attribute(STUNAttribute.Kind.xorMappedAddress) {
            return STUNAttribute.address(from: xor.value, transactionID: transactionID, xor: true)
        }
        return attribute(STUNAttribute.Kind.mappedAddress).flatMap {
            STUNAttribute.address(from: $0.value, transactionID: transactionID, xor: false)
        }
    }

    /// ERROR-CODE as a number (e.g. 487) and its reason phrase.
    public var errorCode: (code: Int, reason: String)? {
        guard let value = attribute(STUNAttribute.Kind.errorCode)?.value, value.count >= 4 else { return nil }
        return (Int(value[2] & 0x07) * 100 + Int(value[3]), String(decoding: value[4...], as: UTF8.self))
    }

    /// Comprehension-required attribute types this agent does not know (RFC 8489 §7.3.1).
    public var unknownRequiredAttributes: [UInt16] {
        let known: Set<UInt16> = [STUNAttribute.Kind.mappedAddress, STUNAttribute.Kind.username,
                                  STUNAttribute.Kind.errorCode, STUNAttribute.Kind.unknownAttributes,
                                  STUNAttribute.Kind.messageIntegritySHA256, STUNAttribute.Kind.xorMappedAddress,
                                  STUNAttribute.Kind.priority, STUNAttribute.Kind.useCandidate]
        return attributes.filter { $0.isComprehensionRequired && !known.contains($0.type) }.map(\.type)
    }

    private static func integer(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func setLength(_ bytes: inout [UInt8], bodyLength: Int) {
        bytes[2] = UInt8(truncatingIfNeeded: bodyLength >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: bodyLength)
    }
}

/// `0x8022`-style text for an attribute type in messages.
private func format4(_ type: UInt16) -> String {
    let hex = String(type, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
