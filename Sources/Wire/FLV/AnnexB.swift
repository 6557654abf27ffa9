import ByteIO

/// Conversion between H.264 Annex B byte streams (start codes, as encoders such as x264 emit them) and the
/// length-prefixed NAL units ("AVCC") that FLV and MP4 carry (ITU-T H.264 Annex B; ISO/IEC 14496-15 §5.3.4.2).
public enum AnnexB {
    /// The 4-byte start code written when converting back to Annex B.
    public static let startCode: [UInt8] = [0x00, 0x00, 0x00, 0x01]

    /// Splits an Annex B byte stream into NAL units, without their start codes.
    ///
    /// Both 3-byte (`00 00 01`) and 4-byte (`00 00 00 01`) start codes are recognised. Bytes before the first start
    /// code and trailing zero bytes of each NAL unit (H.264 §B.1.1 trailing_zero_8bits) are dropped, so are empty
    /// NAL units. Emulation prevention bytes are kept: the units are still escaped.
    /// - Parameter stream: Annex B bytes, e.g. one encoded frame.
    /// - Returns: the NAL units as slices of `stream`.
    public static func split(_ stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var unitStart: Int?
        var index = 0
        while index + 2 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1 {
                if let start = unitStart {
                    appendTrimmed(stream[start..<index], to: &units)
                }
                index += 3
                unitStart = index
            } else if stream[index + 2] > 1 {
                // A start code ends in 01 after two zeros, so none can begin at index, index + 1 or index + 2.
                index += 3
            } else {
                index += 1
            }
        }
        if let start = unitStart {
            appendTrimmed(stream[start...], to: &units)
        }
        return units
    }

    private static func appendTrimmed(_ unit: ArraySlice<UInt8>, to units: inout [ArraySlice<UInt8>]) {
        var end = unit.endIndex
        while end > unit.startIndex, unit[end - 1] == 0 {
            end -= 1
        }
        if end > unit.startIndex {
            units.append(unit[unit.startIndex..<end])
        }
    }

    /// Converts an Annex B byte stream to NAL units each prefixed with its 4-byte big-endian length, the payload of
    /// an AVC video tag.
    /// - Parameter stream: Annex B bytes, e.g. one encoded frame.
    public static func lengthPrefixed(_ stream: [UInt8]) -> [UInt8] {
        lengthPrefixed(nalUnits: split(stream))
    }

    /// Prefixes each NAL unit with its 4-byte big-endian length and concatenates them.
    /// - Parameter nalUnits: NAL units without start codes.
    public static func lengthPrefixed<C: Collection>(nalUnits: [C]) -> [UInt8] where C.Element == UInt8 {
        var writer = ByteWriter(capacity: nalUnits.reduce(0) { $0 + 4 + $1.count })
        for unit in nalUnits {
            writer.writeUInt32(UInt32(truncatingIfNeeded: unit.count))
            writer.writeBytes(unit)
        }
        return writer.bytes
    }

    /// Splits length-prefixed NAL units (the payload of an AVC video tag).
    /// - Parameters:
    ///   - payload: the NAL units, each after a big-endian length.
    ///   - lengthSize: bytes per length: 1, 2 or 4 (from the AVCDecoderConfigurationRecord).
    /// - Returns: the NAL units as slices of `payload`.
    /// - Throws: `FLVError` when a length runs past the end or `lengthSize` is not 1, 2 or 4.
    public static func splitLengthPrefixed(
        _ payload: [UInt8],
        lengthSize: Int = AVCDecoderConfigurationRecord.defaultNALUnitLengthSize
    ) throws(FLVError) -> [ArraySlice<UInt8>] {
        guard [1, 2, 4].contains(lengthSize) else {
            throw FLVError(.invalidNALUnits, "NAL unit length size \(lengthSize) is not 1, 2 or 4")
        }
        var units: [ArraySlice<UInt8>] = []
        var reader = ByteReader(payload)
        while !reader.isAtEnd {
            guard let length = reader.getUInt(at: reader.readerIndex, width: lengthSize), reader.skip(lengthSize)
            else {
                throw FLVError(.invalidNALUnits, "\(reader.readableBytes) bytes left where a \(lengthSize)-byte "
                    + "NAL unit length was expected; the frame is corrupt")
            }
            guard length <= UInt64(reader.readableBytes), let unit = reader.readSlice(Int(length)) else {
                throw FLVError(.invalidNALUnits, "NAL unit claims \(length) bytes but \(reader.readableBytes) "
                    + "remain; the frame is corrupt")
            }
            units.append(unit)
        }
        return units
    }

    /// Converts length-prefixed NAL units back to an Annex B byte stream with 4-byte start codes.
    /// - Parameters:
    ///   - payload: the NAL units, each after a big-endian length.
    ///   - lengthSize: bytes per length: 1, 2 or 4.
    /// - Throws: `FLVError` when a length runs past the end.
    public static func fromLengthPrefixed(
        _ payload: [UInt8],
        lengthSize: Int = AVCDecoderConfigurationRecord.defaultNALUnitLengthSize
    ) throws(FLVError) -> [UInt8] {
        let units = try splitLengthPrefixed(payload, lengthSize: lengthSize)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(units.reduce(0) { $0 + startCode.count + $1.count })
        for unit in units {
            bytes.append(contentsOf: startCode)
            bytes.append(contentsOf: unit)
        }
        return bytes
    }

    /// The first SPS (type 7) and first PPS (type 8) in an Annex B byte stream, e.g. an x264 key frame.
    /// - Returns: both, or nil when either is missing.
    public static func parameterSets(in stream: [UInt8]) -> (sps: [UInt8], pps: [UInt8])? {
        var sps: [UInt8]?
        var pps: [UInt8]?
        for unit in split(stream) {
            let type = H264NALUnitType(of: unit)
            if type == .sps, sps == nil {
                sps = Array(unit)
            } else if type == .pps, pps == nil {
                pps = Array(unit)
            }
        }
        guard let sps, let pps else { return nil }
        return (sps, pps)
    }
}
