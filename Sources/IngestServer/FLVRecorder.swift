import AMF
import FLV
import FLVRecording
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One recording file of a publish: an ``FLVFile`` named after the app, the key's tag and the time, with
/// timestamps counted from the file's first tag (as nginx-rtmp's recorder does).
///
/// Runs on the server's loop thread: writes are small (one tag) and go to the page cache. A failed write (a full
/// disk) cuts the file back to its last whole tag and throws; the caller then ``finish()``es it.
final class FLVRecorder {
    private let file: FLVFile
    /// The publisher's timestamp of the first media tag: the file's time zero.
    private var epoch: UInt32?

    /// The file's path.
    var path: String { file.path }

    /// Creates the file (never overwriting one: a suffix is added) in `directory` and writes the FLV header.
    /// A file whose header cannot be written is removed: a full disk leaves no empty file behind.
    init(directory: String, app: String, keyTag: String, now: Date = Date()) throws(RecordingWriteError) {
        // yyyyMMdd-HHmmss in UTC, from the ISO 8601 basic format (no locale or ICU needed).
        let stamp = now.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard,
                                                          timeSeparator: .omitted, timeZone: .gmt))
            .compactMap { $0 == "T" ? "-" : $0 == "Z" ? nil : $0 }
        let safeApp = app.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let base = "\(String(safeApp))-\(keyTag.dropFirst())-\(String(stamp))"
        file = try Self.create(directory: directory, base: base)
    }

    /// A new file named `base.flv` in `directory`, or `base-2.flv`, `base-3.flv`… when that exists.
    private static func create(directory: String, base: String) throws(RecordingWriteError) -> FLVFile {
        var attempt = 1
        while true {
            let candidate = attempt == 1 ? "\(directory)/\(base).flv" : "\(directory)/\(base)-\(attempt).flv"
            do {
                return try FLVFile(path: candidate, creation: .exclusive)
            } catch where error.code == EEXIST {
                attempt += 1
            }
        }
    }

    /// Appends an `onMetaData` script tag: the publisher's properties, with `duration` and `filesize` first (as
    /// placeholders, patched by ``finish()``).
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

    /// Writes the duration and size into every `onMetaData` of the file and closes it; a file without a single
    /// audio or video frame is removed instead.
    /// - Returns: what the file holds.
    @discardableResult
    func finish() -> FLVFile.Summary {
        file.finish()
    }
}
