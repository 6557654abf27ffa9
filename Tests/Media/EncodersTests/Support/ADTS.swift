/// Wraps raw AAC frames in ADTS headers (ISO 14496-3 §1.A.2.2) so ffmpeg can read them from a plain `.aac` file.
/// The header fields come from the AudioSpecificConfig, parsed here independently of the encoder.
struct ADTS {
    let objectType: UInt8
    let frequencyIndex: UInt8
    let channelConfiguration: UInt8

    /// Reads the first two bytes of an AudioSpecificConfig (ISO 14496-3 §1.6.2.1): 5 bits audioObjectType,
    /// 4 bits samplingFrequencyIndex, 4 bits channelConfiguration.
    init?(audioSpecificConfig asc: [UInt8]) {
        guard asc.count >= 2 else { return nil }
        objectType = asc[0] >> 3
        frequencyIndex = (asc[0] & 0x07) << 1 | asc[1] >> 7
        channelConfiguration = (asc[1] >> 3) & 0x0F
    }

    /// One frame with its 7-byte header (no CRC).
    func wrap(_ frame: [UInt8]) -> [UInt8] {
        let length = frame.count + 7  // aac_frame_length counts the header too
        let header: [UInt8] = [
            0xFF,                                         // syncword 0xFFF (high 8 bits)
            0xF1,                                         // syncword low 4 bits, ID 0 (MPEG-4), layer 0, no CRC
            (objectType - 1) << 6 | frequencyIndex << 2 | channelConfiguration >> 2,  // profile, rate, channels
            (channelConfiguration & 0x03) << 6 | UInt8(truncatingIfNeeded: length >> 11),  // channels, length
            UInt8(truncatingIfNeeded: length >> 3),       // length, middle 8 bits
            UInt8(truncatingIfNeeded: length & 0x07) << 5 | 0x1F,  // length low 3 bits, buffer fullness 0x7FF
            0xFC,                                         // buffer fullness low bits, 1 raw data block
        ]
        return header + frame
    }
}
