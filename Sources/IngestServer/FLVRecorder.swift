import AMF
import FLV
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One recording file: FLV tags written whole as they arrive, timestamps counted from the file's first tag, and
/// `onMetaData` patched with the duration and size of what was actually written when the file is closed (as
/// ffmpeg's FLV muxer does: seek back and overwrite the two numbers).
///
/// Runs on the server's loop thread: writes are small (one tag) and go to the page cache. A failed write (a full
/// disk) cuts the file back to its last whole tag and throws; the caller then ``finish()``es it.
final class FLVRecorder {
    /// What the closed file holds.
    struct Summary {
        /// The file's path.
        var path: String
        /// Its size in bytes.
        var bytes: Int
        /// The span of its media, in seconds.
        var durationSeconds: Double
        /// Whether it was removed because it held no audio or video frame.
        var removed: Bool
    }

    let path: String
    private var fd: Int32
    private var writer = FLVWriter(hasAudio: true, hasVideo: true)
    /// Bytes in the file: everything up to the last whole tag.
    private(set) var size = 0
    /// Audio and video frames written (sequence headers and metadata not counted).
    private(set) var frames = 0
    /// The publisher's timestamp of the first media tag: the file's time zero (as nginx-rtmp's recorder does).
    private var epoch: UInt32?
    /// The latest timestamp written, and how long the last video frame lasted, for the duration.
    private var lastTimestamp: UInt32 = 0
    private var lastVideoTimestamp: UInt32?
    private var videoFrameDuration: UInt32 = 0
    /// File offsets of the `duration` number of each `onMetaData` written (`filesize` follows it).
    private var metadataOffsets: [Int] = []

    /// The body offset of the `duration` number in the `onMetaData` we write: the AMF0 string "onMetaData"
    /// (marker, 16-bit length, 10 bytes), the ECMA array's marker and 32-bit count, then the key "duration"
    /// (16-bit length, 8 bytes) and the number's marker (AMF0 §2.2, §2.4, §2.10).
    static let durationOffset = 13 + 5 + 10 + 1
    /// The body offset of `filesize`, the property after `duration`: 8 bytes of number, key (2 + 8), marker.
    static let fileSizeOffset = durationOffset + 8 + 10 + 1

    /// Creates the file (never overwriting one: a suffix is added) in `directory` and writes the FLV header.
    /// A file whose header cannot be written is removed: a full disk leaves no empty file behind.
    init(directory: String, app: String, keyTag: String, now: Date = Date()) throws(RecordingWriteError) {
        // yyyyMMdd-HHmmss in UTC, from the ISO 8601 basic format (no locale or ICU needed).
        let stamp = now.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard,
                                                          timeSeparator: .omitted, timeZone: .gmt))
            .compactMap { $0 == "T" ? "-" : $0 == "Z" ? nil : $0 }
        let safeApp = app.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let base = "\(String(safeApp))-\(keyTag.dropFirst())-\(String(stamp))"
        var candidate = "\(directory)/\(base).flv"
        var attempt = 1
        while FileManager.default.fileExists(atPath: candidate) {
            attempt += 1
            candidate = "\(directory)/\(base)-\(attempt).flv"
        }
        let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(errno, "create", candidate) }
        path = candidate
        self.fd = fd
        do {
            try append(writer.encodeHeader())
        } catch {
            close(fd)
            self.fd = -1
            unlink(candidate)
            throw error
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Appends an `onMetaData` script tag: the publisher's properties, with `duration` and `filesize` first (as
    /// placeholders, patched by ``finish()``).
    func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError) {
        var object: AMF0Object = ["duration": .number(0), "filesize": .number(0)]
        object.properties += properties.properties.filter { $0.key != "duration" && $0.key != "filesize" }
        let body = AMF0.encode([.string(FLVMetadata.handlerName), .ecmaArray(object)])
        let start = size
        try append(FLVTag(type: .scriptData, timestamp: 0, body: body))
        metadataOffsets.append(start + FLVTagHeader.size + Self.durationOffset)
    }

    /// Appends an audio or video tag; `isFrame` is false for a sequence header.
    func writeMedia(video: Bool, timestamp: UInt32, body: [UInt8], isFrame: Bool) throws(RecordingWriteError) {
        let epoch = self.epoch ?? timestamp
        // The difference as a signed 32-bit value: wraps across the 32-bit rollover, and a tag a little older
        // than the first (audio just before the keyframe a resumed file starts with) is put at zero.
        let offset = Int32(bitPattern: timestamp &- epoch)
        let rebased = UInt32(max(0, offset))
        try append(FLVTag(type: video ? .video : .audio, timestamp: rebased, body: body))
        self.epoch = epoch
        if isFrame { frames += 1 }
        lastTimestamp = max(lastTimestamp, rebased)
        if video && isFrame {
            if let previous = lastVideoTimestamp, rebased > previous { videoFrameDuration = rebased - previous }
            lastVideoTimestamp = rebased
        }
    }

    /// Writes the duration and size into every `onMetaData` of the file and closes it; a file without a single
    /// audio or video frame is removed instead.
    /// - Returns: what the file holds.
    @discardableResult
    func finish() -> Summary {
        let duration = Double(lastTimestamp &+ videoFrameDuration) / 1000
        guard fd >= 0 else { return Summary(path: path, bytes: size, durationSeconds: duration, removed: false) }
        if frames == 0 {
            close(fd)
            fd = -1
            unlink(path)
            return Summary(path: path, bytes: 0, durationSeconds: 0, removed: true)
        }
        for offset in metadataOffsets {
            // Overwriting bytes already in the file needs no new space: this works on a full disk too.
            patch(duration, at: offset)
            patch(Double(size), at: offset - Self.durationOffset + Self.fileSizeOffset)
        }
        close(fd)
        fd = -1
        return Summary(path: path, bytes: size, durationSeconds: duration, removed: false)
    }

    private func append(_ tag: FLVTag) throws(RecordingWriteError) {
        let bytes: [UInt8]
        do {
            bytes = try writer.encode(tag)
        } catch {
            throw RecordingWriteError(code: 0, reason: "\(error)",
                                      description: "cannot record a tag of \(tag.body.count) bytes: \(error)")
        }
        try append(bytes)
    }

    /// Writes `bytes` at the end of the file; on failure cuts the file back to its last whole tag.
    private func append(_ bytes: [UInt8]) throws(RecordingWriteError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(size + written))
            }
            if count > 0 {
                written += count
                continue
            }
            let code = count < 0 ? errno : ENOSPC
            if code == EINTR { continue }
            if written > 0 { _ = ftruncate(fd, off_t(size)) }
            throw .system(code, "write to", path)
        }
        size += written
    }

    private func patch(_ value: Double, at offset: Int) {
        let bytes = withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(offset)) }
    }
}
