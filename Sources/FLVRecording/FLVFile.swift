import AMF
import FLV
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// An FLV file on disk, written tag by tag: what both recorders (`stream serve`'s and `broadcast --record`'s) share.
///
/// Tags are written whole: a failed write (a full disk) cuts the file back to its last whole tag and throws, so the
/// file always plays to its end. Every `onMetaData` written gets `duration` and `filesize` as its first properties;
/// ``finish()`` patches them with what the file holds (as ffmpeg's FLV muxer does: overwrite the two numbers in
/// place, which needs no new space, so it works on a full disk too). A file that never got an audio or video frame
/// is removed: a recording that failed at once leaves no empty file behind.
///
/// Not thread-safe: one owner writes it (the server's loop thread, or the broadcast's file sink).
public final class FLVFile {
    /// What the closed file holds.
    public struct Summary: Sendable, Equatable {
        /// The file's path.
        public var path: String
        /// Its size in bytes.
        public var bytes: Int
        /// The span of its media, in seconds (the last timestamp plus the last video frame's duration).
        public var durationSeconds: Double
        /// Whether it was removed because it held no audio or video frame.
        public var removed: Bool
    }

    /// How to create the file.
    public enum Creation: Sendable {
        /// Fail when the file exists (a server naming its own files).
        case exclusive
        /// Replace what the file held (a path the user chose).
        case truncate
    }

    /// The file's path.
    public let path: String
    private var fd: Int32
    private var writer: FLVWriter
    /// Bytes in the file: everything up to the last whole tag.
    public private(set) var size = 0
    /// Audio and video frames written (sequence headers and metadata not counted).
    public private(set) var frames = 0
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

    /// Creates the file and writes the FLV header; a file whose header cannot be written is removed.
    /// - Parameters:
    ///   - path: where.
    ///   - creation: whether an existing file is an error or is replaced.
    ///   - hasAudio: the header's audio flag.
    ///   - hasVideo: the header's video flag.
    /// - Throws: `RecordingWriteError` in plain words ("cannot create PATH: the disk is full").
    public init(path: String, creation: Creation, hasAudio: Bool = true, hasVideo: Bool = true)
        throws(RecordingWriteError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (creation == .exclusive ? O_EXCL : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .system(errno, "create", path) }
        self.path = path
        self.fd = fd
        writer = FLVWriter(hasAudio: hasAudio, hasVideo: hasVideo)
        do {
            try append(writer.encodeHeader())
        } catch {
            close(fd)
            self.fd = -1
            unlink(path)
            throw error
        }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Appends an `onMetaData` script tag at timestamp 0: `properties`, with `duration` and `filesize` first (as
    /// placeholders, patched by ``finish()``; values the properties had for them are dropped).
    /// - Throws: `RecordingWriteError` when the write fails (the file keeps its last whole tag).
    public func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError) {
        var object: AMF0Object = ["duration": .number(0), "filesize": .number(0)]
        object.properties += properties.properties.filter { $0.key != "duration" && $0.key != "filesize" }
        let body = AMF0.encode([.string(FLVMetadata.handlerName), .ecmaArray(object)])
        let start = size
        try append(FLVTag(type: .scriptData, timestamp: 0, body: body))
        metadataOffsets.append(start + FLVTagHeader.size + Self.durationOffset)
    }

    /// Appends an audio or video tag.
    /// - Parameters:
    ///   - tag: the tag, its timestamp already counted from the file's start.
    ///   - isFrame: false for a sequence header (not counted as a frame, nor in the duration).
    /// - Throws: `RecordingWriteError` when the write fails (the file keeps its last whole tag).
    public func writeMedia(_ tag: FLVTag, isFrame: Bool) throws(RecordingWriteError) {
        try append(tag)
        guard isFrame else { return }
        frames += 1
        lastTimestamp = max(lastTimestamp, tag.timestamp)
        if tag.type == .video {
            if let previous = lastVideoTimestamp, tag.timestamp > previous {
                videoFrameDuration = tag.timestamp - previous
            }
            lastVideoTimestamp = tag.timestamp
        }
    }

    /// Whether the file is still open (``finish()`` not called yet).
    public var isOpen: Bool { fd >= 0 }

    /// Writes the duration and size into every `onMetaData` of the file and closes it; a file without a single
    /// audio or video frame is removed instead. Calling it again returns the same summary and does nothing.
    /// - Returns: what the file holds.
    @discardableResult
    public func finish() -> Summary {
        let duration = frames == 0 ? 0 : Double(lastTimestamp &+ videoFrameDuration) / 1000
        guard fd >= 0 else {
            return Summary(path: path, bytes: frames == 0 ? 0 : size, durationSeconds: duration, removed: frames == 0)
        }
        if frames == 0 {
            close(fd)
            fd = -1
            unlink(path)
            return Summary(path: path, bytes: 0, durationSeconds: 0, removed: true)
        }
        for offset in metadataOffsets {
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
        guard fd >= 0 else {
            throw RecordingWriteError(code: EBADF, reason: "the file is closed",
                                      description: "cannot write to \(path): the file is closed")
        }
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
