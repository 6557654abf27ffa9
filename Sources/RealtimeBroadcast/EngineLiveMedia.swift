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
/// grant comes. The engine encodes picture and sound together: with the camera off the broadcast pauses (nothing
/// captured or encoded, the connection kept) and resumes when it is turned on; the microphone switch is kept
/// but does not mute the sound on its own.
public final class EngineLiveMedia: LiveMedia {
    private struct State {
        var camera = false
        var microphone = false
        var session: BroadcastSession?
        var run: Task<BroadcastState, Never>?
    }

    /// What is captured and how it is encoded.
    public let configuration: BroadcastConfiguration
    /// The picture this encode is: `screen` for a captured screen, `camera` otherwise.
    public let tile: TileKind
    private let caFile: String?
    private let state = Locked(State())

    /// Creates the media.
    /// - Parameters:
    ///   - configuration: the sources and settings, as `stream broadcast` builds them.
    ///   - tile: the picture to ask a grant for.
    ///   - caFile: an extra CA certificate to trust for RTMPS.
    public init(configuration: BroadcastConfiguration, tile: TileKind, caFile: String? = nil) {
        self.configuration = configuration
        self.tile = tile
        self.caFile = caFile
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

    /// Camera off pauses the broadcast, on resumes it.
    public func setCamera(_ on: Bool) async throws(LiveStreamError) {
        let session = state.withLock { state -> BroadcastSession? in
            state.camera = on
            return state.session
        }
        if on { session?.resume() } else { session?.pause() }
    }

    /// Records the switch (the engine does not mute the sound on its own).
    public func setMicrophone(_ on: Bool) async throws(LiveStreamError) {
        state.withLock { $0.microphone = on }
    }

    /// Starts the broadcast to the grant for ``tile``.
    /// - Throws: ``LiveStreamError/media(_:)`` without a grant for it, with a URL that is not RTMP(S), or when the
    ///   sources cannot start.
    public func publish(_ grants: [PublishGrant]) async throws(LiveStreamError) {
        guard let grant = grants.first(where: { $0.tile == tile }) else {
            throw .media("the server gave no grant for the \(tile.rawValue) picture")
        }
        let url: IngestURL
        do {
            url = try IngestURL(parsing: grant.url)
        } catch {
            throw .media("the grant's ingest URL cannot be used: \(error)")
        }
        await stop()
        let sink = RTMPSink(url: url, streamKey: grant.key, options: RTMPClient.Options(
            caFile: caFile, socketSendBufferSize: RTMPSink.socketSendBufferSize(for: configuration.settings)))
        let session: BroadcastSession
        do {
            session = try BroadcastSession(configuration: configuration, outputs: [BroadcastOutput(sink: sink)])
        } catch {
            throw .media("cannot start the broadcast: \(error.message)")
        }
        let camera = state.withLock { state -> Bool in
            state.session = session
            state.run = Task { await session.run() }
            return state.camera
        }
        if !camera { session.pause() }
    }

    /// Stops the broadcast (cleanly: flushed and unpublished) and waits for it.
    public func stop() async {
        let (session, run) = state.withLock { state in
            defer {
                state.session = nil
                state.run = nil
            }
            return (state.session, state.run)
        }
        session?.stop()
        _ = await run?.value
    }

    /// Waits until the broadcast ends by itself (a failure, the duration) or is stopped.
    /// - Returns: how it ended, or nil when nothing was published.
    public func finished() async -> BroadcastState? {
        await state.withLock { $0.run }?.value
    }
}
