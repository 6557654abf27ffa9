import FLV
import IngestServer
import Locking
import Recording

/// WHIP publishes recorded as RTMP publishes are (`--record-dir`, `--record-format`): a file per publish, named
/// `APP-TAG-TIME` where TAG is `#` and the first 8 hex digits of the publish's media tag (a WHIP publish into a
/// show has no stream key to take a tag from; the media tag is one-way too), and the same lines.
final class ServeWHIPRecordings: Sendable {
    private let directory: String
    private let format: RecordingFormat
    private let console: Console
    private let inUse: RecordingsInUse
    /// The open recordings by app and media tag. One per live publish: ended ones are removed.
    private let recordings = Locked([String: TagRecording]())

    init(directory: String, format: RecordingFormat, inUse: RecordingsInUse, console: Console) {
        self.directory = directory
        self.format = format
        self.inUse = inUse
        self.console = console
    }

    func started(app: String, tag: String) {
        let console = self.console
        let inUse = self.inUse
        let recording = TagRecording(directory: directory, format: format, app: app, keyTag: "#" + tag.prefix(8),
                                     emit: { event in
                                         inUse.observe(event)
                                         console.print(ServeCommand.timestamp() + " \(event)")
                                     })
        let replaced = recordings.withLock { $0.updateValue(recording, forKey: Self.key(app, tag)) }
        replaced?.finish()
    }

    func tag(app: String, tag: String, _ flv: FLVTag) {
        recordings.withLock { $0[Self.key(app, tag)] }?.write(flv)
    }

    func stopped(app: String, tag: String) {
        recordings.withLock { $0.removeValue(forKey: Self.key(app, tag)) }?.finish()
    }

    /// Closes every recording (the server stops).
    func finishAll() {
        let open = recordings.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for recording in open { recording.finish() }
    }

    private static func key(_ app: String, _ tag: String) -> String { app + "/" + tag }
}
