import FLV
import RTP

/// One WHIP publish's media as WHEP players get it: what a player joining or catching up needs from the publisher
/// (its last keyframe, its recent packets for NACKs) and who plays it. Loop-thread state in ``ServerPort``, one per
/// app and stream tag; it outlives a publisher replaced by a new session with the same key, so its players stay.
final class ForwardedStream {
    /// The publishing WHIP session's serial; nil for an RTMP publish (``rtmp``).
    var publisher: Int?
    /// An RTMP publish's H.264 made RTP; nil for a WHIP publish.
    var rtmp: RTMPVideoPackets?
    /// An RTMP publish's last AAC sequence header: what opens the Opus transcode when a player with audio comes.
    var audioSequenceHeader: FLVTag?
    #if os(Linux)
    /// An RTMP publish's AAC made Opus RTP, while a player takes audio (nil otherwise: no player, no transcode).
    var rtmpAudio: RTMPAudioPackets?
    #endif
    /// The players' serials, in the order they joined (bounded by the port's session bound).
    var subscribers: [Int] = []
    /// Players of another stream that move here at this stream's next keyframe (``Subscription/next``).
    var joining: [Int] = []
    /// The publisher's H.264 packets of the last second, by its sequence numbers: NACKs are answered from here.
    var cache = RTPPacketCache()
    /// The last keyframe's packets: where a new player starts.
    var gate = H264KeyframeGate()
    /// The publisher's video SSRC, which a PLI names.
    var videoSSRC: UInt32?
    /// When a PLI last went to the publisher for a player: at most one per ``WebRTCServer/upstreamRequestInterval``.
    var lastUpstreamRequest: Duration?

    init(publisher: Int?, rtmp: RTMPVideoPackets? = nil) {
        self.publisher = publisher
        self.rtmp = rtmp
    }
}

/// A WHEP player's own state: which stream it plays and its rewriters (its SSRCs, sequence numbers and timestamps).
final class Subscription {
    /// The app and stream tag played (``ServerPort``'s stream key); a show's main-picture player moves between
    /// its tiles' streams.
    var stream: String
    var video: RTPRewriter
    var audio: RTPRewriter?
    /// Whether the player waits for a keyframe (it just joined, or fell behind): video is held back until one.
    var waitingForKeyframe = true
    /// The stream this player moves to at that stream's next keyframe, and since when (a show's main picture
    /// switched): until then it plays ``stream`` on, so its picture never stops; past
    /// ``WebRTCServer/switchBound`` it moves at once.
    var next: (stream: String, since: Duration)?

    init(stream: String, video: RTPRewriter, audio: RTPRewriter?) {
        self.stream = stream
        self.video = video
        self.audio = audio
    }
}
