import Digest
/// The digest ("Flash player") variant of the RTMP handshake, which Adobe never put in the public spec but
/// which Flash, ffmpeg, OBS and librtmp send: C1/S1 carry an HMAC-SHA256 digest at an offset that the bytes
/// themselves select, and S2/C2 end with a signature keyed by the peer's digest.
enum HandshakeDigest {
    /// The size of C1, S1, C2 and S2 (RTMP §5.2.3).
    static let packetSize = 1536
    /// The digest and signature size (SHA-256).
    static let digestSize = 32

    /// The 32 bytes that follow the text in both full keys.
    private static let keyTail: [UInt8] = [
        0xF0, 0xEE, 0xC2, 0x4A, 0x80, 0x68, 0xBE, 0xE8, 0x2E, 0x00, 0xD0, 0xD1, 0x02, 0x9E, 0x7E, 0x57,
        0x6E, 0xEC, 0x5D, 0x2D, 0x29, 0x80, 0x6F, 0xAB, 0x93, 0xB8, 0xE6, 0x36, 0xCF, 0xEB, 0x31, 0xAE,
    ]

    /// "Genuine Adobe Flash Player 001" (30 bytes): keys the client's C1 digest.
    static let playerKey: [UInt8] = Array("Genuine Adobe Flash Player 001".utf8)
    /// "Genuine Adobe Flash Media Server 001" (36 bytes): keys the server's S1 digest.
    static let serverKey: [UInt8] = Array("Genuine Adobe Flash Media Server 001".utf8)
    /// The 68-byte server key (text + tail): keys the S2 signature key derived from the client's digest.
    static let serverFullKey: [UInt8] = serverKey + keyTail
    /// The 62-byte player key (text + tail): keys the C2 signature key derived from the server's digest.
    static let playerFullKey: [UInt8] = playerKey + keyTail

    /// Where the digest may sit in a 1536-byte C1/S1.
    enum Scheme: Sendable, Equatable, CaseIterable {
        /// Offset bytes at 8...11, digest inside the first 764-byte block.
        case scheme0
        /// Offset bytes at 772...775, digest inside the second 764-byte block.
        case scheme1

        /// The index of the four bytes whose sum selects the digest position.
        var offsetBase: Int {
            switch self {
            case .scheme0: 8
            case .scheme1: 772
            }
        }

        /// The digest position in `packet` (always within bounds for a 1536-byte packet).
        func digestOffset(in packet: [UInt8]) -> Int {
            let base = offsetBase
            let sum = Int(packet[base]) + Int(packet[base + 1]) + Int(packet[base + 2]) + Int(packet[base + 3])
            return sum % 728 + base + 4
        }
    }

    /// HMAC-SHA256 over the packet without the 32 digest bytes at `offset`.
    static func digest(of packet: [UInt8], at offset: Int, key: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(
            key: key, message: packet[0..<offset] + packet[(offset + digestSize)..<packet.count])
    }

    /// Finds a valid digest in a 1536-byte C1 keyed with the player key.
    /// - Returns: the scheme and the digest bytes, or nil for a plain (or unverifiable) C1.
    static func findClientDigest(in packet: [UInt8]) -> (scheme: Scheme, digest: [UInt8])? {
        guard packet.count == packetSize else { return nil }
        for scheme in [Scheme.scheme1, .scheme0] {
            let offset = scheme.digestOffset(in: packet)
            let found = Array(packet[offset..<(offset + digestSize)])
            if digest(of: packet, at: offset, key: playerKey) == found {
                return (scheme, found)
            }
        }
        return nil
    }

    /// Writes a digest keyed with `key` into a 1536-byte packet at the position its scheme selects.
    /// - Returns: the digest written.
    @discardableResult
    static func imprint(_ packet: inout [UInt8], scheme: Scheme, key: [UInt8]) -> [UInt8] {
        let offset = scheme.digestOffset(in: packet)
        let value = digest(of: packet, at: offset, key: key)
        packet.replaceSubrange(offset..<(offset + digestSize), with: value)
        return value
    }

    /// The signature closing S2 (or C2): HMAC-SHA256 keyed by HMAC-SHA256(fullKey, peerDigest) over the first
    /// 1504 bytes.
    static func signature(of packet: [UInt8], peerDigest: [UInt8], fullKey: [UInt8]) -> [UInt8] {
        let key = HMACSHA256.authenticationCode(key: fullKey, message: peerDigest)
        return HMACSHA256.authenticationCode(key: key, message: packet[0..<(packetSize - digestSize)])
    }
}
