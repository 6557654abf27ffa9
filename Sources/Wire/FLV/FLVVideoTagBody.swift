import ByteIO

/// The body of an AVC video tag (FLV spec v10.1 §E.4.3.1, VIDEODATA with AVCVIDEOPACKET).
///
/// ```
/// FrameType UB[4], CodecID UB[4] = 7 (AVC)
/// AVCPacketType UI8, CompositionTime SI24 (0 unless AVCPacketType == 1)
/// Data: AVCDecoderConfigurationRecord | length-prefixed NAL units | empty
/// ```
public struct FLVVideoTagBody: Sendable, Hashable {
    /// CodecID 7: AVC (H.264), the only video codec this module handles.
    public static let avcCodecID: UInt8 = 7
    /// The size of the fixed fields before `data`.
    public static let headerSize = 5
    /// The range of a signed 24-bit composition time offset (SI24).
    public static let compositionTimeRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// Whether this is a key frame or an inter frame.
    public var frameType: FLVVideoFrameType
    /// What `data` holds.
    public var packetType: AVCPacketType
    /// Composition time offset in milliseconds: CTS = PTS - DTS (the tag timestamp is the DTS).
    /// Encoding clamps it to `compositionTimeRange`.
    public var compositionTime: Int32
    /// The payload after the fixed fields.
    public var data: [UInt8]

    /// Creates a video tag body.
    public init(frameType: FLVVideoFrameType, packetType: AVCPacketType, compositionTime: Int32 = 0, data: [UInt8]) {
        self.frameType = frameType
        self.packetType = packetType
        self.compositionTime = compositionTime
        self.data = data
    }

    /// A sequence header carrying the decoder configuration; send it before the first frame.
    public static func sequenceHeader(_ configuration: AVCDecoderConfigurationRecord) -> FLVVideoTagBody {
        FLVVideoTagBody(frameType: .keyFrame, packetType: .sequenceHeader, data: configuration.encode())
    }

    /// A coded frame.
    /// - Parameters:
    ///   - lengthPrefixedNALUnits: the access unit as 4-byte length-prefixed NAL units (see `AnnexB`).
    ///   - isKeyFrame: whether the access unit is an IDR picture.
    ///   - compositionTime: PTS - DTS in milliseconds.
    public static func frame(
        _ lengthPrefixedNALUnits: [UInt8],
        isKeyFrame: Bool,
        compositionTime: Int32 = 0
    ) -> FLVVideoTagBody {
        FLVVideoTagBody(frameType: isKeyFrame ? .keyFrame : .interFrame, packetType: .nalu,
                        compositionTime: compositionTime, data: lengthPrefixedNALUnits)
    }

    /// The end-of-sequence marker sent when a stream stops.
    public static let endOfSequence = FLVVideoTagBody(frameType: .keyFrame, packetType: .endOfSequence, data: [])

    /// Whether this body is a key frame.
    public var isKeyFrame: Bool { frameType == .keyFrame }

    /// The encoded body bytes.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.headerSize + data.count)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the encoded body.
    public func encode(into writer: inout ByteWriter) {
        let clamped = min(max(compositionTime, Self.compositionTimeRange.lowerBound),
                          Self.compositionTimeRange.upperBound)
        writer.writeUInt8(frameType.rawValue << 4 | Self.avcCodecID)
        writer.writeUInt8(packetType.rawValue)
        writer.writeUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        writer.writeBytes(data)
    }

    /// Parses a video tag body.
    /// - Parameter body: a complete video tag body.
    /// - Throws: `FLVError` when the codec is not AVC or the fixed fields are short or undefined.
    public init(parsing body: [UInt8]) throws(FLVError) {
        var reader = ByteReader(body)
        guard let first = reader.readUInt8() else {
            throw FLVError(.invalidTagBody, "video tag body is empty; the stream is corrupt")
        }
        // Enhanced RTMP sets the top bit (IsExHeader) and carries a FourCC instead of a CodecID.
        guard first & 0x80 == 0, first & 0x0F == Self.avcCodecID else {
            throw FLVError(.unsupportedCodec, "video header byte 0x\(hex(first)) is not AVC (codec id 7); "
                + "send H.264 video")
        }
        guard let frameType = FLVVideoFrameType(rawValue: first >> 4) else {
            throw FLVError(.invalidTagBody, "video frame type \(first >> 4) is undefined; the stream is corrupt")
        }
        guard let packetByte = reader.readUInt8(), let rawTime = reader.readUInt24() else {
            throw FLVError(.invalidTagBody, "AVC video tag body of \(body.count) bytes is shorter than its "
                + "\(Self.headerSize)-byte header; the stream is corrupt")
        }
        guard let packetType = AVCPacketType(rawValue: packetByte) else {
            throw FLVError(.invalidTagBody, "AVC packet type \(packetByte) is undefined; the stream is corrupt")
        }
        // Sign-extend SI24 by shifting it into the top of an Int32 and back.
        let compositionTime = Int32(bitPattern: rawTime << 8) >> 8
        self.init(frameType: frameType, packetType: packetType, compositionTime: compositionTime,
                  data: reader.readRemaining())
    }
}
