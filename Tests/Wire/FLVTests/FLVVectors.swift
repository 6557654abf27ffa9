/// Byte vectors shared by the FLV tests, each field commented (FLV spec v10.1 §E.2-§E.4).
enum FLVVectors {
    /// A file header announcing audio and video, then PreviousTagSize0.
    static let fileHeader: [UInt8] = [
        0x46, 0x4C, 0x56,        // signature "FLV"
        0x01,                    // version 1
        0x05,                    // flags: audio (0x04) | video (0x01)
        0x00, 0x00, 0x00, 0x09,  // DataOffset 9
        0x00, 0x00, 0x00, 0x00,  // PreviousTagSize0
    ]

    /// A script data tag with a 3-byte body, then its PreviousTagSize.
    static let scriptTag: [UInt8] = [
        0x12,                    // tag type 18: script data
        0x00, 0x00, 0x03,        // DataSize 3
        0x00, 0x00, 0x00,        // Timestamp 0
        0x00,                    // TimestampExtended 0
        0x00, 0x00, 0x00,        // StreamID 0
        0x05, 0x05, 0x05,        // body: three AMF0 nulls
        0x00, 0x00, 0x00, 0x0E,  // PreviousTagSize 14 = 11 + 3
    ]

    /// An AVC inter frame tag at 0x01_000021 ms (needs the extended timestamp byte), CTS -2 ms.
    static let videoTag: [UInt8] = [
        0x09,                    // tag type 9: video
        0x00, 0x00, 0x0B,        // DataSize 11
        0x00, 0x00, 0x21,        // Timestamp bits 23...0: 0x000021
        0x01,                    // TimestampExtended bits 31...24: 0x01
        0x00, 0x00, 0x00,        // StreamID 0
        0x27,                    // frame type 2 (inter) << 4 | codec id 7 (AVC)
        0x01,                    // AVCPacketType 1: NALU
        0xFF, 0xFF, 0xFE,        // CompositionTime SI24 -2
        0x00, 0x00, 0x00, 0x01,  // NAL unit length 1
        0x41,                    // NAL header: nal_ref_idc 2, type 1 (non-IDR slice)
        0x9A,                    // one byte of slice data
        0x00, 0x00, 0x00, 0x16,  // PreviousTagSize 22 = 11 + 11
    ]

    /// An AAC raw frame tag at 23 ms.
    static let audioTag: [UInt8] = [
        0x08,                    // tag type 8: audio
        0x00, 0x00, 0x04,        // DataSize 4
        0x00, 0x00, 0x17,        // Timestamp 23
        0x00,                    // TimestampExtended 0
        0x00, 0x00, 0x00,        // StreamID 0
        0xAF,                    // sound format 10 (AAC), 44 kHz, 16-bit, stereo
        0x01,                    // AACPacketType 1: raw
        0x21, 0x10,              // two bytes of AAC frame
        0x00, 0x00, 0x00, 0x0F,  // PreviousTagSize 15 = 11 + 4
    ]

    /// The whole file: header and three tags.
    static let file = fileHeader + scriptTag + videoTag + audioTag

    /// The tags `file` holds.
    static let tags: [FLVTagValues] = [
        FLVTagValues(type: 18, timestamp: 0, body: [0x05, 0x05, 0x05]),
        FLVTagValues(type: 9, timestamp: 0x0100_0021,
                     body: [0x27, 0x01, 0xFF, 0xFF, 0xFE, 0x00, 0x00, 0x00, 0x01, 0x41, 0x9A]),
        FLVTagValues(type: 8, timestamp: 23, body: [0xAF, 0x01, 0x21, 0x10]),
    ]

    /// A real x264 High profile level 3.1 SPS (1280x720) and its PPS.
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00,
                               0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC8, 0xF1, 0x83, 0x19, 0x60]
    static let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
}

/// Expected tag fields, kept independent of the module's types so a vector cannot agree with itself.
struct FLVTagValues: Equatable, Sendable {
    var type: UInt8
    var timestamp: UInt32
    var body: [UInt8]
}
