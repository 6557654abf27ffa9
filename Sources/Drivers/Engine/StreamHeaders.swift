import FLV

/// What every connection must receive before any media: the metadata and the two sequence headers. Kept by the
/// session and re-sent by each output after every (re)connect.
public struct StreamHeaders: Sendable, Hashable {
    /// The `onMetaData` properties.
    public var metadata: FLVMetadata
    /// The AVC sequence header tag (avcC), timestamp 0.
    public var videoSequenceHeader: FLVTag
    /// The AAC sequence header tag (AudioSpecificConfig), timestamp 0.
    public var audioSequenceHeader: FLVTag

    /// Creates headers.
    public init(metadata: FLVMetadata, videoSequenceHeader: FLVTag, audioSequenceHeader: FLVTag) {
        self.metadata = metadata
        self.videoSequenceHeader = videoSequenceHeader
        self.audioSequenceHeader = audioSequenceHeader
    }
}

extension StreamHeaders {
    /// The headers of an H.264 + AAC stereo stream, as both platforms' encoders describe it: `onMetaData` with the
    /// size, frame rate, bitrates and codecs (encoder "Stream"), the avcC built from the encoder's SPS and PPS, and
    /// its AudioSpecificConfig.
    /// - Parameters:
    ///   - width: the encode width in pixels.
    ///   - height: the encode height.
    ///   - framesPerSecond: the frame rate.
    ///   - videoBitrateKbps: the video bitrate asked for.
    ///   - audioBitrateKbps: the audio bitrate.
    ///   - audioSampleRate: the AAC sample rate (48 000).
    ///   - sps: the encoder's sequence parameter set (one NAL unit, no start code).
    ///   - pps: its picture parameter set.
    ///   - audioSpecificConfig: the AAC encoder's AudioSpecificConfig bytes.
    /// - Throws: `FLVError` when the parameter sets or the AudioSpecificConfig are malformed.
    public init(width: Int, height: Int, framesPerSecond: Int, videoBitrateKbps: Int, audioBitrateKbps: Int,
                audioSampleRate: Int, sps: [UInt8], pps: [UInt8], audioSpecificConfig: [UInt8]) throws(FLVError) {
        let avc = try AVCDecoderConfigurationRecord(sps: sps, pps: pps)
        let asc = try AudioSpecificConfig(parsing: audioSpecificConfig)
        self.init(
            metadata: FLVMetadata(
                width: Double(width), height: Double(height), videoDataRate: Double(videoBitrateKbps),
                frameRate: Double(framesPerSecond), videoCodecID: FLVMetadata.avcVideoCodecID,
                audioDataRate: Double(audioBitrateKbps), audioSampleRate: Double(audioSampleRate),
                audioSampleSize: 16, stereo: true, audioCodecID: FLVMetadata.aacAudioCodecID, encoder: "Stream"),
            videoSequenceHeader: FLVTag(video: .sequenceHeader(avc), timestamp: 0),
            audioSequenceHeader: FLVTag(audio: .sequenceHeader(asc), timestamp: 0))
    }

    /// The headers of an H.264 + Opus stream (for WebRTC): `onMetaData` with Opus's FourCC as the audio codec, the
    /// avcC, and an Opus sequence start carrying the OpusHead identification header.
    /// - Parameters:
    ///   - width: the encode width in pixels.
    ///   - height: the encode height.
    ///   - framesPerSecond: the frame rate.
    ///   - videoBitrateKbps: the video bitrate asked for.
    ///   - audioBitrateKbps: the audio bitrate.
    ///   - sps: the encoder's sequence parameter set.
    ///   - pps: its picture parameter set.
    ///   - opusPreSkip: the Opus encoder's lookahead in samples at 48 kHz.
    /// - Throws: `FLVError` when the parameter sets are malformed.
    public init(width: Int, height: Int, framesPerSecond: Int, videoBitrateKbps: Int, audioBitrateKbps: Int,
                sps: [UInt8], pps: [UInt8], opusPreSkip: Int) throws(FLVError) {
        let avc = try AVCDecoderConfigurationRecord(sps: sps, pps: pps)
        self.init(
            metadata: FLVMetadata(
                width: Double(width), height: Double(height), videoDataRate: Double(videoBitrateKbps),
                frameRate: Double(framesPerSecond), videoCodecID: FLVMetadata.avcVideoCodecID,
                audioDataRate: Double(audioBitrateKbps), audioSampleRate: 48_000,
                audioSampleSize: 16, stereo: true, audioCodecID: FLVOpusAudio.audioCodecID, encoder: "Stream"),
            videoSequenceHeader: FLVTag(video: .sequenceHeader(avc), timestamp: 0),
            audioSequenceHeader: FLVTag(opus: .sequenceStart(
                FLVOpusAudio.identificationHeader(channels: 2, preSkip: opusPreSkip)), timestamp: 0))
    }
}
