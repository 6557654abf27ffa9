/// H.264 over RTP (RFC 6184) in packetization mode 1: one access unit's NAL units become RTP payloads.
///
/// SPS and PPS travel together in one STAP-A (§5.7.1) ahead of the picture, a NAL unit that fits goes alone
/// (single NAL unit packet, §5.6), a larger one is split into FU-A fragments (§5.8). The caller sets the marker on
/// the last payload of the access unit (§5.1).
public struct H264Packetizer: Sendable {
    /// §5.4: NAL unit type 24 is STAP-A.
    static let stapA: UInt8 = 24
    /// §5.8: NAL unit type 28 is FU-A.
    static let fuA: UInt8 = 28
    /// H.264 Table 7-1: NAL unit types 7 (SPS) and 8 (PPS).
    static let parameterSetTypes: Set<UInt8> = [7, 8]

    /// The largest payload produced (the path MTU less IP, UDP, RTP and SRTP overhead).
    public let maximumPayloadSize: Int

    /// Creates a packetizer.
    /// - Parameter maximumPayloadSize: bytes per payload, at least 16 (default 1200, which fits every usual path).
    public init(maximumPayloadSize: Int = 1200) {
        precondition(maximumPayloadSize >= 16, "an RTP payload needs room for fragments")
        self.maximumPayloadSize = maximumPayloadSize
    }

    /// The payloads of one access unit, in sending order.
    /// - Parameter nalUnits: the access unit's NAL units without start codes (empty ones are skipped).
    /// - Returns: RTP payloads; the last one ends the picture.
    public func payloads<C: Collection>(for nalUnits: [C]) -> [[UInt8]] where C.Element == UInt8 {
        var payloads: [[UInt8]] = []
        let units: [[UInt8]] = nalUnits.compactMap { $0.isEmpty ? nil : [UInt8]($0) }
        let parameterSets = units.filter { Self.parameterSetTypes.contains($0[0] & 0x1F) }
        let aggregateSize = 1 + parameterSets.reduce(0) { $0 + 2 + $1.count }
        var aggregated = false
        if parameterSets.count > 1, aggregateSize <= maximumPayloadSize {
            // §5.7.1: F is the OR of the units' F bits, NRI their maximum.
            let forbidden = parameterSets.reduce(UInt8(0)) { $0 | ($1[0] & 0x80) }
            let nri = parameterSets.map { $0[0] & 0x60 }.max() ?? 0
            var stap: [UInt8] = [forbidden | nri | Self.stapA]
            for unit in parameterSets {
                stap += [UInt8(truncatingIfNeeded: unit.count >> 8), UInt8(truncatingIfNeeded: unit.count)] + unit
            }
            payloads.append(stap)
            aggregated = true
        }
        for unit in units {
            if aggregated && Self.parameterSetTypes.contains(unit[0] & 0x1F) { continue }
            if unit.count <= maximumPayloadSize {
                payloads.append(unit)
                continue
            }
            // §5.8: FU indicator keeps F and NRI with type 28; the FU header carries S, E and the original type.
            let indicator = unit[0] & 0xE0 | Self.fuA
            let type = unit[0] & 0x1F
            let body = unit[1...]
            let room = maximumPayloadSize - 2
            var start = body.startIndex
            while start < body.endIndex {
                let end = min(start + room, body.endIndex)
                let header = (start == body.startIndex ? 0x80 : 0) | (end == body.endIndex ? 0x40 : 0) | type
                payloads.append([indicator, header] + body[start..<end])
                start = end
            }
        }
        return payloads
    }
}
