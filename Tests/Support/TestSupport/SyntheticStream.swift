import FLV
import Foundation

/// FLV tags of a made-up live stream: H.264-shaped frames (not decodable; the packager never decodes) at a fixed
/// frame rate with a keyframe every `groupFrames`, and AAC frames at 48 kHz, interleaved by timestamp as an RTMP
/// publisher sends them.
public struct SyntheticStream: Sendable {
    /// The avcC of x264's 640x360 High profile SPS and its PPS.
    public static let avcC: [UInt8] = [
        0x01, 0x64, 0x00, 0x1E, 0xFF, 0xE1, 0x00, 0x1A, 0x67, 0x64, 0x00, 0x1E, 0xAC, 0xD9, 0x40, 0xA0, 0x2F, 0xF9,
        0x70, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x03, 0x00, 0x3C, 0x0F, 0x16, 0x2D, 0x96, 0x01, 0x00,
        0x06, 0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0,
    ]
    /// The avcC of x264's 1280x720 Baseline SPS and its PPS: a different source.
    public static let otherAVCC: [UInt8] = [
        0x01, 0x42, 0xC0, 0x1F, 0xFF, 0xE1, 0x00, 0x19, 0x67, 0x42, 0xC0, 0x1F, 0xD9, 0x00, 0x50, 0x05, 0xBB, 0x01,
        0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x24, 0x80, 0x01, 0x00, 0x05,
        0x68, 0xCB, 0x83, 0xCB, 0x20,
    ]

    public var framesPerSecond = 30
    public var groupFrames = 60
    public var hasVideo = true
    public var hasAudio = true
    public var startMilliseconds: UInt32 = 0
    public var frameBytes = 200
    public var avc = SyntheticStream.avcC

    /// A 30 fps stream with a keyframe every 2 s and 48 kHz audio.
    public init() {}

    /// The sequence headers a publisher sends first.
    public var headers: [FLVTag] {
        var tags: [FLVTag] = []
        if hasVideo {
            tags.append(FLVTag(type: .video, timestamp: startMilliseconds,
                               body: FLVVideoTagBody(frameType: .keyFrame, packetType: .sequenceHeader,
                                                     data: avc).encode()))
        }
        if hasAudio {
            tags.append(FLVTag(audio: .sequenceHeader(AudioSpecificConfig(sampleRate: 48_000,
                                                                           channelConfiguration: 2)),
                               timestamp: startMilliseconds))
        }
        return tags
    }

    /// The millisecond timestamp of video frame `index`.
    public func videoTime(_ index: Int) -> UInt32 {
        startMilliseconds + UInt32((index * 1000 + framesPerSecond / 2) / framesPerSecond)
    }

    /// Video frame `index`: a keyframe every `groupFrames`; its first payload bytes carry the index.
    public func videoFrame(_ index: Int, keyframe: Bool? = nil) -> FLVTag {
        let isKey = keyframe ?? (index % groupFrames == 0)
        var nal: [UInt8] = [isKey ? 0x65 : 0x41, UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)]
        nal += [UInt8](repeating: 0x5A, count: max(frameBytes - 7, 0))
        let payload = [UInt8(nal.count >> 24 & 0xFF), UInt8(nal.count >> 16 & 0xFF), UInt8(nal.count >> 8 & 0xFF),
                       UInt8(nal.count & 0xFF)] + nal
        return FLVTag(video: .frame(payload, isKeyFrame: isKey), timestamp: videoTime(index))
    }

    /// AAC frame `index` (1024 samples at 48 kHz).
    public func audioFrame(_ index: Int) -> FLVTag {
        FLVTag(audio: .frame([0x21, 0x10, UInt8(index & 0xFF)]),
               timestamp: startMilliseconds + UInt32(index * 1024 * 1000 / 48_000))
    }

    /// Every media tag with a timestamp below `milliseconds` (relative to the start), in timestamp order.
    public func media(milliseconds: Int) -> [FLVTag] {
        var tags: [FLVTag] = []
        var video = 0
        var audio = 0
        let end = startMilliseconds + UInt32(milliseconds)
        while true {
            let nextVideo = hasVideo && videoTime(video) < end ? videoTime(video) : nil
            let nextAudio = hasAudio && audioFrame(audio).timestamp < end ? audioFrame(audio).timestamp : nil
            if let audioTime = nextAudio, nextVideo.map({ audioTime < $0 }) ?? true {
                tags.append(audioFrame(audio))
                audio += 1
            } else if nextVideo != nil {
                tags.append(videoFrame(video))
                video += 1
            } else {
                return tags
            }
        }
    }
}

/// Reading a whole FLV file into tags.
public enum FLVTags {
    /// The tags of the file at `path`.
    /// - Throws: what FLVReader throws, or a failure when the file ends inside a tag.
    public static func of(_ path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        guard reader.bufferedByteCount == 0 else {
            throw Subprocess.Failure(description: "\(path) ends inside a tag (\(reader.bufferedByteCount) bytes left)")
        }
        return tags
    }
}
