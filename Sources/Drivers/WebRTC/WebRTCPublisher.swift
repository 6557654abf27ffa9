import ByteIO
import Encoders
import ICE
import Transport

/// A WebRTC publisher session (the media side of WHIP, RFC 9725): makes the SDP offer, takes the endpoint's
/// answer, connects (ICE, DTLS-SRTP) and sends H.264 and Opus over SRTP with NACK answers, keyframe requests and a
/// loss-based bandwidth estimate. Thread-safe; the work happens on an event loop.
///
/// One session is one offer/answer: after a failure, make a new one (a new offer to the endpoint).
public final class WebRTCPublisher: Sendable {
    /// What the session offers and how it behaves.
    public struct Configuration: Sendable, Hashable {
        /// The address the UDP socket binds: "0.0.0.0" offers every interface, "127.0.0.1" loopback only.
        public var bindHost: String
        /// Whether loopback addresses are offered when binding every interface.
        public var includeLoopback: Bool
        /// A STUN server for a server-reflexive candidate (`host:port`, numeric), if any.
        public var stunServer: TransportAddress?
        /// Whether to offer a video section.
        public var sendVideo: Bool
        /// Whether to offer an audio section.
        public var sendAudio: Bool
        /// The H.264 profile-level-id offered (from the encoder's SPS; `42e01f` is constrained baseline 3.1).
        public var profileLevelID: String
        /// The video bitrate asked for: the bandwidth estimate's ceiling.
        public var videoBitrateKbps: Int
        /// The audio bitrate (for pacing).
        public var audioBitrateKbps: Int
        /// The RTCP CNAME.
        public var cname: String
        /// Consent freshness (RFC 7675): how often, and how long without an answer before the path counts as gone.
        public var consentInterval: Duration
        /// See ``consentInterval``.
        public var consentTimeout: Duration
        /// How long the endpoint may send nothing at all (no consent answer, no RTCP) before the path counts as
        /// gone; nil leaves it to consent (30 s).
        public var silenceTimeout: Duration?
        /// The largest RTP payload (H.264 NAL units above it are split into FU-A fragments); lower it for paths
        /// with a small MTU (tunnels, VPNs).
        public var maximumPayloadSize: Int

        /// Creates a configuration.
        public init(bindHost: String = "0.0.0.0", includeLoopback: Bool = true, stunServer: TransportAddress? = nil,
                    sendVideo: Bool = true, sendAudio: Bool = true, profileLevelID: String = "42e01f",
                    videoBitrateKbps: Int = 2500, audioBitrateKbps: Int = 64, cname: String = "stream",
                    consentInterval: Duration = .seconds(5), consentTimeout: Duration = .seconds(30),
                    silenceTimeout: Duration? = .seconds(10), maximumPayloadSize: Int = 1200) {
            self.bindHost = bindHost
            self.includeLoopback = includeLoopback
            self.stunServer = stunServer
            self.sendVideo = sendVideo
            self.sendAudio = sendAudio
            self.profileLevelID = profileLevelID
            self.videoBitrateKbps = videoBitrateKbps
            self.audioBitrateKbps = audioBitrateKbps
            self.cname = cname
            self.consentInterval = consentInterval
            self.consentTimeout = consentTimeout
            self.silenceTimeout = silenceTimeout
            self.maximumPayloadSize = min(max(maximumPayloadSize, 100), 1400)
        }
    }

    /// Events: connected, keyframe requests, bandwidth estimates, failure. Buffers the newest 64.
    public let events: AsyncStream<WebRTCEvent>

    private let peer: LoopBound<PublisherPeer>
    private let continuation: AsyncStream<WebRTCEvent>.Continuation

    private init(peer: LoopBound<PublisherPeer>, events: AsyncStream<WebRTCEvent>,
                 continuation: AsyncStream<WebRTCEvent>.Continuation) {
        self.peer = peer
        self.events = events
        self.continuation = continuation
    }

    deinit {
        let peer = self.peer
        peer.loop.execute { peer.value.close() }
        continuation.finish()
    }

    /// Creates a session on `loop`.
    /// - Throws: ``WebRTCError`` `.setup` when the certificate cannot be made or the loop is gone.
    public static func make(configuration: Configuration, on loop: EventLoop) async throws(WebRTCError)
        -> WebRTCPublisher {
        let (events, continuation) = AsyncStream.makeStream(of: WebRTCEvent.self,
                                                            bufferingPolicy: .bufferingNewest(64))
        do {
            let peer = try await loop.submit {
                LoopBound(try PublisherPeer(configuration: configuration, loop: loop,
                                            emit: { continuation.yield($0) }), loop: loop)
            }
            return WebRTCPublisher(peer: peer, events: events, continuation: continuation)
        } catch let error as WebRTCError {
            throw error
        } catch {
            throw WebRTCError(.setup, "the event loop is shut down")
        }
    }

    /// Binds the socket, gathers candidates (asking the STUN server, if any) and returns the offer's SDP.
    /// - Throws: ``WebRTCError`` `.setup`.
    public func makeOffer() async throws(WebRTCError) -> String {
        let peer = self.peer
        return try await errors {
            try await withCheckedThrowingContinuation { continuation in
                if !peer.loop.executeIfRunning({ peer.value.makeOffer(continuation) }) {
                    continuation.resume(throwing: WebRTCError(.closed, "the event loop is shut down"))
                }
            }
        }
    }

    /// Takes the endpoint's answer and starts connecting.
    /// - Throws: ``WebRTCError`` `.answer` naming what the answer lacks.
    public func accept(answer: String) async throws(WebRTCError) {
        let peer = self.peer
        try await errors { try await peer.loop.submit { try peer.value.accept(answer: answer) } }
    }

    /// Returns once ICE and DTLS are up.
    /// - Throws: ``WebRTCError`` `.ice`, `.dtls` or `.srtp`.
    public func waitUntilConnected() async throws(WebRTCError) {
        let peer = self.peer
        try await errors {
            try await withCheckedThrowingContinuation { continuation in
                if !peer.loop.executeIfRunning({ peer.value.waitUntilConnected(continuation) }) {
                    continuation.resume(throwing: WebRTCError(.closed, "the event loop is shut down"))
                }
            }
        }
    }

    /// Sends one H.264 access unit (Annex B); dropped before the session is connected.
    public func send(video packet: EncodedVideoPacket) {
        let peer = self.peer
        peer.loop.execute { peer.value.send(video: packet) }
    }

    /// Sends one Opus packet; dropped before the session is connected.
    public func send(audio packet: EncodedAudioPacket) {
        let peer = self.peer
        peer.loop.execute { peer.value.send(audio: packet) }
    }

    /// The session's counters.
    public func statistics() async -> WebRTCStatistics {
        let peer = self.peer
        return (try? await peer.loop.submit { peer.value.statistics }) ?? WebRTCStatistics()
    }

    /// Sends a BYE and close_notify and closes the socket.
    public func close() async {
        let peer = self.peer
        _ = try? await peer.loop.submit { peer.value.close() }
        continuation.finish()
    }

    private func errors<Result>(_ body: () async throws -> Result) async throws(WebRTCError) -> Result {
        do {
            return try await body()
        } catch let error as WebRTCError {
            throw error
        } catch {
            throw WebRTCError(.closed, "the event loop is shut down")
        }
    }
}
