/// A forwarded H.264 track's last keyframe, as the RTP packets it came in (RFC 6184), for a subscriber that joins
/// or skips ahead to start from: a subscriber's decoder can do nothing before an IDR with its SPS and PPS.
///
/// A keyframe begins with the first packet of a timestamp that carries an SPS or the start of an IDR slice (single
/// NAL, STAP-A or FU-A with the start bit) and ends at the marker bit. At most ``maximumPackets`` are kept: a larger
/// keyframe is not kept (the subscriber waits for the next one instead). Pure.
public struct H264KeyframeGate: Sendable {
    /// The most packets one keyframe may take (about 1.2 MB at 1200 bytes a packet).
    public let maximumPackets: Int
    /// The last complete keyframe's packets, in arrival order (empty until one is complete).
    public private(set) var keyframe: [[UInt8]] = []
    private var building: [[UInt8]] = []
    private var buildingTimestamp: UInt32?

    /// Creates an empty gate.
    public init(maximumPackets: Int = 1024) {
        self.maximumPackets = maximumPackets
    }

    /// Takes every packet of the track, in arrival order; true when this packet begins a new keyframe.
    @discardableResult
    public mutating func observe(_ packet: [UInt8]) -> Bool {
        guard let header = Self.header(packet) else { return false }
        let begins = header.timestamp != buildingTimestamp && Self.beginsKeyframe(packet)
        if begins {
            building = [packet]
            buildingTimestamp = header.timestamp
        } else if header.timestamp == buildingTimestamp, !building.isEmpty {
            building.append(packet)
            if building.count > maximumPackets {
                building = []
                buildingTimestamp = nil
                return false
            }
        } else {
            return false
        }
        if header.marker {
            keyframe = building
            building = []
        }
        return begins
    }

    /// Forgets the keyframe (the publisher changed).
    public mutating func reset() {
        keyframe = []
        building = []
        buildingTimestamp = nil
    }

    /// Whether an RTP packet carries an SPS or the start of an IDR slice (NAL types 7 and 5, RFC 6184 §5).
    public static func beginsKeyframe(_ packet: [UInt8]) -> Bool {
        guard let header = header(packet), header.payload < packet.count else { return false }
        let payload = header.payload
        let type = packet[payload] & 0x1f
        switch type {
        case 5, 7:
            return true
        case 24:  // STAP-A: 16-bit sizes, each followed by a NAL unit
            var offset = payload + 1
            while offset + 2 < packet.count {
                let size = Int(packet[offset]) << 8 | Int(packet[offset + 1])
                let nal = packet[offset + 2] & 0x1f
                if nal == 5 || nal == 7 { return true }
                offset += 2 + size
            }
            return false
        case 28:  // FU-A: the FU header's start bit and the fragmented NAL's type
            guard payload + 1 < packet.count else { return false }
            let fu = packet[payload + 1]
            return fu & 0x80 != 0 && (fu & 0x1f == 5 || fu & 0x1f == 7)
        default:
            return false
        }
    }

    /// The timestamp, the marker and where the payload starts (after CSRCs and an extension), or nil.
    private static func header(_ packet: [UInt8]) -> (timestamp: UInt32, marker: Bool, payload: Int)? {
        guard packet.count >= RTPPacket.headerSize, packet[0] >> 6 == RTPPacket.version else { return nil }
        var offset = RTPPacket.headerSize + 4 * Int(packet[0] & 0x0f)
        if packet[0] & 0x10 != 0 {
            guard offset + 4 <= packet.count else { return nil }
            offset += 4 + 4 * (Int(packet[offset + 2]) << 8 | Int(packet[offset + 3]))
        }
        guard offset <= packet.count else { return nil }
        let timestamp = UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
        return (timestamp, packet[1] & 0x80 != 0, offset)
    }
}
