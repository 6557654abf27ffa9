import FLV
import Transport

/// The WebRTC side of `stream serve`: every WHIP session on one UDP port, on one event loop of its own
/// (ICE-lite, DTLS-SRTP in the server role, SRTP/SRTCP unprotect). Thread-safe; the work happens on the loop.
///
/// ``publish(app:offer:)`` answers an offer and opens a session, ``close(session:app:)`` ends one (a WHIP
/// DELETE). A session also ends by itself: no nominated ICE pair within ``Configuration/connectTimeout``, DTLS not
/// done within ``Configuration/handshakeTimeout``, consent lost (``Configuration/consentTimeout`` without a check,
/// RFC 7675), a DTLS failure or close_notify. At most ``Configuration/maximumSessions`` sessions are open; more are
/// refused with ``WebRTCServerError/Code/full``.
public final class WebRTCServer: Sendable {
    /// Where the port listens and how sessions are bounded.
    public struct Configuration: Sendable {
        /// The numeric address the UDP port binds ("127.0.0.1", "0.0.0.0" for every interface).
        public var listenHost: String
        /// The port (0: any free port, read ``WebRTCServer/port``).
        public var listenPort: Int
        /// The address in the answers' host candidate; nil uses ``listenHost`` (which must then be one address).
        public var candidateHost: String?
        /// The most sessions open at once.
        public var maximumSessions: Int
        /// The most WHEP players open at once, within ``maximumSessions``: players cannot take the slots publishers
        /// need (192 of 256 by default leaves 64 to WHIP).
        public var maximumPlayers: Int
        /// How long a session may go without a nominated ICE pair.
        public var connectTimeout: Duration
        /// How long a session may go without DTLS completing, from its answer.
        public var handshakeTimeout: Duration
        /// How long consent lasts after the last valid check from the selected address (RFC 7675 §5.1).
        public var consentTimeout: Duration
        /// For sessions whose media is passed on: ask the publisher for a keyframe (PLI) when none came for this
        /// long, so that LL-HLS can cut segments (2 s: the packager's 1 s minimum segment, doubled); nil: only
        /// after a loss. WebRTC senders' own keyframe intervals are long (aiortc 8.3 s, Chrome 3000 frames).
        public var keyframeInterval: Duration?
        /// The bit rate a WHIP publisher is told it may send at most (REMB, when its offer lists `goog-remb`):
        /// 8 Mbit/s by default, above what browsers send for 1080p, so it bounds without steering.
        public var publisherMaximumBitrate: Int
        /// Log lines (on the loop's thread): sessions opened, connected, ended with their counters.
        public var onEvent: @Sendable (WebRTCServerEvent) -> Void
        /// The H.264 of sessions opened with a stream tag, as FLV tags (on the loop's thread; keep it quick); nil
        /// passes nothing on and skips rebuilding frames.
        public var onMedia: (@Sendable (WHIPMediaEvent) -> Void)?

        /// Creates a configuration.
        public init(listenHost: String = "127.0.0.1", listenPort: Int = 8189, candidateHost: String? = nil,
                    maximumSessions: Int = 256, maximumPlayers: Int = 192, connectTimeout: Duration = .seconds(15),
                    handshakeTimeout: Duration = .seconds(20), consentTimeout: Duration = .seconds(30),
                    keyframeInterval: Duration? = .seconds(2), publisherMaximumBitrate: Int = 8_000_000,
                    onEvent: @escaping @Sendable (WebRTCServerEvent) -> Void = { _ in },
                    onMedia: (@Sendable (WHIPMediaEvent) -> Void)? = nil) {
            self.listenHost = listenHost
            self.listenPort = listenPort
            self.candidateHost = candidateHost
            self.maximumSessions = max(1, maximumSessions)
            self.maximumPlayers = max(0, maximumPlayers)
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.consentTimeout = consentTimeout
            self.keyframeInterval = keyframeInterval
            self.publisherMaximumBitrate = max(100_000, publisherMaximumBitrate)
            self.onEvent = onEvent
            self.onMedia = onMedia
        }
    }

    /// What ``publish(app:offer:)`` did.
    public enum Publish: Sendable, Hashable {
        /// A session was opened: its unguessable id (for the Location; a capability, never log it) and the answer.
        case created(id: String, answer: String)
        /// The offer was refused.
        case refused(WebRTCServerError)
    }

    /// The bound UDP port.
    public let port: Int
    private let loop: EventLoop
    private let state: LoopBound<ServerPort>

    private init(port: Int, loop: EventLoop, state: LoopBound<ServerPort>) {
        self.port = port
        self.loop = loop
        self.state = state
    }

    /// Binds the port on a new event loop.
    /// - Throws: ``WebRTCServerError`` `.setup` when the port cannot be bound or the certificate made.
    public static func start(_ configuration: Configuration) async throws(WebRTCServerError) -> WebRTCServer {
        let loop: EventLoop
        do {
            loop = try EventLoop(name: "webrtc")
        } catch {
            throw WebRTCServerError(.setup, "cannot start the WebRTC event loop: \(error)")
        }
        do {
            let state = try await loop.submit {
                LoopBound(try ServerPort(configuration: configuration, loop: loop, emit: configuration.onEvent),
                          loop: loop)
            }
            let port = try await loop.submit { state.value.port }
            return WebRTCServer(port: port, loop: loop, state: state)
        } catch let error as WebRTCServerError {
            loop.shutdown()
            throw error
        } catch {
            loop.shutdown()
            throw WebRTCServerError(.setup, "the WebRTC event loop stopped: \(error)")
        }
    }

