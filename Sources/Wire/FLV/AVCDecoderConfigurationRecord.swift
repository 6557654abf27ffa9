import ByteIO

/// The H.264 decoder configuration carried in an AVC sequence header (ISO/IEC 14496-15 §5.2.4.1, "avcC").
///
/// ```
/// configurationVersion UI8 = 1, AVCProfileIndication UI8, profile_compatibility UI8, AVCLevelIndication UI8
/// reserved UB[6] = 111111, lengthSizeMinusOne UB[2]
/// reserved UB[3] = 111, numOfSequenceParameterSets UB[5], then per SPS: length UI16, NAL unit
/// numOfPictureParameterSets UI8, then per PPS: length UI16, NAL unit
/// ```
/// The High-profile extension that may follow (chroma format, bit depths) is not written and is skipped when
/// read: decoders take those values from the SPS.
public struct AVCDecoderConfigurationRecord: Sendable, Hashable {
    /// ISO/IEC 14496-15 §5.2.4.1: the only configurationVersion defined.
    public static let configurationVersion: UInt8 = 1
    /// ISO/IEC 14496-15 §5.2.4.1: numOfSequenceParameterSets is a 5-bit field.
    public static let maximumSequenceParameterSets = 31
    /// ISO/IEC 14496-15 §5.2.4.1: numOfPictureParameterSets is an 8-bit field.
    public static let maximumPictureParameterSets = 255
    /// ISO/IEC 14496-15 §5.2.4.1: parameter set lengths are 16-bit fields.
    public static let maximumParameterSetSize = 0xFFFF
    /// The NAL unit length size FLV muxers use (lengthSizeMinusOne = 3).
    public static let defaultNALUnitLengthSize = 4

    /// profile_idc, copied from SPS byte 1.
    public var profileIndication: UInt8
    /// The constraint flags byte, copied from SPS byte 2.
    public var profileCompatibility: UInt8
    /// level_idc, copied from SPS byte 3.
    public var levelIndication: UInt8
    /// Bytes in each NAL unit length prefix of the frames: 1, 2 or 4 (lengthSizeMinusOne + 1).
    public var nalUnitLengthSize: Int
    /// The sequence parameter set NAL units (with their header byte, without start codes).
    public var sequenceParameterSets: [[UInt8]]
    /// The picture parameter set NAL units (with their header byte, without start codes).
    public var pictureParameterSets: [[UInt8]]

    /// Builds a record from one SPS and one PPS, with 4-byte NAL unit lengths.
    /// - Parameters:
    ///   - sps: a sequence parameter set NAL unit (type 7), without start code.
    ///   - pps: a picture parameter set NAL unit (type 8), without start code.
    /// - Throws: `FLVError` when either is not of its type, the SPS is shorter than 4 bytes, or a set is too large.
    public init(sps: [UInt8], pps: [UInt8]) throws(FLVError) {
        try self.init(sequenceParameterSets: [sps], pictureParameterSets: [pps])
    }

    /// Builds a record from parameter sets; profile, compatibility and level come from the first SPS.
    /// - Parameters:
    ///   - sequenceParameterSets: 1 to 31 SPS NAL units (type 7), without start codes.
    ///   - pictureParameterSets: 1 to 255 PPS NAL units (type 8), without start codes.
    ///   - nalUnitLengthSize: 1, 2 or 4.
    /// - Throws: `FLVError` when a set is empty, of the wrong type or too large, or a count is out of range.
    public init(
        sequenceParameterSets: [[UInt8]],
        pictureParameterSets: [[UInt8]],
        nalUnitLengthSize: Int = defaultNALUnitLengthSize
    ) throws(FLVError) {
        guard let sps = sequenceParameterSets.first, sps.count >= 4 else {
            throw FLVError(.invalidAVCConfiguration, "need an SPS of at least 4 bytes (header, profile, "
                + "constraints, level); pass the type 7 NAL unit from the encoder's first key frame")
        }
        try Self.validate(sequenceParameterSets, type: .sps, name: "SPS",
                          maximumCount: Self.maximumSequenceParameterSets)
        try Self.validate(pictureParameterSets, type: .pps, name: "PPS",
                          maximumCount: Self.maximumPictureParameterSets)
        guard [1, 2, 4].contains(nalUnitLengthSize) else {
            throw FLVError(.invalidAVCConfiguration, "NAL unit length size \(nalUnitLengthSize) is not 1, 2 or 4")
        }
        self.profileIndication = sps[1]
        self.profileCompatibility = sps[2]
        self.levelIndication = sps[3]
        self.nalUnitLengthSize = nalUnitLengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
    }

