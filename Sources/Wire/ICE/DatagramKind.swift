/// What a datagram on a WebRTC port carries, told by its first byte (RFC 7983 §7, which updates RFC 5764 §5.1.2).
public enum DatagramKind: Sendable, Hashable {
    /// STUN: first byte 0...3.
    case stun
    /// DTLS: first byte 20...63.
    case dtls
    /// RTP (SRTP): first byte 128...191 and a payload type that is not RTCP's.
    case rtp
    /// RTCP (SRTCP): first byte 128...191 and a second byte of 192...223, the RTCP packet types that rtcp-mux
    /// keeps apart from RTP payload types (RFC 5761 §4).
    case rtcp

    /// Classifies a datagram.
    /// - Parameter bytes: the datagram.
    /// - Returns: its kind, or nil for what this port never carries: empty datagrams, ZRTP (16...19), TURN
    ///   channels (64...79), QUIC and anything else outside the ranges above.
    public init?(classifying bytes: [UInt8]) {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0...3: self = .stun
        case 20...63: self = .dtls
        case 128...191:
            // RTCP needs the second byte; a one-byte "RTP packet" is nothing.
            guard bytes.count >= 2 else { return nil }
            self = (192...223).contains(bytes[1]) ? .rtcp : .rtp
        default: return nil
        }
    }
}
