/// Building tags from typed bodies, and cheap peeks at a body's first bytes without parsing it.
extension FLVTag {
    /// A video tag.
    /// - Parameters:
    ///   - body: the AVC video body.
    ///   - timestamp: decoding timestamp in milliseconds.
    public init(video body: FLVVideoTagBody, timestamp: UInt32) {
        self.init(type: .video, timestamp: timestamp, body: body.encode())
    }

    /// An audio tag.
    /// - Parameters:
    ///   - body: the AAC audio body.
    ///   - timestamp: timestamp in milliseconds.
    public init(audio body: FLVAudioTagBody, timestamp: UInt32) {
        self.init(type: .audio, timestamp: timestamp, body: body.encode())
    }

    /// An `onMetaData` script data tag (without `@setDataFrame`), at timestamp 0.
    public init(metadata: FLVMetadata) {
        self.init(type: .scriptData, timestamp: 0, body: metadata.encode())
    }

    /// Whether this is a video tag whose FrameType is key frame (a point where a player can start).
    public var isVideoKeyFrame: Bool {
        guard type == .video, let first = body.first else { return false }
        return first >> 4 == FLVVideoFrameType.keyFrame.rawValue
    }

    /// Whether this is an AVC or AAC sequence header, or an Opus sequence start (decoder configuration), which a
    /// relay must keep and replay to every new player.
    public var isSequenceHeader: Bool {
        guard body.count >= 2 else { return false }
        switch type {
        case .video:
            return body[0] & 0x8F == FLVVideoTagBody.avcCodecID && body[1] == AVCPacketType.sequenceHeader.rawValue
        case .audio:
            if body[0] >> 4 == FLVOpusAudio.exHeaderSoundFormat {
                return body[0] & 0x0F == FLVOpusAudio.sequenceStart
            }
            return body[0] >> 4 == FLVAudioTagBody.aacSoundFormat && body[1] == AACPacketType.sequenceHeader.rawValue
        case .scriptData:
            return false
        }
    }
}
