import ByteIO
import Encoders
import Engine
import FLV
import Locking
import StreamCore
import Transport
import WHIP

/// A WHIP endpoint as an output of the broadcast engine: each `open()` is a new WHIP session (offer, answer, ICE,
/// DTLS-SRTP), so a lost path reconnects on the engine's schedule and backoff exactly as RTMP does; `close` DELETEs
/// the session.
///
/// It takes the engine's FLV tags: H.264 frames (length-prefixed, SPS and PPS inline on keyframes) go out as RTP
/// access units, Opus tags (Enhanced RTMP's form, see `FLVOpusAudio`) as one Opus packet per RTP packet. A
/// receiver's PLI or FIR asks the encoder for a keyframe; the session's RTCP-fed estimate is what adaptive bitrate
/// follows for this output. Tags never wait here: the publisher's pacer holds at most two seconds and says what it
/// drops, so ``queuedBytes`` is always 0.
public actor WHIPSink: MediaSink {
    /// What the session's event follower saw.
    private struct Link {
        var failure: WebRTCError?
        var estimateKbps: Int?
        var requestKeyframe: (@Sendable () -> Void)?
    }

    /// The endpoint.
    public nonisolated let endpoint: WHIPURL
    /// `WHIP https://host/path` (query masked; the token is never part of it).
    public nonisolated let label: String
    /// Always true: WHIP goes over the network.
    public nonisolated var isNetwork: Bool { true }
    private let token: String?
    private var configuration: WebRTCPublisher.Configuration
    private let transport: any WHIPTransport
    private let loop: EventLoop
    private let link = Locked(Link())
    private var session: WHIPSession?
    private var follower: Task<Void, Never>?
    private var finished = WebRTCStatistics()
    private var sessions = 0

    /// Creates a sink.
    /// - Parameters:
    ///   - endpoint: the WHIP endpoint URL.
    ///   - token: the bearer token, or nil; it never appears in labels or errors.
    ///   - configuration: what each session offers (bitrates, STUN server, bind address).
    ///   - transport: carries the HTTP requests.
    ///   - loop: the event loop of the UDP side.
    public init(endpoint: WHIPURL, token: String?, configuration: WebRTCPublisher.Configuration,
                transport: any WHIPTransport, loop: EventLoop) {
        self.endpoint = endpoint
        self.token = token
        self.configuration = configuration
        self.transport = transport
        self.loop = loop
        label = "WHIP \(endpoint)"
    }

    /// Offers the encoder's H.264 profile (from the avcC in the headers) and keeps the keyframe request.
    public func prepare(headers: StreamHeaders, requestKeyframe: @escaping @Sendable () -> Void) async {
        // avcC: version, then profile_idc, constraint flags, level_idc: the SDP's profile-level-id (RFC 6184 §8.1).
        let body = headers.videoSequenceHeader.body
        if body.count >= FLVVideoTagBody.headerSize + 4 {
            let start = FLVVideoTagBody.headerSize + 1
            configuration.profileLevelID = Hex.encode(body[start..<start + 3])
        }
        link.withLock { $0.requestKeyframe = requestKeyframe }
    }

    /// Starts a new WHIP session and waits until ICE and DTLS are up.
    /// - Throws: `BroadcastError` `.connectFailed`: transient for a busy server, an unreachable endpoint or a path
    ///   that did not connect; final for a refusal (401, 403, 404, other 4xx) or an unusable answer.
    public func open() async throws(BroadcastError) {
        await closeSession()
        link.withLock { $0.failure = nil; $0.estimateKbps = nil }
        let session: WHIPSession
        do {
            session = try await WHIPSession.start(endpoint: endpoint, token: token, configuration: configuration,
                                                  transport: transport, loop: loop)
        } catch {
            throw BroadcastError(.connectFailed, redact("\(label): \(error.description)"),
                                 isTransient: error.isTransient)
        }
        self.session = session
        sessions += 1
        let events = session.publisher.events
        let link = self.link
        // Owned by the sink: cancelled and awaited in `closeSession()`, and ends with the session's event stream.
        follower = Task {
            for await event in events {
                switch event {
                case .keyframeRequested:
                    link.withLock { $0.requestKeyframe }?()
                case .bitrateEstimate(let kbps):
                    link.withLock { $0.estimateKbps = kbps }
                case .failed(let error):
                    link.withLock { $0.failure = error }
                case .connected:
                    break
                }
            }
        }
    }

    /// Nothing to send: `onMetaData` has no place in WebRTC.
    public func sendMetadata(_ metadata: FLVMetadata) async throws(BroadcastError) {
        try check()
    }

    /// Sends one tag's media: an H.264 access unit or an Opus packet; sequence headers and script data are not
    /// sent (SPS and PPS travel inline with each keyframe, Opus needs none).
    /// - Throws: `BroadcastError` `.connectionLost` (transient) once the session has failed; `.invalidConfiguration`
    ///   for AAC audio, which WebRTC does not carry.
    public func send(_ tag: FLVTag) async throws(BroadcastError) {
        try check()
        guard let publisher = session?.publisher, !tag.isSequenceHeader else { return }
        switch tag.type {
        case .video:
            guard let body = try? FLVVideoTagBody(parsing: tag.body), body.packetType == .nalu,
                  let annexB = try? AnnexB.fromLengthPrefixed(body.data) else { return }
            let dts = Int64(tag.timestamp)
            publisher.send(video: EncodedVideoPacket(data: annexB, pts: dts + Int64(body.compositionTime), dts: dts,
                                                     isKeyframe: body.frameType == .keyFrame))
        case .audio:
            guard case .packet(let data)? = FLVOpusAudio.payload(of: tag.body) else {
                throw BroadcastError(.invalidConfiguration, "\(label): WebRTC carries Opus audio, not this "
                                        + "audio tag; the broadcast must encode Opus for a WHIP destination")
            }
            publisher.send(audio: EncodedAudioPacket(
                data: data, pts: Int64(tag.timestamp) * Int64(OpusClock.ticksPerMillisecond),
                duration: Int64(OpusClock.samplesPerPacket), sampleRate: OpusClock.sampleRate))
        case .scriptData:
            return
        }
    }

    /// Always 0: the publisher's pacer takes every packet at once (see the type's notes).
    public var queuedBytes: Int {
        get async { 0 }
    }

    /// The session's bandwidth estimate (loss from receiver reports, REMB), nil before the first one.
    public var bitrateEstimateKbps: Int? {
        get async { link.withLock { $0.estimateKbps } }
    }

    /// Returns at once, or throws when the session has failed.
    public func waitForDrain(below threshold: Int) async throws(BroadcastError) {
        try check()
    }

    /// Closes the media side (RTCP BYE, DTLS close_notify) and DELETEs the session.
    public func close(flushTimeout: Duration) async {
        await closeSession()
    }

    /// The counters of the sessions so far (NACKs, resends, keyframe requests, loss, round trip), summed over
    /// sessions for the counts; the last session's for loss, round trip and estimate.
    public func statistics() async -> (sessions: Int, counters: WebRTCStatistics) {
        var counters = finished
        if let session {
            counters = Self.adding(await session.publisher.statistics(), to: finished)
        }
        return (sessions, counters)
    }

    private func closeSession() async {
        guard let session else { return }
        self.session = nil
        finished = Self.adding(await session.publisher.statistics(), to: finished)
        await session.close()
        follower?.cancel()
        await follower?.value
        follower = nil
    }

    private static func adding(_ next: WebRTCStatistics, to total: WebRTCStatistics) -> WebRTCStatistics {
        var sum = next
        sum.packetsSent += total.packetsSent
        sum.bytesSent += total.bytesSent
        sum.videoFrames += total.videoFrames
        sum.audioPackets += total.audioPackets
        sum.nacksReceived += total.nacksReceived
        sum.retransmitted += total.retransmitted
        sum.missedRetransmissions += total.missedRetransmissions
        sum.keyframeRequests += total.keyframeRequests
        sum.receiverReports += total.receiverReports
        sum.dropped += total.dropped
        sum.droppedBeforeConnected += total.droppedBeforeConnected
        return sum
    }

    private func check() throws(BroadcastError) {
        guard let failure = link.withLock({ $0.failure }) else { return }
        throw BroadcastError(.connectionLost, redact("\(label): \(failure.message)"), isTransient: failure.isTransient,
                             silentFor: failure.silentFor)
    }

    /// The WHIP layer never puts the token in a message; this is a second guard.
    private func redact(_ text: String) -> String {
        Redaction.redact(text, secrets: [token ?? ""])
    }
}

/// RFC 7587 §4.1: Opus's RTP clock is 48 kHz whatever the audio; the broadcaster sends 20 ms packets.
enum OpusClock {
    static let sampleRate = 48_000
    static let ticksPerMillisecond = 48
    static let samplesPerPacket = 960
}
