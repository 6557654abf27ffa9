import FLV
import RTMP

extension MediaMessage {
    /// The message as an FLV tag (sharing the body, not copying it), so that FLV's own rules decide what is a
    /// keyframe and what is a sequence header: one rule for the recorder, the relay and the broadcaster.
    var flvTag: FLVTag {
        let type: FLVTagType
        switch kind {
        case .audio: type = .audio
        case .video: type = .video
        case .data: type = .scriptData
        }
        return FLVTag(type: type, timestamp: timestamp, body: body)
    }
}
