import ByteIO

/// The MPEG-4 Systems descriptors inside `esds` (ISO/IEC 14496-1 §7.2.6; placed in MP4 by ISO/IEC 14496-14 §5.6):
///
/// ```
/// ES_Descriptor (tag 3)              ES_ID 0, no stream dependence, URL or OCR stream
///   DecoderConfigDescriptor (tag 4)  objectTypeIndication 0x40 (MPEG-4 Audio), streamType 5 (audio), upStream 0
///     DecoderSpecificInfo (tag 5)    the AudioSpecificConfig
///   SLConfigDescriptor (tag 6)       predefined 2 (reserved for MP4 files)
/// ```
/// Each descriptor's size is written in the expandable form of §8.3.3: 7 bits per byte, high bit set on all but the
/// last.
enum ElementaryStreamDescriptor {
    static let esDescriptorTag: UInt8 = 0x03
    static let decoderConfigTag: UInt8 = 0x04
    static let decoderSpecificInfoTag: UInt8 = 0x05
    static let slConfigTag: UInt8 = 0x06
    /// 14496-1 Table 5: objectTypeIndication 0x40 is Audio ISO/IEC 14496-3.
    static let mpeg4AudioObjectType: UInt8 = 0x40
    /// streamType 5 (AudioStream) << 2 | upStream 0 << 1 | reserved 1.
    static let audioStreamType: UInt8 = 0x15

    /// Appends the ES_Descriptor for an AAC stream.
    static func write(audioSpecificConfig: [UInt8], into writer: inout ByteWriter) {
        let specificInfo = descriptor(decoderSpecificInfoTag, audioSpecificConfig)
        var config = ByteWriter(capacity: 13 + specificInfo.count)
        config.writeUInt8(mpeg4AudioObjectType)
        config.writeUInt8(audioStreamType)
        config.writeUInt24(0)  // bufferSizeDB: not signalled
        config.writeUInt32(0)  // maxBitrate: not known for a live stream
        config.writeUInt32(0)  // avgBitrate: variable
        config.writeBytes(specificInfo)
        var elementary = ByteWriter(capacity: 3 + config.count + 5)
        elementary.writeUInt16(0)  // ES_ID
        elementary.writeUInt8(0)  // streamDependenceFlag, URL_Flag, OCRstreamFlag, streamPriority
        elementary.writeBytes(descriptor(decoderConfigTag, config.bytes))
        elementary.writeBytes(descriptor(slConfigTag, [0x02]))
        writer.writeBytes(descriptor(esDescriptorTag, elementary.bytes))
    }

    /// A tag, its expandable size and its body.
    static func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
        var sizeBytes: [UInt8] = [UInt8(body.count & 0x7F)]
        var remaining = body.count >> 7
        while remaining > 0 {
            sizeBytes.insert(UInt8(remaining & 0x7F) | 0x80, at: 0)
            remaining >>= 7
        }
        return [tag] + sizeBytes + body
    }
}
