/// Splits an H.264 Annex B byte stream into NAL units, independently of the encoder under test.
enum AnnexB {
    /// NAL unit types (ITU-T H.264 Table 7-1).
    static let sliceNonIDR: UInt8 = 1
    static let sliceIDR: UInt8 = 5
    static let sps: UInt8 = 7
    static let pps: UInt8 = 8

    /// The NAL units (header byte first, start codes removed) in `bytes`.
    static func nalUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [(codeStart: Int, payload: Int)] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                let codeStart = index > 0 && bytes[index - 1] == 0 ? index - 1 : index
                starts.append((codeStart, index + 3))
                index += 3
            } else {
                index += 1
            }
        }
        return starts.indices.map { position in
            let end = position + 1 < starts.count ? starts[position + 1].codeStart : bytes.count
            return bytes[starts[position].payload..<end]
        }
    }

    /// The `nal_unit_type` (low 5 bits of the header byte) of each NAL unit in `bytes`.
    static func nalTypes(_ bytes: [UInt8]) -> [UInt8] {
        nalUnits(bytes).compactMap { $0.first.map { $0 & 0x1F } }
    }
}
