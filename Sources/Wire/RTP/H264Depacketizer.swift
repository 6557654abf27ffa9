/// Rebuilds NAL units from RFC 6184 payloads (single NAL unit, STAP-A, FU-A): the receiving side, used to check
/// the packetizer and by tests that look inside what we send.
public struct H264Depacketizer: Sendable {
    /// Largest NAL unit rebuilt from fragments; a longer one is dropped (a bounded buffer for hostile input).
    public static let maximumNALUnitSize = 4 * 1024 * 1024

    private var fragment: [UInt8]?

    /// Creates a depacketizer with nothing pending.
    public init() {}

    /// Takes the next payload (in sequence order) and returns the NAL units it completes.
    /// - Throws: ``RTPError`` for a truncated aggregate, an unsupported type or a fragment without its start.
    public mutating func push(_ payload: [UInt8]) throws(RTPError) -> [[UInt8]] {
        guard let first = payload.first else { throw RTPError("an empty H.264 RTP payload") }
        switch first & 0x1F {
        case 1...23:
            return [payload]
        case H264Packetizer.stapA:
            var units: [[UInt8]] = []
            var index = 1
            while index < payload.count {
                guard index + 2 <= payload.count else { throw RTPError("a STAP-A size field is cut short") }
                let size = Int(payload[index]) << 8 | Int(payload[index + 1])
                index += 2
                guard size > 0, index + size <= payload.count else {
                    throw RTPError("a STAP-A unit of \(size) bytes runs past the payload")
                }
                units.append(Array(payload[index..<index + size]))
                index += size
            }
            return units
        case H264Packetizer.fuA:
            guard payload.count >= 2 else { throw RTPError("an FU-A payload without its FU header") }
            let header = payload[1]
            if header & 0x80 != 0 {
                fragment = [first & 0xE0 | header & 0x1F]
            }
            guard var pending = fragment else { throw RTPError("an FU-A fragment without its start") }
            pending += payload[2...]
            guard pending.count <= Self.maximumNALUnitSize else {
                fragment = nil
                throw RTPError("an FU-A NAL unit larger than \(Self.maximumNALUnitSize) bytes")
            }
            if header & 0x40 != 0 {
                fragment = nil
                return [pending]
            }
            fragment = pending
            return []
        default:
            throw RTPError("H.264 RTP payload type \(first & 0x1F) is not single NAL, STAP-A or FU-A")
        }
    }
}
