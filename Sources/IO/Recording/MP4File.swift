import AMF
import FLV
import MP4

/// A fragmented MP4 recording (ISO/IEC 14496-12 §8.8): the init segment (`ftyp`, `moov`) once the first frame
/// comes, then one movie fragment (`moof` + `mdat`) per keyframe, written whole as each next keyframe arrives, so
/// the file plays in browsers, QuickTime and phones as well as ffmpeg, and a recording cut short (a crash, a full
/// disk) still plays up to its last whole fragment.
///
/// H.264 and AAC only (what ``FLVDemuxer`` reads); a tag in another codec throws. A fragment is also written when
/// it passes ``maximumFragmentBytes`` or ``maximumFragmentMilliseconds`` without a keyframe (and every second for
/// audio alone), so what waits in memory is bounded. A change of codec settings after the init segment was written
/// throws: the caller starts a new file (an MP4 file has one configuration per track).
public final class MP4File: RecordingFile {
    /// The most media one fragment holds before it is written without waiting for a keyframe.
    public static let maximumFragmentBytes = 8 << 20
    /// The longest span one fragment holds before it is written without waiting for a keyframe.
    public static let maximumFragmentMilliseconds: Int64 = 10_000
    /// How often a file without video writes its audio.
    public static let audioOnlyFragmentMilliseconds: Int64 = 1000

    private let file: AppendFile
    private var demuxer = FLVDemuxer()
    private var span = MediaSpan()
    /// The tracks of the init segment, once written.
    private var written: (video: VideoTrack?, audio: AudioTrack?)?
    private var pendingVideo: [TimedSample] = []
    private var pendingAudio: [TimedSample] = []
    private var pendingBytes = 0
    private var pendingSince: Int64?
    private var sequenceNumber: UInt32 = 1
    private var summary: RecordingSummary?
    /// Video frames before the first keyframe: nothing could decode them, so they are not recorded.
    public private(set) var skippedLeadingFrames = 0

    /// The file's path.
    public var path: String { file.path }
    /// Bytes in the file: everything up to the last whole fragment.
    public var size: Int { file.size }
    /// Audio and video frames recorded (written or waiting for their fragment).
    public var frames: Int { span.frames }

    /// Creates the file (empty until the first frame).
    /// - Throws: `RecordingWriteError` in plain words ("cannot create PATH: permission denied").
    public init(path: String, creation: RecordingFileCreation) throws(RecordingWriteError) {
        file = try AppendFile(path: path, creation: creation)
    }

    /// Reads the frame rate for the first frames' durations; MP4 keeps no `onMetaData`.
    public func writeMetadata(_ properties: AMF0Object) throws(RecordingWriteError) {
        let body = AMF0.encode([.string(FLVMetadata.handlerName), .ecmaArray(properties)])
        _ = try? demuxer.append(FLVTag(type: .scriptData, timestamp: 0, body: body))
    }

    /// Takes a sequence header or a frame; writes the fragment before it when it starts a new one.
    /// - Throws: `RecordingWriteError` when a write fails (the file keeps its last whole fragment), a tag cannot be
    ///   read as H.264 or AAC, or the codec settings changed after the init segment.
    public func writeMedia(_ tag: FLVTag, isFrame: Bool) throws(RecordingWriteError) {
        let output: FLVDemuxer.Output?
        do {
            output = try demuxer.append(tag)
        } catch {
            throw RecordingWriteError(code: 0, reason: "this stream cannot be recorded as MP4 (\(error.message))",
                                      description: "cannot record to \(path) as MP4: \(error.message)")
        }
        guard case .sample(let sample)? = output else {
            if let written, demuxer.videoTrack != written.video || demuxer.audioTrack != written.audio {
                throw RecordingWriteError(code: 0, reason: "the stream's codec settings changed",
                                          description: "cannot go on recording to \(path): the stream's codec "
                                            + "settings changed (an MP4 file holds one)")
            }
            return
        }
        if written == nil {
            // A file with a picture starts with one that decodes on its own: what comes before it is left out.
            if demuxer.videoTrack != nil && !(sample.track == .video && sample.sample.isSync) {
                if sample.track == .video { skippedLeadingFrames += 1 }
                return
            }
            try file.append(InitSegment.make(video: demuxer.videoTrack, audio: demuxer.audioTrack))
            written = (demuxer.videoTrack, demuxer.audioTrack)
        }
        if startsFragment(sample, at: Int64(tag.timestamp)) { try flush(before: sample) }
        if sample.track == .video { pendingVideo.append(sample) } else { pendingAudio.append(sample) }
        pendingBytes += sample.sample.data.count
        pendingSince = pendingSince ?? Int64(tag.timestamp)
        span.record(video: tag.type == .video, timestamp: tag.timestamp)
    }

    /// Writes the last fragment and closes the file (removed when it got no frame).
    @discardableResult
    public func finish() -> RecordingSummary {
        if let summary { return summary }
        // What does not fit on the disk is lost; the file still ends at its last whole fragment.
        try? flush(before: nil)
        let result: RecordingSummary
        if written == nil || span.frames == 0 {
            file.close(remove: true)
            result = RecordingSummary(path: path, bytes: 0, durationSeconds: 0, removed: true)
        } else {
            result = RecordingSummary(path: path, bytes: file.size, durationSeconds: span.seconds, removed: false)
            file.close(remove: false)
        }
        summary = result
        return result
    }

    /// Whether `sample` (its tag at `timestamp` ms) begins a new fragment.
    private func startsFragment(_ sample: TimedSample, at timestamp: Int64) -> Bool {
        guard pendingBytes > 0, let since = pendingSince else { return false }
        let milliseconds = timestamp - since
        if written?.video == nil { return milliseconds >= Self.audioOnlyFragmentMilliseconds }
        return (sample.track == .video && sample.sample.isSync) || pendingBytes >= Self.maximumFragmentBytes
            || milliseconds >= Self.maximumFragmentMilliseconds
    }

    /// Writes the pending samples as one fragment; the last video frame lasts until `next` when that is video.
    private func flush(before next: TimedSample?) throws(RecordingWriteError) {
        guard !pendingVideo.isEmpty || !pendingAudio.isEmpty else { return }
        if let next, next.track == .video, let last = pendingVideo.last, next.decodeTime > last.decodeTime {
            pendingVideo[pendingVideo.count - 1].sample.duration = UInt32(clamping: next.decodeTime - last.decodeTime)
        }
        let tracks = [TrackFragment(trackID: VideoTrack.trackID, timedSamples: pendingVideo),
                      TrackFragment(trackID: AudioTrack.trackID, timedSamples: pendingAudio)].compactMap { $0 }
        let bytes = MovieFragment.make(sequenceNumber: sequenceNumber, tracks: tracks)
        pendingVideo.removeAll(keepingCapacity: true)
        pendingAudio.removeAll(keepingCapacity: true)
        pendingBytes = 0
        pendingSince = nil
        guard !bytes.isEmpty else { return }
        sequenceNumber &+= 1
        try file.append(bytes)
    }

}
