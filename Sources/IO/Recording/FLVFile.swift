import AMF
import FLV

/// An FLV recording, written tag by tag: what `stream serve` records by default and `broadcast --record FILE.flv`
/// writes.
///
/// Tags are written whole: a failed write (a full disk) cuts the file back to its last whole tag and throws, so the
/// file always plays to its end. Every `onMetaData` written gets `duration` and `filesize` as its first properties;
/// ``finish()`` patches them with what the file holds (as ffmpeg's FLV muxer does: overwrite the two numbers in
/// place, which needs no new space, so it works on a full disk too). A file that never got an audio or video frame
/// is removed: a recording that failed at once leaves no empty file behind.
public final class FLVFile: RecordingFile {
    private let file: AppendFile
    private var writer: FLVWriter
    private var span = MediaSpan()
    /// File offsets of the `duration` number of each `onMetaData` written (`filesize` follows it).
    private var metadataOffsets: [Int] = []
    private var summary: RecordingSummary?

    /// The body offset of the `duration` number in the `onMetaData` we write: the AMF0 string "onMetaData"
    /// (marker, 16-bit length, 10 bytes), the ECMA array's marker and 32-bit count, then the key "duration"
    /// (16-bit length, 8 bytes) and the number's marker (AMF0 §2.2, §2.4, §2.10).
    static let durationOffset = 13 + 5 + 10 + 1
    /// The body offset of `filesize`, the property after `duration`: 8 bytes of number, key (2 + 8), marker.
    static let fileSizeOffset = durationOffset + 8 + 10 + 1

    /// The file's path.
    public var path: String { file.path }
    /// Bytes in the file: everything up to the last whole tag.
    public var size: Int { file.size }
    /// Audio and video frames written (sequence headers and metadata not counted).
    public var frames: Int { span.frames }

    /// Creates the file and writes the FLV header; a file whose header cannot be written is removed.
    /// - Parameters:
    ///   - path: where.
    ///   - creation: whether an existing file is an error or is replaced.
    ///   - hasAudio: the header's audio flag.
    ///   - hasVideo: the header's video flag.
    /// - Throws: `RecordingWriteError` in plain words ("cannot create PATH: the disk is full").
    public init(path: String, creation: RecordingFileCreation, hasAudio: Bool = true, hasVideo: Bool = true)
        throws(RecordingWriteError) {
        file = try AppendFile(path: path, creation: creation)
        writer = FLVWriter(hasAudio: hasAudio, hasVideo: hasVideo)
        do {
            try file.append(writer.encodeHeader())
        } catch {
            file.close(remove: true)
            throw error
        }
    }

    /// Appends an `onMetaData` script tag at timestamp 0: `properties`, with `duration` and `filesize` first (as
    /// placeholders, patched by ``finish()``; values the properties had for them are dropped).
    /// - Throws: `RecordingWriteError` when the write fails (the file keeps its last whole tag).
    public func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError) {
        var object: AMF0Object = ["duration": .number(0), "filesize": .number(0)]
        object.properties += properties.properties.filter { $0.key != "duration" && $0.key != "filesize" }
        let body = AMF0.encode([.string(FLVMetadata.handlerName), .ecmaArray(object)])
        let start = file.size
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
        if isFrame { span.record(video: tag.type == .video, timestamp: tag.timestamp) }
    }

    /// Writes the duration and size into every `onMetaData` of the file and closes it; a file without a single
    /// audio or video frame is removed instead. Calling it again returns the same summary and does nothing.
    /// - Returns: what the file holds.
    @discardableResult
    public func finish() -> RecordingSummary {
        if let summary { return summary }
        let result: RecordingSummary
        if span.frames == 0 {
            file.close(remove: true)
            result = RecordingSummary(path: path, bytes: 0, durationSeconds: 0, removed: true)
        } else {
            for offset in metadataOffsets {
                file.patch(Self.number(span.seconds), at: offset)
                file.patch(Self.number(Double(file.size)), at: offset - Self.durationOffset + Self.fileSizeOffset)
            }
            result = RecordingSummary(path: path, bytes: file.size, durationSeconds: span.seconds, removed: false)
            file.close(remove: false)
        }
        summary = result
        return result
    }

    private func append(_ tag: FLVTag) throws(RecordingWriteError) {
        let bytes: [UInt8]
        do {
            bytes = try writer.encode(tag)
        } catch {
            throw RecordingWriteError(code: 0, reason: "\(error)",
                                      description: "cannot record a tag of \(tag.body.count) bytes: \(error)")
        }
        try file.append(bytes)
    }

    /// An AMF0 number's 8 bytes (big-endian IEEE 754 double).
    private static func number(_ value: Double) -> [UInt8] {
        withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
    }
}
