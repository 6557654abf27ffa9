import IngestServer
import Locking

/// The recordings being written now, by path, learned from the recording events (the ingest's, WHIP's and the
/// replays'): they are not listed as replays, and retention never deletes them.
final class RecordingsInUse: Sendable {
    private let open = Locked(Set<String>())

    /// Notes a recording event: a file started, or ended one way or another.
    func observe(_ event: ServerEvent) {
        switch event {
        case .recordingStarted(let path):
            open.withLock { _ = $0.insert(path) }
        case .recordingFinished(let path, _, _), .recordingRemoved(let path, _), .recordingFailed(let path, _):
            open.withLock { _ = $0.remove(path) }
        default:
            break
        }
    }

    /// The paths being written.
    var paths: Set<String> { open.withLock { $0 } }
}
