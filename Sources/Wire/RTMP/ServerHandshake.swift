import ByteIO

/// The server side of the RTMP handshake (RTMP §5.2): read C0+C1, send S0+S1+S2, read C2.
///
/// Clients that send a digest-style C1 (Flash, ffmpeg, OBS) get an S1 carrying a server digest and an S2
/// signed with a key derived from their digest, which is what those clients verify. Plain clients get the
/// simple echo handshake. Like nginx-rtmp, a C2 that does not echo S1 exactly is accepted.
public struct ServerHandshake: Sendable {
    /// The version field nginx-rtmp and Flash Media Server put in a digest S1 (any non-zero value works).
    private static let digestServerVersion: [UInt8] = [0x04, 0x05, 0x00, 0x01]

    /// Which kind of handshake a client used (known once C1 is in).
    public enum Kind: Sendable, Equatable {
        /// Not known yet.
        case unknown
        /// The spec's handshake: S2 echoes C1.
        case plain
        /// The Flash-style handshake with HMAC-SHA256 digests.
        case digest
    }

    private var reader = HandshakeReader()
    private let time: UInt32
    private let random: [UInt8]
    /// Which handshake the client used.
    public private(set) var kind: Kind = .unknown

    /// Creates a server handshake.
    /// - Parameters:
    ///   - time: S1's time field (the driver's epoch in milliseconds; 0 is fine).
    ///   - random: at least 1528 random bytes from the driver; only the first 1528 are used.
    public init(time: UInt32, random: [UInt8]) {
        precondition(random.count >= ClientHandshake.randomSize, "the handshake needs 1528 random bytes")
        self.time = time
        self.random = Array(random[0..<ClientHandshake.randomSize])
    }

    /// Whether C2 has been read.
    public var isComplete: Bool {
        reader.isComplete
    }

    /// Feeds bytes from the client.
    /// - Returns: S0+S1+S2 to send once C1 is in, completion once C2 is in, and any bytes past C2 (clients often
    ///   send `connect` right behind C2).
    /// - Throws: `RTMPError` when C0 is not version 3 (for example an HTTP request).
    public mutating func receive(_ bytes: [UInt8]) throws(RTMPError) -> HandshakeStep {
        var (c1, step) = try reader.receive(bytes)
        if let c1 { step.reply = [ClientHandshake.version] + reply(to: c1) }
        return step
    }

    /// S1+S2 for a C1.
    private mutating func reply(to c1: [UInt8]) -> [UInt8] {
        let clientVersionIsZero = c1[4..<8].allSatisfy { $0 == 0 }
        if !clientVersionIsZero, let found = HandshakeDigest.findClientDigest(in: c1) {
            kind = .digest
            var s1 = ByteWriter(capacity: HandshakeDigest.packetSize)
            s1.writeUInt32(time)
            s1.writeBytes(ServerHandshake.digestServerVersion)
            s1.writeBytes(random)
            var s1Bytes = s1.bytes
            HandshakeDigest.imprint(&s1Bytes, scheme: found.scheme, key: HandshakeDigest.serverKey)
            // S2's random part: the driver's random bytes again, rotated so S2 does not repeat S1 verbatim.
            var s2 = Array(random[764...]) + Array(random[..<764]) + [UInt8](repeating: 0, count: 8)
            let signature = HandshakeDigest.signature(
                of: s2, peerDigest: found.digest, fullKey: HandshakeDigest.serverFullKey)
            s2.replaceSubrange((HandshakeDigest.packetSize - HandshakeDigest.digestSize)..., with: signature)
            return s1Bytes + s2
        }
        kind = .plain
        var s1 = ByteWriter(capacity: HandshakeDigest.packetSize)
        s1.writeUInt32(time)
        s1.writeUInt32(0)  // RTMP §5.2.3: zero
        s1.writeBytes(random)
        // RTMP §5.2.4: S2 echoes C1.
        return s1.bytes + c1
    }
}