    /// Answers a WHIP offer for `app`: a new session, or why not.
    /// - Parameter streamTag: the publish's media tag (its LL-HLS address); with one, its H.264 goes to
    ///   ``Configuration/onMedia``.
    public func publish(app: String, offer: String, streamTag: String? = nil) async -> Publish {
        let state = self.state
        do {
            let result = try await loop.submit { state.value.open(offer: offer, app: app, streamTag: streamTag) }
            switch result {
            case .success(let created): return .created(id: created.id, answer: created.answer)
            case .failure(let error): return .refused(error)
            }
        } catch {
            return .refused(WebRTCServerError(.setup, "the WebRTC server is stopped"))
        }
    }

    /// Answers a WHEP offer (recvonly) for the WHIP publish of `app` whose media tag is `streamTag`: a new player
    /// session that gets the publisher's H.264 (and Opus, when offered) forwarded, not transcoded.
    /// Refused with ``WebRTCServerError/Code/notFound`` when nothing is publishing there now.
    public func play(app: String, streamTag: String, offer: String) async -> Publish {
        let state = self.state
        do {
            let result = try await loop.submit { state.value.play(offer: offer, app: app, streamTag: streamTag) }
            switch result {
            case .success(let created): return .created(id: created.id, answer: created.answer)
            case .failure(let error): return .refused(error)
            }
        } catch {
            return .refused(WebRTCServerError(.setup, "the WebRTC server is stopped"))
        }
    }

    /// Moves the WHEP player `id` of `app` to the WHIP publish whose media tag is `streamTag` (a show's main picture
    /// switched tiles): it plays the old picture until the new one's next keyframe (asked for at once), then goes on
    /// there with the same SSRCs, its sequence numbers and timestamps continuing. False when the player ended or
    /// nothing publishes there.
    public func follow(session id: String, app: String, streamTag: String) async -> Bool {
        let state = self.state
        return (try? await loop.submit { state.value.follow(id: id, app: app, streamTag: streamTag) }) ?? false
    }

    /// An RTMP publish of `app` with the media tag `streamTag` started: its H.264 may be played over WHEP
    /// (packetized, not transcoded). Call from any thread; with ``forwardRTMP(app:streamTag:_:)`` and
    /// ``stopRTMP(app:streamTag:)`` in the publish's order.
    public func startRTMP(app: String, streamTag: String) {
        let state = self.state
        loop.execute { state.value.rtmpStarted(app: app, streamTag: streamTag) }
    }

    /// One FLV tag of that RTMP publish: video is forwarded as it is; audio, AAC, is transcoded to Opus (WebRTC
    /// players take Opus) while a player takes it.
    public func forwardRTMP(app: String, streamTag: String, _ tag: FLVTag) {
        guard tag.type == .video || tag.type == .audio else { return }
        let state = self.state
        loop.execute { state.value.rtmpTag(app: app, streamTag: streamTag, tag) }
    }

    /// That RTMP publish ended: its players' sessions end.
    public func stopRTMP(app: String, streamTag: String) {
        let state = self.state
        loop.execute { state.value.rtmpStopped(app: app, streamTag: streamTag) }
    }

    /// How often a publisher may be asked for a keyframe on its players' behalf (joins, PLIs, FIRs, skips).
    public static let upstreamRequestInterval: Duration = .milliseconds(500)
    /// How long a player switching pictures plays the old one while it waits for the new one's keyframe (a WHIP
    /// publisher answers the PLI in a round trip; an RTMP one only at its own interval): past it, the player starts
    /// at the new picture's last keyframe.
    public static let switchBound: Duration = .seconds(2)

    /// Ends a session (a WHIP or, with `playback`, a WHEP DELETE on its Location).
    /// - Returns: false when no session of `app` and that kind has that id.
    /// - Parameter reason: what the session's end line says.
    public func close(session id: String, app: String, playback: Bool = false,
                      reason: String = "closed by the client (DELETE)") async -> Bool {
        let state = self.state
        return (try? await loop.submit { state.value.close(id: id, app: app, playback: playback, reason: reason) })
            ?? false
    }

    /// Ends the WHIP session `id` of `app` that a newer session, with media tag `streamTag`, replaces: its WHEP
    /// players move to the newer one (they go on at its first keyframe) instead of ending with it.
    /// - Returns: false when no WHIP session of `app` has that id.
    public func handOver(session id: String, app: String, to streamTag: String, reason: String) async -> Bool {
        let state = self.state
        return (try? await loop.submit { state.value.handOver(id: id, app: app, to: streamTag, reason: reason) })
            ?? false
    }

    /// The counters.
    public func statistics() async -> WebRTCServerStatistics {
        let state = self.state
        return (try? await loop.submit { state.value.statistics }) ?? WebRTCServerStatistics(port: port)
    }

    /// Ends every session (close_notify to those connected), closes the port and stops the loop.
    public func stop() async {
        let state = self.state
        _ = try? await loop.submit { state.value.stop() }
        loop.shutdown()
    }
}
