import ByteIO

/// One WHIP session's counters, for status lines and tests.
public struct WHIPSessionStatistics: Sendable, Hashable {
    /// The session's serial number in this server's log lines (the Location's id is a capability and never logged).
    public var serial: Int
    /// The WHIP application (`/whip/{app}`).
    public var app: String
    /// Whether the session is a WHEP player's (media sent) rather than a WHIP publisher's (media received).
    public var playback = false
    /// WHEP: packets sent again on the player's NACK, from the publisher's packet cache.
    public var packetsResent = 0
    /// WHEP: times the player was behind (a send failed) and skipped to the next keyframe.
    public var keyframeSkips = 0
    /// Whether a check nominated a path (ICE) and DTLS completed with the offer's fingerprint.
    public var connected = false
    /// Where media comes from, once ICE selected a path.
    public var remote: TransportAddress?
    /// SRTP packets unprotected whose payload type is the answer's H.264 (WHEP: H.264 packets sent).
    public var videoPackets = 0
    /// SRTP packets unprotected whose payload type is the answer's Opus (WHEP: Opus packets sent).
    public var audioPackets = 0
    /// Payload bytes of those packets.
    public var mediaBytes = 0
    /// H.264 frames rebuilt and passed on (for LL-HLS); 0 when the session's media is only counted.
    public var videoFrames = 0
    /// AAC frames transcoded from the session's Opus and passed on (for LL-HLS); 0 when its media is only counted.
    public var audioFrames = 0
    /// H.264 frames dropped: broken by a loss, waiting for a keyframe after one, or before the first SPS and PPS.
    public var framesDropped = 0
    /// Keyframe requests (PLI) sent after a loss, at most every 500 ms while frames are dropped (WHEP: the
    /// player's PLIs and FIRs received).
    public var keyframeRequests = 0
    /// WHIP: video packets asked for again (NACKs), and how many of those came.
    public var packetsRequested = 0
    public var packetsRecovered = 0
    /// WHIP: video sequence numbers given up after waiting for them (each breaks a frame for LL-HLS).
    public var packetsSkipped = 0
    /// SRTCP packets unprotected.
    public var rtcpPackets = 0
    /// WHIP: receiver reports sent to the publisher (one a second, with REMB where answered).
    public var receiverReports = 0
    /// SRTP packets with another payload type than the answer's two (dropped).
    public var otherPackets = 0
    /// SRTP or SRTCP that failed authentication, replays, or media before the DTLS keys (dropped).
    public var unprotectFailures = 0
    /// STUN checks answered.
    public var checksAnswered = 0

    /// Creates empty counters.
    public init(serial: Int, app: String) {
        self.serial = serial
        self.app = app
    }
}

/// The server's counters: its sessions and the datagrams nobody's.
public struct WebRTCServerStatistics: Sendable, Hashable {
    /// The UDP port.
    public var port: Int
    /// The open sessions, by serial.
    public var sessions: [WHIPSessionStatistics]
    /// Datagrams dropped before reaching a session, by reason (`DatagramRoutes.Drop`'s names).
    public var drops: [String: Int]
    /// Offers refused because every session slot was taken.
    public var refusedFull: Int

    /// Creates statistics.
    public init(port: Int, sessions: [WHIPSessionStatistics] = [], drops: [String: Int] = [:], refusedFull: Int = 0) {
        self.port = port
        self.sessions = sessions
        self.drops = drops
        self.refusedFull = refusedFull
    }
}
