import LiveProtocol
import Locking
import RealtimeCalls

/// Media that records what the show asks of it: which grants it was given, and when it was stopped. The real
/// engine behind ``LiveMedia`` is tested by `stream live` publishing to the real server (StreamCLITests).
final class RecordingMedia: LiveMedia {
    private struct State {
        var camera = false
        var microphone = false
        var published: [PublishGrant] = []
        var stopped = false
        var path: (@Sendable (MediaState) -> Void)?
    }

    private let state = Locked(State())

    var isCameraOn: Bool { state.withLock { $0.camera } }
    var isMicrophoneOn: Bool { state.withLock { $0.microphone } }
    var tiles: [TileKind] { [.camera] }
    var published: [PublishGrant] { state.withLock { $0.published } }
    var stopped: Bool { state.withLock { $0.stopped } }

    func preview() async throws(LiveStreamError) {
        state.withLock {
            $0.camera = true
            $0.microphone = true
        }
    }

    func setCamera(_ on: Bool) async throws(LiveStreamError) {
        state.withLock { $0.camera = on }
    }

    func setMicrophone(_ on: Bool) async throws(LiveStreamError) {
        state.withLock { $0.microphone = on }
    }

    func publish(_ grants: [PublishGrant]) async throws(LiveStreamError) {
        state.withLock { $0.published = grants }
    }

    func observePath(_ handler: @escaping @Sendable (MediaState) -> Void) {
        state.withLock { $0.path = handler }
    }

    /// Says the published path is `state` now, as a real media's engine would.
    func report(_ state: MediaState) {
        self.state.withLock { $0.path }?(state)
    }

    func stop() async {
        state.withLock { $0.stopped = true }
    }
}
