import AMF
import FLV

/// A recording on disk, fed the stream's FLV tags as they come: ``FLVFile`` or ``MP4File``.
///
/// Both keep what is on disk playable to its end whatever happens (a failed write cuts the file back to its last
/// whole tag or fragment), and a file that never got an audio or video frame is removed when finished. Not
/// thread-safe: one owner writes it.
public protocol RecordingFile: AnyObject {
    /// The file's path.
    var path: String { get }
    /// Audio and video frames recorded so far (sequence headers and metadata not counted).
    var frames: Int { get }
    /// Records the stream's `onMetaData` properties.
    /// - Throws: `RecordingWriteError` when the write fails (the file keeps what it had).
    func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError)
    /// Records an audio or video tag (a sequence header or a frame), its timestamp counted from the file's start.
    /// - Parameters:
    ///   - tag: the tag.
    ///   - isFrame: false for a sequence header.
    /// - Throws: `RecordingWriteError` when the write fails (the file keeps what it had) or the tag cannot be
    ///   recorded in this format.
    func writeMedia(_ tag: FLVTag, isFrame: Bool) throws(RecordingWriteError)
    /// Writes what is pending, closes the file (removed if it got no frame) and says what it holds. Calling it
    /// again returns the same and does nothing.
    @discardableResult
    func finish() -> RecordingSummary
}

/// What a closed recording holds.
public struct RecordingSummary: Sendable, Equatable {
    /// The file's path.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int
    /// The span of its media, in seconds (the last timestamp plus the last video frame's duration).
    public var durationSeconds: Double
    /// Whether it was removed because it held no audio or video frame.
    public var removed: Bool
}

/// The container a recording is written in.
public enum RecordingFormat: String, Sendable, CaseIterable {
    /// FLV: what RTMP carries, tag for tag (H.264/AAC, or Opus as Enhanced FLV); plays in ffmpeg, VLC, mpv.
    case flv
    /// Fragmented MP4 (ISO BMFF with a fragment per keyframe): plays in browsers, QuickTime and phones too;
    /// H.264 and AAC only.
    case mp4

    /// The file name extension, without the dot.
    public var fileExtension: String { rawValue }

    /// The format a path asks for by its extension: `.mp4`, `.m4v` or `.mov` for MP4, anything else FLV.
    public init(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let suffix = name.split(separator: ".").count > 1 ? name.split(separator: ".").last.map(String.init) : nil
        switch suffix?.lowercased() {
        case "mp4", "m4v", "mov": self = .mp4
        default: self = .flv
        }
    }

    /// Creates a recording file in this format.
    /// - Throws: `RecordingWriteError` when the file cannot be created.
    public func create(path: String, creation: RecordingFileCreation) throws(RecordingWriteError) -> any RecordingFile {
        switch self {
        case .flv: try FLVFile(path: path, creation: creation)
        case .mp4: try MP4File(path: path, creation: creation)
        }
    }
}

/// The span of a recording's media: the latest frame timestamp plus how long the last video frame lasted.
struct MediaSpan {
    private(set) var frames = 0
    private var lastTimestamp: UInt32 = 0
    private var lastVideoTimestamp: UInt32?
    private var videoFrameDuration: UInt32 = 0

    /// Counts a frame with its timestamp (milliseconds from the file's start).
    mutating func record(video: Bool, timestamp: UInt32) {
        frames += 1
        lastTimestamp = max(lastTimestamp, timestamp)
        guard video else { return }
        if let previous = lastVideoTimestamp, timestamp > previous { videoFrameDuration = timestamp - previous }
        lastVideoTimestamp = timestamp
    }

    /// Seconds of media; 0 without a frame.
    var seconds: Double { frames == 0 ? 0 : Double(lastTimestamp &+ videoFrameDuration) / 1000 }
}
