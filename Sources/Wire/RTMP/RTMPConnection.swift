/// The chunk-level plumbing both session machines share after the handshake: chunk encoder and decoder,
/// acknowledgement counting, answers to pings and the pending output bytes.
struct RTMPConnection: Sendable {
    var encoder = ChunkEncoder()
    var decoder: ChunkDecoder
    var acknowledgements = AcknowledgementCounter()
    /// The window size we last announced to the peer with Window Acknowledgement Size.
    var announcedWindowSize: UInt32?
    /// Bytes to write, collected while handling one event.
    private(set) var output: [UInt8] = []

    init(limits: ChunkDecoderLimits) {
        decoder = ChunkDecoder(limits: limits)
    }

    /// Encodes a message whose payload comes from outside this module (media, metadata) into the pending output.
    /// - Throws: `.messageTooLarge` past RTMP's 24-bit length; nothing is added to the output then.
    mutating func sendPayload(_ message: RTMPMessage) throws(RTMPError) {
        output.append(contentsOf: try encoder.encode(message))
    }

    /// Encodes a message this module builds itself (a command, a status, a control message: a few hundred bytes at
    /// most) into the pending output.
    mutating func send(_ message: RTMPMessage) {
        do {
            try sendPayload(message)
        } catch {
            preconditionFailure("an RTMP message built by this module is over 16 MiB: \(error)")
        }
    }

    /// Encodes a protocol control message into the pending output.
    mutating func send(_ control: ProtocolControlMessage) {
        send(control.message())
    }

    /// Announces and switches to a new outgoing chunk size (RTMP §5.4.1).
    mutating func setOutgoingChunkSize(_ size: UInt32) {
        send(.setChunkSize(size))
        encoder.setChunkSize(size)
    }

    /// Announces our Window Acknowledgement Size (RTMP §5.4.4).
    mutating func announceWindowSize(_ size: UInt32) {
        announcedWindowSize = size
        send(.windowAcknowledgementSize(size))
    }

    /// Feeds chunk stream bytes and counts them for acknowledgements.
    mutating func receive<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        decoder.append(bytes)
        received(bytes.count)
    }

    /// Feeds chunk stream bytes lent by the driver (copied once, not a byte at a time as the generic one would).
    mutating func receive(_ buffer: UnsafeRawBufferPointer) {
        decoder.append(buffer)
        received(buffer.count)
    }

    /// Counts received bytes, acknowledging each window (RTMP §5.4.3).
    private mutating func received(_ count: Int) {
        if let sequence = acknowledgements.received(count) {
            send(.acknowledgement(sequenceNumber: sequence))
        }
    }

    /// Handles the protocol control messages that need no session decision: the peer's window size, Set Peer
    /// Bandwidth (answered with our window size, RTMP §5.4.5) and Ping Request (answered with Ping Response,
    /// RTMP §7.1.7). Set Chunk Size and Abort were applied by the decoder.
    /// - Returns: the typed control message, or nil when `message` is not a control message.
    mutating func handleControl(_ message: RTMPMessage) throws(RTMPError) -> ProtocolControlMessage? {
        guard let control = try ProtocolControlMessage(message) else { return nil }
        switch control {
        case .windowAcknowledgementSize(let size):
            acknowledgements.windowSize = size
        case .setPeerBandwidth(let size, _):
            if announcedWindowSize != size {
                announceWindowSize(size)
            }
        case .userControl(.pingRequest(let timestamp)):
            send(.userControl(.pingResponse(timestamp: timestamp)))
        case .setChunkSize, .abort, .acknowledgement, .userControl:
            break
        }
        return control
    }

    /// Takes the pending output.
    mutating func takeOutput() -> [UInt8] {
        defer { output = [] }
        return output
    }
}
