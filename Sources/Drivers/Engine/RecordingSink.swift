import FLV
import Recording
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A local recording of the broadcast (`--record FILE`): FLV, or fragmented MP4 for a path ending in `.mp4`
/// (``RecordingFormat/init(path:)``), written as the tags come. A failed write (a full disk) is said in plain
/// words with the file kept up to its last whole tag or fragment, while the broadcast's other outputs go on.
public actor RecordingSink: MediaSink {
    /// The file path.
    public nonisolated let path: String
    /// `record PATH`.
    public nonisolated var label: String { "record \(path)" }
    /// A file never congests or reconnects.
    public nonisolated var isNetwork: Bool { false }
    /// The container, from the path's extension.
    public nonisolated let format: RecordingFormat
    private var file: (any RecordingFile)?
    /// What the file held when it was closed (nil while open or never opened).
    public private(set) var summary: RecordingSummary?

    /// Creates a sink that will write `path`, a new file (an existing one is never overwritten), in the format its
    /// extension names.
    public init(path: String) {
        self.path = path
        format = RecordingFormat(path: path)
    }

    /// Creates the file.
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the file exists or cannot be created.
    public func open() throws(BroadcastError) {
        if file != nil { return }
        do {
            file = try format.create(path: path, creation: .exclusive)
        } catch where error.code == EEXIST {
            throw BroadcastError(.recordingFailed, "cannot create the recording \(path): the file exists; choose "
                                    + "another name or remove it (nothing was overwritten)")
        } catch {
            throw BroadcastError(.recordingFailed, "cannot create the recording \(path): \(error.reason); "
                                    + "check that the directory exists and is writable")
        }
    }

    /// Records the metadata (FLV: an `onMetaData` tag).
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the write fails.
    public func sendMetadata(_ metadata: FLVMetadata) throws(BroadcastError) {
        try write { file throws(RecordingWriteError) in try file.writeMetadata(metadata.properties) }
    }

    /// Writes one tag.
    /// - Throws: `BroadcastError` (`.recordingFailed`) when the write fails.
    public func send(_ tag: FLVTag) throws(BroadcastError) {
        let isFrame = tag.type != .scriptData && !tag.isSequenceHeader
        try write { file throws(RecordingWriteError) in try file.writeMedia(tag, isFrame: isFrame) }
    }

    /// Always 0: writes go straight to the kernel.
    public var queuedBytes: Int { 0 }

    /// Returns at once: nothing is buffered.
    public func waitForDrain(below threshold: Int) {}

    /// Finishes the file (FLV: the metadata's duration and size patched; MP4: the last fragment written) and closes
    /// it; removed if it never got a frame.
    public func close(flushTimeout: Duration) {
        guard let file else { return }
        summary = file.finish()
        self.file = nil
    }

    /// One write to the open file; a failure closes the file at its last whole tag or fragment and says what it kept.
    private func write(_ body: (any RecordingFile) throws(RecordingWriteError) -> Void) throws(BroadcastError) {
        guard let file else {
            throw BroadcastError(.recordingFailed, "the recording \(path) is not open")
        }
        do {
            try body(file)
        } catch {
            let kept = file.finish()
            summary = kept
            self.file = nil
            let unit = format == .mp4 ? "fragment" : "tag"
            let what = kept.removed
                ? "the file held no frame yet and was removed"
                : "the file was closed at its last whole \(unit) (\(Self.describe(kept)))"
            let advice = error.isDiskFull ? "free some space" : "check the file's directory"
            throw BroadcastError(.recordingFailed, "recording to \(path) stopped: \(error.reason); \(what); "
                                    + "\(advice) and record again")
        }
    }

    private static func describe(_ summary: RecordingSummary) -> String {
        let seconds = (summary.durationSeconds * 10).rounded() / 10
        let megabytes = (Double(summary.bytes) / 1e5).rounded() / 10
        return "\(seconds) s, \(megabytes) MB"
    }
}

