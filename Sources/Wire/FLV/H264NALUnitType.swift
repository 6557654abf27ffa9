/// The nal_unit_type of an H.264 NAL unit (ITU-T H.264 §7.4.1, Table 7-1): the low 5 bits of its first byte.
///
/// A struct rather than an enum so that every 5-bit value, including reserved ones, is representable.
public struct H264NALUnitType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 5-bit type value.
    public let rawValue: UInt8

    /// Creates a type from its value; bits above the low 5 are dropped.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue & 0x1F
    }

    /// The type of a NAL unit, read from its header byte; nil for an empty NAL unit.
    public init?<C: Collection>(of nalUnit: C) where C.Element == UInt8 {
        guard let header = nalUnit.first else { return nil }
        self.init(rawValue: header)
    }

    /// Coded slice of a non-IDR picture (1).
    public static let nonIDRSlice = H264NALUnitType(rawValue: 1)
    /// Coded slice of an IDR picture (5): a key frame.
    public static let idrSlice = H264NALUnitType(rawValue: 5)
    /// Supplemental enhancement information (6).
    public static let sei = H264NALUnitType(rawValue: 6)
    /// Sequence parameter set (7).
    public static let sps = H264NALUnitType(rawValue: 7)
    /// Picture parameter set (8).
    public static let pps = H264NALUnitType(rawValue: 8)
    /// Access unit delimiter (9).
    public static let accessUnitDelimiter = H264NALUnitType(rawValue: 9)
    /// End of sequence (10).
    public static let endOfSequence = H264NALUnitType(rawValue: 10)
    /// Filler data (12).
    public static let fillerData = H264NALUnitType(rawValue: 12)

    /// Whether NAL units of this type carry slices of a coded picture (types 1 to 5).
    public var isSlice: Bool { (1...5).contains(rawValue) }

    /// The type's value and, for common ones, its name.
    public var description: String {
        let names: [UInt8: String] = [1: "non-IDR slice", 5: "IDR slice", 6: "SEI", 7: "SPS", 8: "PPS",
                                      9: "AUD", 10: "end of sequence", 12: "filler"]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
