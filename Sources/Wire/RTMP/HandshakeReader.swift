/// Reads the peer's half of an RTMP handshake (RTMP §5.2), the same on both sides: its version byte and first packet
/// (C0+C1 or S0+S1), then its echo of ours (C2 or S2), which like nginx-rtmp and librtmp it does not check.
struct HandshakeReader: Sendable {
    private enum State: Sendable {
        case waitingForFirstPacket
        case waitingForEcho
        case complete
    }

    private var state = State.waitingForFirstPacket
    /// The bytes of the packet being read.
    private var buffer: [UInt8] = []

    /// Whether the echo has been read.
    var isComplete: Bool {
        switch state {
        case .complete: true
        case .waitingForFirstPacket, .waitingForEcho: false
        }
    }

    /// Feeds bytes from the peer.
    /// - Returns: the peer's first packet (C1 or S1) when these bytes completed it, for the caller to answer, and a
    ///   step with completion and any bytes past the echo (its `reply` is empty).
    /// - Throws: `RTMPError` when the version byte is not 3.
    mutating func receive(_ bytes: [UInt8]) throws(RTMPError) -> (firstPacket: [UInt8]?, step: HandshakeStep) {
        var firstPacket: [UInt8]?
        switch state {
        case .complete:
            return (nil, HandshakeStep(isComplete: true, remaining: bytes))
        case .waitingForFirstPacket:
            if let first = buffer.first ?? bytes.first, first != ClientHandshake.version {
                throw RTMPError.unsupportedVersion(first)
            }
            buffer.append(contentsOf: bytes)
            guard buffer.count >= 1 + HandshakeDigest.packetSize else { return (nil, HandshakeStep()) }
            firstPacket = Array(buffer[1...HandshakeDigest.packetSize])
            buffer.removeFirst(1 + HandshakeDigest.packetSize)
            state = .waitingForEcho
        case .waitingForEcho:
            buffer.append(contentsOf: bytes)
        }
        guard buffer.count >= HandshakeDigest.packetSize else { return (firstPacket, HandshakeStep()) }
        let remaining = Array(buffer[HandshakeDigest.packetSize...])
        buffer = []
        state = .complete
        return (firstPacket, HandshakeStep(isComplete: true, remaining: remaining))
    }
}
