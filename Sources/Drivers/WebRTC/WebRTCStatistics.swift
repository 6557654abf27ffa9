/// Counters of one publisher session.
public struct WebRTCStatistics: Sendable, Hashable {
    /// RTP packets handed to the socket (first transmissions).
    public var packetsSent = 0
    /// Bytes of those packets after SRTP.
    public var bytesSent = 0
    /// Video frames packetized.
    public var videoFrames = 0
    /// Audio packets sent.
    public var audioPackets = 0
    /// NACKs received and the sequence numbers they asked for.
    public var nacksReceived = 0
    /// Packets resent in answer to NACKs.
    public var retransmitted = 0
    /// NACKed packets no longer in the history.
    public var missedRetransmissions = 0
    /// PLI and FIR messages received.
    public var keyframeRequests = 0
    /// Receiver reports received.
    public var receiverReports = 0
    /// The latest loss fraction a receiver reported for our video (0...1).
    public var reportedLoss = 0.0
    /// The latest round-trip time from a receiver report, in seconds.
    public var roundTrip: Double?
    /// The current bandwidth estimate in kbit/s.
    public var estimateKbps = 0
    /// Packets the pacer dropped after waiting too long, and datagrams the kernel refused.
    public var dropped = 0
    /// Media handed over before the session was connected (dropped).
    public var droppedBeforeConnected = 0

    /// Creates zeroed counters.
    public init() {}
}
