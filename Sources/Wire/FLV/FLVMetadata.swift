import AMF
import ByteIO

/// The stream description carried in an `onMetaData` script data tag (FLV spec v10.1 §E.5).
///
/// The body is the AMF0 string `onMetaData` followed by an ECMA array of the properties that are set. Every
/// property is optional; parsing keeps the known keys it finds with the expected type and ignores the rest.
public struct FLVMetadata: Sendable, Hashable {
    /// The name of the script data handler.
    public static let handlerName = "onMetaData"
    /// The RTMP data message handler that asks a server to store the metadata for later players.
    public static let setDataFrameName = "@setDataFrame"
    /// `videocodecid` for AVC (H.264).
    public static let avcVideoCodecID: Double = 7
    /// `audiocodecid` for AAC.
    public static let aacAudioCodecID: Double = 10

    /// `duration`: seconds (0 for a live stream).
    public var duration: Double?
    /// `width`: pixels.
    public var width: Double?
    /// `height`: pixels.
    public var height: Double?
    /// `videodatarate`: kilobits per second.
    public var videoDataRate: Double?
    /// `framerate`: frames per second.
    public var frameRate: Double?
    /// `videocodecid`: 7 for AVC.
    public var videoCodecID: Double?
    /// `audiodatarate`: kilobits per second.
    public var audioDataRate: Double?
    /// `audiosamplerate`: Hz.
    public var audioSampleRate: Double?
    /// `audiosamplesize`: bits per sample.
    public var audioSampleSize: Double?
    /// `stereo`: whether audio has two channels.
    public var stereo: Bool?
    /// `audiocodecid`: 10 for AAC.
    public var audioCodecID: Double?
    /// `encoder`: the name of the software that made the stream.
    public var encoder: String?

    /// Creates metadata; leave a property nil to omit it.
    public init(
        duration: Double? = nil,
        width: Double? = nil,
        height: Double? = nil,
        videoDataRate: Double? = nil,
        frameRate: Double? = nil,
        videoCodecID: Double? = nil,
        audioDataRate: Double? = nil,
        audioSampleRate: Double? = nil,
        audioSampleSize: Double? = nil,
        stereo: Bool? = nil,
        audioCodecID: Double? = nil,
        encoder: String? = nil
    ) {
        self.duration = duration
        self.width = width
        self.height = height
        self.videoDataRate = videoDataRate
        self.frameRate = frameRate
        self.videoCodecID = videoCodecID
        self.audioDataRate = audioDataRate
        self.audioSampleRate = audioSampleRate
        self.audioSampleSize = audioSampleSize
        self.stereo = stereo
        self.audioCodecID = audioCodecID
        self.encoder = encoder
    }

    /// The set properties as an AMF0 object, in the order ffmpeg writes them.
    public var properties: AMF0Object {
        var object = AMF0Object()
        let numbers: [(String, Double?)] = [
            ("duration", duration), ("width", width), ("height", height), ("videodatarate", videoDataRate),
            ("framerate", frameRate), ("videocodecid", videoCodecID), ("audiodatarate", audioDataRate),
            ("audiosamplerate", audioSampleRate), ("audiosamplesize", audioSampleSize),
        ]
        for case let (key, value?) in numbers {
            object[key] = .number(value)
        }
        if let stereo {
            object["stereo"] = .boolean(stereo)
        }
        if let audioCodecID {
            object["audiocodecid"] = .number(audioCodecID)
        }
        if let encoder {
            object["encoder"] = .string(encoder)
        }
        return object
    }

    /// The script data tag body: AMF0 `"onMetaData"` and an ECMA array of the set properties.
    /// - Parameter setDataFrame: true to put `"@setDataFrame"` first, as an RTMP publisher sends it.
    public func encode(setDataFrame: Bool = false) -> [UInt8] {
        var values: [AMF0Value] = setDataFrame ? [.string(Self.setDataFrameName)] : []
        values.append(.string(Self.handlerName))
        values.append(.ecmaArray(properties))
        return AMF0.encode(values)
    }

    /// Parses an `onMetaData` body, with or without a leading `@setDataFrame`.
    /// - Parameter body: a script data tag body or RTMP data message payload.
    /// - Throws: `FLVError` when the AMF0 is malformed, the handler is not `onMetaData`, or no object follows it.
    public init(parsing body: [UInt8]) throws(FLVError) {
        var reader = ByteReader(body)
        var decoder = AMF0Decoder()
        func nextValue() throws(FLVError) -> AMF0Value {
            do {
                return try decoder.decodeValue(from: &reader)
            } catch {
                throw FLVError(.invalidMetadata, "\(error); the metadata is corrupt")
            }
        }
        var name = try nextValue()
        if name.stringValue == Self.setDataFrameName {
            name = try nextValue()
        }
        guard name.stringValue == Self.handlerName else {
            throw FLVError(.invalidMetadata, "script data starts with \(Self.describe(name)), not \"onMetaData\"; "
                + "this is a different script data message")
        }
        guard !reader.isAtEnd, let object = try nextValue().objectValue else {
            throw FLVError(.invalidMetadata, "onMetaData is not followed by an object or ECMA array; "
                + "the metadata is corrupt")
        }
        self.init(
            duration: object["duration"]?.numberValue,
            width: object["width"]?.numberValue,
            height: object["height"]?.numberValue,
            videoDataRate: object["videodatarate"]?.numberValue,
            frameRate: object["framerate"]?.numberValue,
            videoCodecID: object["videocodecid"]?.numberValue,
            audioDataRate: object["audiodatarate"]?.numberValue,
            audioSampleRate: object["audiosamplerate"]?.numberValue,
            audioSampleSize: object["audiosamplesize"]?.numberValue,
            stereo: object["stereo"]?.boolValue,
            audioCodecID: object["audiocodecid"]?.numberValue,
            encoder: object["encoder"]?.stringValue
        )
    }

    /// A short description of an unexpected handler value; strings are cut to keep messages short.
    private static func describe(_ value: AMF0Value) -> String {
        if let string = value.stringValue {
            return "\"\(string.prefix(32))\""
        }
        return "a non-string value"
    }
}
