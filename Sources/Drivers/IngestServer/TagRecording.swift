import FLV
import Recording
import RTMP

/// The recording of a publish that does not arrive over RTMP (a WHIP session's H.264 rebuilt from RTP and its
/// Opus transcoded to AAC, as FLV tags), with what an RTMP publish's recording has: the same file names and
/// containers, the file cut at its last whole tag when the disk fills and a new one at a keyframe once there is
/// room, the same lines.
///
/// Not thread-safe: one publish's tags come from one thread (the WebRTC port's loop).
public final class TagRecording {
    private let recording: StreamRecording
    private var videoHeader: MediaMessage?
    private var audioHeader: MediaMessage?

    /// Starts the first file, named `APP-TAG-TIME` as an RTMP publish's is (`keyTag` as `#` and hex digits).
    /// - Parameter emit: told when a file starts, ends, is removed or fails (``ServerEvent``'s recording cases).
    public init(directory: String, format: RecordingFormat, app: String, keyTag: String,
                emit: @escaping @Sendable (ServerEvent) -> Void) {
        recording = StreamRecording(directory: directory, format: format, app: app, keyTag: keyTag, emit: emit)
    }

    /// Records an audio or video tag (script data is left out, as the publisher's metadata is for RTMP's).
    public func write(_ tag: FLVTag) {
        let kind: MediaMessage.Kind
        switch tag.type {
        case .audio: kind = .audio
        case .video: kind = .video
        case .scriptData: return
        }
        let message = MediaMessage(kind: kind, timestamp: tag.timestamp, streamID: 1, body: tag.body)
        let isHeader = tag.isSequenceHeader
        if isHeader {
            if kind == .video { videoHeader = message } else { audioHeader = message }
        }
        recording.write(message, isKeyframe: tag.isVideoKeyFrame, isHeader: isHeader,
                        headers: StreamRecording.Headers(metadata: nil, video: videoHeader, audio: audioHeader))
    }

    /// Closes the current file, at the end of the publish.
    public func finish() {
        recording.finish()
    }
}
