import Broadcast
import Engine
import LiveProtocol
import Locking
import Publisher
import RealtimeCalls
import StreamCore

/// Going live from Linux with Stream's own engine: the test sources, the X11 screen, a V4L2 or Y4M camera in a PiP,
/// a PulseAudio microphone (whatever the `BroadcastConfiguration` says), published over RTMP(S) to where the
/// server's grant says.
///
/// There is no window here, so ``preview()`` only turns the camera and microphone on; the picture starts when the
/// grant comes. The engine encodes picture and sound together: with the camera off viewers see black and still
/// hear the sound; with the microphone off they see the picture and hear silence (nothing of the muted sound is
/// encoded). The switches hold before going live too.
public final class EngineLiveMedia: LiveMedia {
    private struct State {
        var camera = false
        var microphone = false
        var session: BroadcastSession?
        var run: Task<BroadcastState, Never>?
        var watch: Task<Void, Never>?
        var pathHandler: (@Sendable (MediaState) -> Void)?
    }

    /// What is captured and how it is encoded.
    public let configuration: BroadcastConfiguration
    /// The picture this encode is: `screen` for a captured screen, `camera` otherwise.
    public let tile: TileKind
    private let caFile: String?
    private let makeSink: SinkMaker?
    private let state = Locked(State())

    /// Makes the sink a grant publishes to, in place of RTMP(S) to its URL (`stream live --webrtc`: WHIP).
    public typealias SinkMaker = @Sendable (PublishGrant) throws(LiveStreamError) -> any MediaSink

    /// Creates the media.
    /// - Parameters:
    ///   - configuration: the sources and settings, as `stream broadcast` builds them.
    ///   - tile: the picture to ask a grant for.
    ///   - caFile: an extra CA certificate to trust for RTMPS.
    ///   - makeSink: where a grant publishes, when not over RTMP(S) to its URL; the configuration's audio codec
    ///     must be the one that sink carries.
    public init(configuration: BroadcastConfiguration, tile: TileKind, caFile: String? = nil,
                makeSink: SinkMaker? = nil) {
        self.configuration = configuration
        self.tile = tile
        self.caFile = caFile
        self.makeSink = makeSink
    }

    /// Whether the camera is on.
    public var isCameraOn: Bool { state.withLock { $0.camera } }
    /// Whether the microphone is on.
    public var isMicrophoneOn: Bool { state.withLock { $0.microphone } }
    /// The one picture of this encode.
    public var tiles: [TileKind] { [tile] }
    /// The running broadcast, once published: its state, statistics and events.
    public var session: BroadcastSession? { state.withLock { $0.session } }

    /// Turns the camera and microphone on (nothing to show on a terminal).
    public func preview() async throws(LiveStreamError) {
        state.withLock {
            $0.camera = true
            $0.microphone = true
        }
    }

    /// Camera off encodes black in place of the picture (the sound goes on); on shows the picture again.
    public func setCamera(_ on: Bool) async throws(LiveStreamError) {
        let session = state.withLock { state -> BroadcastSession? in
            state.camera = on
            return state.session
        }
        session?.setVideoHidden(!on)
    }

    /// Microphone off encodes silence in place of the sound (the picture goes on); on lets the sound through.
    public func setMicrophone(_ on: Bool) async throws(LiveStreamError) {
        let session = state.withLock { state -> BroadcastSession? in
            state.microphone = on
            return state.session
        }
        session?.setAudioMuted(!on)
    }

    /// Starts the broadcast to the grant for ``tile`` (or to the sink `makeSink` makes for it).
    /// - Throws: ``LiveStreamError/media(_:)`` without a grant for it, with a URL that is not RTMP(S), or when the
    ///   sources cannot start.
    public func publish(_ grants: [PublishGrant]) async throws(LiveStreamError) {
        guard let grant = grants.first(where: { $0.tile == tile }) else {
            throw .media("the server gave no grant for the \(tile.rawValue) picture")
        }
        let sink: any MediaSink
        if let makeSink {
            sink = try makeSink(grant)
        } else {
            let url: IngestURL
            do {
                url = try IngestURL(parsing: grant.url)
            } catch {
                throw .media("the grant's ingest URL cannot be used: \(error)")
            }
            sink = RTMPSink(url: url, streamKey: grant.key, options: RTMPClient.Options(
                caFile: caFile, socketSendBufferSize: RTMPSink.socketSendBufferSize(for: configuration.settings)))
        }
        await stop()
        let session: BroadcastSession
        do {
            session = try BroadcastSession(configuration: configuration, outputs: [BroadcastOutput(sink: sink)])
        } catch {
            throw .media("cannot start the broadcast: \(error.message)")
        }
        let handler = state.withLock { state -> (@Sendable (MediaState) -> Void)? in
            state.session = session
            // Set before the media starts, so a muted microphone is never heard, not even for a frame.
            session.setVideoHidden(!state.camera)
            session.setAudioMuted(!state.microphone)
            // Subscribed before the run starts, so that no change is missed.
            let events = session.events()
            let handler = state.pathHandler
            if let handler {
                state.watch = Task {
                    var last: MediaState?
                    for await _ in events {
                        let now = Self.mediaState(session.state)
                        if now != last { handler(now) }
                        last = now
                    }
                    handler(.off)
                }
            }
            state.run = Task { await session.run() }
            return handler
        }
        handler?(.connecting)
    }

    /// Where the published path is, from the broadcast's state.
    static func mediaState(_ state: BroadcastState) -> MediaState {
        switch state {
        case .idle, .connecting: .connecting
        case .live: .live
        case .reconnecting: .reconnecting
        case .ended, .failed: .off
        }
    }

    /// Reports the broadcast's path (connecting, live, reconnecting, off) to `handler` as it changes.
    public func observePath(_ handler: @escaping @Sendable (MediaState) -> Void) {
        state.withLock { $0.pathHandler = handler }
    }

    /// Stops the broadcast (cleanly: flushed and unpublished) and waits for it.
    public func stop() async {
        let (session, run, watch) = state.withLock { state in
            defer {
                state.session = nil
                state.run = nil
                state.watch = nil
            }
            return (state.session, state.run, state.watch)
        }
        session?.stop()
        _ = await run?.value
        // The events end with the broadcast; a watch of one that never ran ends here.
        watch?.cancel()
        _ = await watch?.value
    }

    /// Waits until the broadcast ends by itself (a failure, the duration) or is stopped.
    /// - Returns: how it ended, or nil when nothing was published.
    public func finished() async -> BroadcastState? {
        await state.withLock { $0.run }?.value
    }
}
