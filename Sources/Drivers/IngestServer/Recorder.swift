import AMF
import FLV
import Recording
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One recording file of a publish (FLV or MP4) named after the app, the key's tag and the time, with timestamps
/// counted from the file's first tag (as nginx-rtmp's recorder does).
///
/// Runs on the server's loop thread: writes are small (one tag, or one fragment per keyframe) and go to the page
/// cache. A failed write (a full disk) cuts the file back to its last whole tag or fragment and throws; the caller
/// then ``finish()``es it.
final class Recorder {
    private let file: any RecordingFile
    /// The publisher's timestamp of the first media tag: the file's time zero.
    private var epoch: UInt32?

    /// The file's path.
    var path: String { file.path }

    /// Creates the file (never overwriting one: a suffix is added) in `directory`. A file whose first bytes cannot
    /// be written is removed: a full disk leaves no empty file behind.
    init(directory: String, format: RecordingFormat, app: String, keyTag: String, now: Date = Date())
        throws(RecordingWriteError) {
        // yyyyMMdd-HHmmss in UTC, from the ISO 8601 basic format (no locale or ICU needed).
        let stamp = now.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard,
                                                          timeSeparator: .omitted, timeZone: .gmt))
            .compactMap { $0 == "T" ? "-" : $0 == "Z" ? nil : $0 }
        let safeApp = app.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let base = "\(String(safeApp))-\(keyTag.dropFirst())-\(String(stamp))"
        file = try Self.create(directory: directory, base: base, format: format)
    }

    /// A new file named `base.flv` (or `.mp4`) in `directory`, or `base-2.flv`, `base-3.flv`… when that exists.
    private static func create(directory: String, base: String, format: RecordingFormat)
        throws(RecordingWriteError) -> any RecordingFile {
        var attempt = 1
        while true {
            let name = attempt == 1 ? base : "\(base)-\(attempt)"
            do {
                return try format.create(path: "\(directory)/\(name).\(format.fileExtension)", creation: .exclusive)
            } catch where error.code == EEXIST {
                attempt += 1
            }
        }
    }

    /// Records the publisher's `onMetaData` (FLV: with `duration` and `filesize` patched by ``finish()``).
    func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError) {
        try file.writeMetadata(properties)
    }

    /// Appends an audio or video tag; `isFrame` is false for a sequence header.
    func writeMedia(video: Bool, timestamp: UInt32, body: [UInt8], isFrame: Bool) throws(RecordingWriteError) {
        let epoch = self.epoch ?? timestamp
        // The difference as a signed 32-bit value: wraps across the 32-bit rollover, and a tag a little older
        // than the first (audio just before the keyframe a resumed file starts with) is put at zero.
        let offset = Int32(bitPattern: timestamp &- epoch)
        let rebased = UInt32(max(0, offset))
        try file.writeMedia(FLVTag(type: video ? .video : .audio, timestamp: rebased, body: body), isFrame: isFrame)
        self.epoch = epoch
    }

    /// Finishes and closes the file; a file without a single audio or video frame is removed instead.
    /// - Returns: what the file holds.
    @discardableResult
    func finish() -> RecordingSummary {
        file.finish()
    }
}