    private static func validate(
        _ sets: [[UInt8]],
        type: H264NALUnitType,
        name: String,
        maximumCount: Int
    ) throws(FLVError) {
        guard (1...maximumCount).contains(sets.count) else {
            throw FLVError(.invalidAVCConfiguration, "\(sets.count) \(name)s, need 1...\(maximumCount)")
        }
        for set in sets {
            guard let actual = H264NALUnitType(of: set), actual == type else {
                throw FLVError(.invalidAVCConfiguration, "a \(name) must be a NAL unit of type \(type.rawValue), "
                    + "got \(H264NALUnitType(of: set).map(\.description) ?? "an empty one")")
            }
            guard set.count <= maximumParameterSetSize else {
                throw FLVError(.invalidAVCConfiguration, "\(name) of \(set.count) bytes exceeds the 16-bit "
                    + "length field")
            }
        }
    }

    /// The encoded record.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        writer.writeUInt8(Self.configurationVersion)
        writer.writeUInt8(profileIndication)
        writer.writeUInt8(profileCompatibility)
        writer.writeUInt8(levelIndication)
        writer.writeUInt8(0xFC | UInt8(truncatingIfNeeded: nalUnitLengthSize - 1) & 0x03)
        writer.writeUInt8(0xE0 | UInt8(truncatingIfNeeded: sequenceParameterSets.count) & 0x1F)
        for sps in sequenceParameterSets {
            writer.writeUInt16(UInt16(truncatingIfNeeded: sps.count))
            writer.writeBytes(sps)
        }
        writer.writeUInt8(UInt8(truncatingIfNeeded: pictureParameterSets.count))
        for pps in pictureParameterSets {
            writer.writeUInt16(UInt16(truncatingIfNeeded: pps.count))
            writer.writeBytes(pps)
        }
        return writer.bytes
    }

    /// Parses a record, e.g. the data of an AVC sequence header tag.
    /// - Parameter bytes: the complete record; bytes after the picture parameter sets are ignored.
    /// - Throws: `FLVError` when the version is not 1, the length size is 3, a count is 0 or a length runs past
    ///   the end.
    public init<C: Collection>(parsing bytes: C) throws(FLVError) where C.Element == UInt8 {
        var reader = ByteReader(bytes)
        guard let version = reader.readUInt8(),
              let profile = reader.readUInt8(),
              let compatibility = reader.readUInt8(),
              let level = reader.readUInt8(),
              let lengthByte = reader.readUInt8(),
              let spsCountByte = reader.readUInt8()
        else {
            throw FLVError(.invalidAVCConfiguration, "record of \(bytes.count) bytes is shorter than its 6-byte "
                + "header; the sequence header is corrupt")
        }
        guard version == Self.configurationVersion else {
            throw FLVError(.invalidAVCConfiguration, "configurationVersion \(version), expected 1")
        }
        let lengthSize = Int(lengthByte & 0x03) + 1
        guard lengthSize != 3 else {
            throw FLVError(.invalidAVCConfiguration, "lengthSizeMinusOne 2 (3-byte lengths) is not allowed")
        }
        let sequenceParameterSets = try Self.readSets(count: Int(spsCountByte & 0x1F), name: "SPS", from: &reader)
        guard let ppsCount = reader.readUInt8() else {
            throw FLVError(.invalidAVCConfiguration, "record ends before numOfPictureParameterSets")
        }
        let pictureParameterSets = try Self.readSets(count: Int(ppsCount), name: "PPS", from: &reader)
        guard !sequenceParameterSets.isEmpty, !pictureParameterSets.isEmpty else {
            throw FLVError(.invalidAVCConfiguration, "record holds \(sequenceParameterSets.count) SPS and "
                + "\(pictureParameterSets.count) PPS; a decoder needs at least one of each")
        }
        self.profileIndication = profile
        self.profileCompatibility = compatibility
        self.levelIndication = level
        self.nalUnitLengthSize = lengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
    }

    private static func readSets(
        count: Int,
        name: String,
        from reader: inout ByteReader
    ) throws(FLVError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        sets.reserveCapacity(count)
        for index in 0..<count {
            guard let length = reader.readUInt16() else {
                throw FLVError(.invalidAVCConfiguration, "record ends before the length of \(name) \(index)")
            }
            guard length > 0, let set = reader.readBytes(Int(length)) else {
                throw FLVError(.invalidAVCConfiguration, "\(name) \(index) claims \(length) bytes but "
                    + "\(reader.readableBytes) remain (an empty set is invalid too)")
            }
            sets.append(set)
        }
        return sets
    }
}
