import ByteIO

/// An RTP packet (RFC 3550 §5.1): the fixed header and the payload (no CSRCs or extensions are written; received
/// ones are skipped).
public struct RTPPacket: Sendable, Hashable {
    /// RFC 3550 §5.1: version 2.
    public static let version: UInt8 = 2
    /// The fixed header is 12 bytes.
    public static let headerSize = 12

    /// Payload type (7 bits).
    public var payloadType: UInt8
    /// Marks the last packet of a video frame (RFC 6184 §5.1) or the first of a talkspurt.
    public var marker: Bool
    /// Sequence number, +1 per packet, wrapping.
    public var sequenceNumber: UInt16
    /// Sampling instant in the payload's clock (90 kHz video, 48 kHz Opus).
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// The payload.
    public var payload: [UInt8]

    /// Creates a packet.
    public init(payloadType: UInt8, marker: Bool, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                payload: [UInt8]) {
        self.payloadType = payloadType & 0x7F
        self.marker = marker
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.payload = payload
    }

    /// Reads a packet.
    /// - Throws: ``RTPError`` for a wrong version, or a header, CSRC list, extension or padding past the end.
    public init(decoding bytes: [UInt8]) throws(RTPError) {
        var reader = ByteReader(bytes)
        guard let first = reader.readUInt8(), let second = reader.readUInt8(), let sequence = reader.readUInt16(),
              let timestamp = reader.readUInt32(), let ssrc = reader.readUInt32() else {
            throw RTPError("an RTP packet needs a 12-byte header, got \(bytes.count) bytes")
        }
        guard first >> 6 == Self.version else { throw RTPError("RTP version \(first >> 6), expected 2") }
        guard reader.skip(Int(first & 0x0F) * 4) else { throw RTPError("the RTP CSRC list runs past the packet") }
        if first & 0x10 != 0 {
            guard reader.skip(2), let words = reader.readUInt16(), reader.skip(Int(words) * 4) else {
                throw RTPError("the RTP header extension runs past the packet")
            }
        }
        var end = bytes.count
        if first & 0x20 != 0 {
            let padding = Int(bytes[bytes.count - 1])
            guard padding >= 1, padding <= reader.readableBytes else { throw RTPError("bad RTP padding length") }
            end -= padding
        }
        self.init(payloadType: second & 0x7F, marker: second & 0x80 != 0, sequenceNumber: sequence,
                  timestamp: timestamp, ssrc: ssrc, payload: Array(bytes[reader.readerIndex..<end]))
    }

    /// The packet's bytes.
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.headerSize + payload.count)
        writer.writeUInt8(Self.version << 6)
        writer.writeUInt8((marker ? 0x80 : 0) | payloadType)
        writer.writeUInt16(sequenceNumber)
        writer.writeUInt32(timestamp)
        writer.writeUInt32(ssrc)
        writer.writeBytes(payload)
        return writer.bytes
    }

    /// The sequence number of a packet's header, read in place (the caller checked ``headerSize`` bytes).
    public static func sequenceNumber(of packet: [UInt8]) -> UInt16 {
        UInt16(packet[2]) << 8 | UInt16(packet[3])
    }

    /// The RTP timestamp of a packet's header, read in place.
    public static func timestamp(of packet: [UInt8]) -> UInt32 {
        UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
    }

    /// The SSRC of a packet's header, read in place.
    public static func ssrc(of packet: [UInt8]) -> UInt32 {
        UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
    }

    /// RFC 5761 §4 and RFC 7983: on a muxed port, RTCP has packet types 192...223 where RTP has marker+payload type;
    /// true when the second byte says RTCP.
    public static func isRTCP<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8, C.Index == Int {
        guard bytes.count >= 2 else { return false }
        let type = bytes[bytes.startIndex + 1]
        return (192...223).contains(type)
    }
}
