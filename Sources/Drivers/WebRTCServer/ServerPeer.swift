import ByteIO
import DTLS
import ICE
import RTP
import SDP
import SRTP
import Transport

/// One WHIP or WHEP session's state on the server's port: its ICE-lite responder, its DTLS endpoint (server role) and,
/// once the handshake is done, its inbound SRTP. A loop-thread object held in ``ServerPort``'s table; it owns no
/// socket, thread or task: the port hands it datagrams and time.
final class ServerPeer {
    let serial: Int
    /// The Location's id: a capability (whoever holds it may DELETE the session), never logged.
    let id: String
    let answer: ServerAnswer
    var responder: ICELiteResponder
    let dtls: DTLSEndpoint
    var inbound: SRTPSession?
    /// Protects what the server sends the publisher: RTCP feedback (PLI).
    var outbound: SRTPSession?
    /// The SSRC our RTCP feedback is sent from (RFC 4585 §6.1: the sender of the feedback).
    let localSSRC = UInt32.random(in: 1...UInt32.max)
    var keyframeRequests: KeyframeRequests
    /// When the last keyframe was passed on.
    var lastKeyframe: Duration?
    /// Where the last DTLS datagram came from: where retransmitted flights go.
    var dtlsRemote: TransportAddress?
    /// The deadlines: the responder's, the DTLS handshake's and OpenSSL's retransmission timer.
    var clock: ServerSessionClock
    var counters: WHIPSessionStatistics
    /// The publish's media tag (the LL-HLS address's), when its media is passed on; nil: counted only.
    let streamTag: String?
    /// Puts the video back in order, waiting a little for what ``losses`` asked for, before ``frames``.
    var ordered = RTPReorderBuffer()
    var frames = H264FrameAssembler()
    /// A publisher's video packets missed on the way, asked for again with NACKs.
    var losses = RTPLossTracker()
    /// What the receiver reports to a publisher say of its video and its audio (WHIP), and when the last went.
    var videoReception: RTPReceptionStatistics?
    var audioReception: RTPReceptionStatistics?
    var lastReceiverReport: Duration?
    var videoTags = WHIPVideoTags()
    /// When the first video tag was passed on: the audio tags' timeline starts from it.
    var videoStart: Duration?
    #if os(Linux)
    /// The Opus → AAC transcode, opened at the first audio packet of a session whose media is passed on.
    var audioTags: WHIPAudioTags?
    #endif
    /// Whether opening the transcode failed (the publish goes on without sound: its ended line counts 0 AAC frames).
    var audioFailed = false
    /// Whether ``WHIPMediaEvent/started(app:streamTag:)`` was sent (at DTLS connect).
    var mediaStarted = false
    /// Whether ``WebRTCServerEvent/receiving(_:)`` was reported.
    var receiving = false
    /// WHEP: what the player plays; nil for a WHIP publisher.
    var subscription: Subscription?
    var timer: Scheduled?
    var timerDeadline: Duration?

    init(serial: Int, id: String, app: String, streamTag: String?, answer: ServerAnswer, responder: ICELiteResponder,
         dtls: DTLSEndpoint, clock: ServerSessionClock, keyframeInterval: Duration?) {
        keyframeRequests = KeyframeRequests(maximumKeyframeInterval: keyframeInterval)
        self.serial = serial
        self.streamTag = streamTag
        self.id = id
        self.answer = answer
        self.responder = responder
        self.dtls = dtls
        self.clock = clock
        counters = WHIPSessionStatistics(serial: serial, app: app)
    }
}
