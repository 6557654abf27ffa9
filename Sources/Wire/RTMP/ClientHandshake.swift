import ByteIO

/// The client side of the simple RTMP handshake (RTMP §5.2): send C0+C1, read S0+S1, send C2 (an echo of S1),
/// read S2.
///
/// Tolerant like nginx-rtmp and librtmp: an S2 that does not echo C1 exactly is accepted.
public struct ClientHandshake: Sendable {
    /// RTMP §5.2.2: the only protocol version defined by the spec.
    public static let version: UInt8 = 3
    /// RTMP §5.2.3: C1 carries 1528 random bytes after time and zero.
    public static let randomSize = HandshakeDigest.packetSize - 8

    private enum State: Sendable {
        case idle(Idle)
        case started(HandshakeReader)
    }

    private struct Idle: Sendable {
        var c1: [UInt8]
    }

    private var state: State

    /// Creates a client handshake.
    /// - Parameters:
    ///   - time: C1's time field (the driver's epoch in milliseconds; 0 is fine).
    ///   - random: at least 1528 random bytes from the driver; only the first 1528 are used.
    public init(time: UInt32, random: [UInt8]) {
        precondition(random.count >= ClientHandshake.randomSize, "the handshake needs 1528 random bytes")
        var writer = ByteWriter(capacity: HandshakeDigest.packetSize)
        writer.writeUInt32(time)
        writer.writeUInt32(0)  // RTMP §5.2.3: zero
        writer.writeBytes(random[0..<ClientHandshake.randomSize])
        state = .idle(Idle(c1: writer.bytes))
    }

    /// Whether S2 has been read.
    public var isComplete: Bool {
        switch state {
        case .started(let reader): reader.isComplete
        case .idle: false
        }
    }

    /// Starts the handshake.
    /// - Returns: C0 and C1, to send.
    public mutating func start() -> [UInt8] {
        switch state {
        case .idle(let idle):
            state = .started(HandshakeReader())
            return [ClientHandshake.version] + idle.c1
        case .started:
            preconditionFailure("ClientHandshake.start() called twice")
        }
    }

    /// Feeds bytes from the server.
    /// - Returns: C2 to send once S1 is in, completion once S2 is in, and any bytes past S2.
    /// - Throws: `RTMPError` when S0 is not version 3.
    public mutating func receive(_ bytes: [UInt8]) throws(RTMPError) -> HandshakeStep {
        switch state {
        case .idle:
            throw RTMPError.invalidState("receiving handshake bytes before start()")
        case .started(var reader):
            var (s1, step) = try reader.receive(bytes)
            state = .started(reader)
            // C2 echoes S1 (RTMP §5.2.4).
            if let s1 { step.reply = s1 }
            return step
        }
    }
}
