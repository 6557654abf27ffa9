import ByteIO

/// The body of an AAC audio tag (FLV spec v10.1 §E.4.2.1, AUDIODATA with AACAUDIODATA).
///
/// ```
/// SoundFormat UB[4] = 10 (AAC), SoundRate UB[2] = 3, SoundSize UB[1] = 1, SoundType UB[1] = 1  → 0xAF
/// AACPacketType UI8
/// Data: AudioSpecificConfig | raw AAC frame
/// ```
/// For AAC the rate, size and type bits carry no information (the AudioSpecificConfig does), so the spec fixes
/// them; they are written as 0xAF and ignored when read.
public struct FLVAudioTagBody: Sendable, Hashable {
    /// SoundFormat 10: AAC, the only audio codec this module handles.
    public static let aacSoundFormat: UInt8 = 10
    /// The first body byte for AAC: format 10, 44 kHz, 16-bit, stereo.
    public static let aacHeaderByte: UInt8 = 0xAF
    /// The size of the fixed fields before `data`.
    public static let headerSize = 2

    /// What `data` holds.
    public var packetType: AACPacketType
    /// The payload after the fixed fields.
    public var data: [UInt8]

    /// Creates an audio tag body.
    public init(packetType: AACPacketType, data: [UInt8]) {
        self.packetType = packetType
        self.data = data
    }

    /// A sequence header carrying the AudioSpecificConfig; send it before the first frame.
    public static func sequenceHeader(_ configuration: AudioSpecificConfig) -> FLVAudioTagBody {
        FLVAudioTagBody(packetType: .sequenceHeader, data: configuration.encode())
    }

    /// A raw AAC frame.
    public static func frame(_ rawAAC: [UInt8]) -> FLVAudioTagBody {
        FLVAudioTagBody(packetType: .raw, data: rawAAC)
    }

    /// The encoded body bytes.
    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.headerSize + data.count)
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the encoded body.
    public func encode(into writer: inout ByteWriter) {
        writer.writeUInt8(Self.aacHeaderByte)
        writer.writeUInt8(packetType.rawValue)
        writer.writeBytes(data)
    }

    /// Parses an audio tag body.
    /// - Parameter body: a complete audio tag body.
    /// - Throws: `FLVError` when the format is not AAC or the fixed fields are short or undefined.
    public init(parsing body: [UInt8]) throws(FLVError) {
        var reader = ByteReader(body)
        guard let first = reader.readUInt8() else {
            throw FLVError(.invalidTagBody, "audio tag body is empty; the stream is corrupt")
        }
        guard first >> 4 == Self.aacSoundFormat else {
            throw FLVError(.unsupportedCodec, "audio sound format \(first >> 4) is not AAC (10); send AAC audio")
        }
        guard let packetByte = reader.readUInt8() else {
            throw FLVError(.invalidTagBody, "AAC audio tag body has no packet type byte; the stream is corrupt")
        }
        guard let packetType = AACPacketType(rawValue: packetByte) else {
            throw FLVError(.invalidTagBody, "AAC packet type \(packetByte) is undefined; the stream is corrupt")
        }
        self.init(packetType: packetType, data: reader.readRemaining())
    }
}
