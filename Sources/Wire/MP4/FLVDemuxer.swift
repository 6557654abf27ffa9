import FLV

/// Turns the FLV tags an RTMP ingest receives into MP4 track descriptions and timed samples, without I/O.
///
/// - Video: AVC sequence headers become ``VideoTrack``s; frames become samples at 90 kHz, with FLV's composition
///   time as the composition offset and the sync flag from the frame type. A frame's duration is not known until
///   the next frame arrives, so it is estimated as the mean of the last ``averagedIntervals`` frame intervals (at
///   first from `onMetaData`'s frame rate, else 1/30 s): a mean, because FLV's millisecond timestamps make a
///   30 fps interval 33 or 34 ms. The decode times themselves are always the publisher's.
/// - Audio: AAC sequence headers become ``AudioTrack``s; frames become samples of 1024 ticks at the sample rate,
///   counted from the first frame so that FLV's millisecond rounding does not jitter them, and re-anchored to the
///   tag timestamp when the tags run ahead of the count by more than a frame (a gap in the audio).
/// - A video decode time that goes backwards is moved just after the previous one (counted in
///   ``reorderedTimestamps``): fragments must not go back in time.
///
/// A tag that cannot be used throws and leaves the demuxer as it was.
public struct FLVDemuxer: Sendable {
    /// What one tag turned into.
    public enum Output: Sendable, Hashable {
        /// A video configuration, new or different from the last.
        case videoTrack(VideoTrack)
        /// An audio configuration, new or different from the last.
        case audioTrack(AudioTrack)
        /// A media sample.
        case sample(TimedSample)
    }

    /// The frame interval assumed before two frames have arrived and without `onMetaData`: 1/30 s at 90 kHz.
    public static let defaultFrameDuration: UInt32 = 3000
    /// Frame intervals longer than this (1 s) are gaps, not frame rates, and do not become the estimate.
    static let maximumFrameDuration: Int64 = 90_000
    /// How many recent frame intervals the duration estimate averages.
    public static let averagedIntervals = 8

    /// The current video configuration.
    public private(set) var videoTrack: VideoTrack?
    /// The current audio configuration.
    public private(set) var audioTrack: AudioTrack?
    /// Video decode times that went backwards and were moved forward.
    public private(set) var reorderedTimestamps = 0

    private var clock = TimestampUnwrapper()
    private var lastVideoDecodeTime: Int64?
    private var frameDuration = defaultFrameDuration
    private var recentIntervals: [Int64] = []
    private var nextAudioDecodeTime: Int64?

    /// Creates a demuxer with no configuration yet.
    public init() {}

    /// Reads one tag.
    /// - Returns: what it held, or nil for a tag that changes nothing (metadata, end of sequence, a repeated
    ///   sequence header).
    /// - Throws: ``MP4Error`` for a malformed body, a codec other than H.264/AAC, or a frame before its sequence
    ///   header.
    public mutating func append(_ tag: FLVTag) throws(MP4Error) -> Output? {
        switch tag.type {
        case .scriptData:
            readFrameRate(tag.body)
            return nil
        case .video:
            return try appendVideo(tag)
        case .audio:
            return try appendAudio(tag)
        }
    }

    private mutating func readFrameRate(_ body: [UInt8]) {
        guard let metadata = try? FLVMetadata(parsing: body), let rate = metadata.frameRate,
              rate >= 1, rate <= 240, lastVideoDecodeTime == nil else { return }
        frameDuration = UInt32(Double(VideoTrack.timescale) / rate)
    }

    private mutating func appendVideo(_ tag: FLVTag) throws(MP4Error) -> Output? {
        let body: FLVVideoTagBody
        do {
            body = try FLVVideoTagBody(parsing: tag.body)
        } catch {
            throw MP4Error(.invalidSample, "video tag at \(tag.timestamp) ms: \(error.message)")
        }
        switch body.packetType {
        case .sequenceHeader:
            let track = try VideoTrack(configurationBytes: body.data)
            guard track != videoTrack else { return nil }
            videoTrack = track
            return .videoTrack(track)
        case .endOfSequence:
            return nil
        case .nalu:
            guard videoTrack != nil else {
                throw MP4Error(.invalidSample, "a video frame at \(tag.timestamp) ms came before the AVC sequence "
                    + "header; the publisher must send its decoder configuration first")
            }
            guard !body.data.isEmpty else { return nil }
            let ticksPerMillisecond = Int64(VideoTrack.timescale / 1000)
            var decodeTime = clock.extend(tag.timestamp) * ticksPerMillisecond
            if let last = lastVideoDecodeTime {
                if decodeTime <= last {
                    reorderedTimestamps += 1
                    decodeTime = last + ticksPerMillisecond
                } else if decodeTime - last <= Self.maximumFrameDuration {
                    if recentIntervals.count == Self.averagedIntervals { recentIntervals.removeFirst() }
                    recentIntervals.append(decodeTime - last)
                    let sum = recentIntervals.reduce(0, +)
                    let count = Int64(recentIntervals.count)
                    frameDuration = UInt32((sum + count / 2) / count)
                }
            }
            lastVideoDecodeTime = decodeTime
            let sample = FragmentSample(duration: frameDuration,
                                        compositionOffset: body.compositionTime &* Int32(ticksPerMillisecond),
                                        isSync: body.isKeyFrame, data: body.data)
            return .sample(TimedSample(track: .video, decodeTime: decodeTime, sample: sample))
        }
    }

    private mutating func appendAudio(_ tag: FLVTag) throws(MP4Error) -> Output? {
        let body: FLVAudioTagBody
        do {
            body = try FLVAudioTagBody(parsing: tag.body)
        } catch {
            throw MP4Error(.invalidSample, "audio tag at \(tag.timestamp) ms: \(error.message)")
        }
        switch body.packetType {
        case .sequenceHeader:
            let track = try AudioTrack(configurationBytes: body.data)
            guard track != audioTrack else { return nil }
            if track.timescale != audioTrack?.timescale { nextAudioDecodeTime = nil }
            audioTrack = track
            return .audioTrack(track)
        case .raw:
            guard let track = audioTrack else {
                throw MP4Error(.invalidSample, "an audio frame at \(tag.timestamp) ms came before the AAC sequence "
                    + "header; the publisher must send its decoder configuration first")
            }
            guard !body.data.isEmpty else { return nil }
            let frame = Int64(AudioTrack.samplesPerFrame)
            let stamped = clock.extend(tag.timestamp) * Int64(track.timescale) / 1000
            var decodeTime = stamped
            // Within a frame of the count, or behind it (audio cannot go back): the count wins.
            if let expected = nextAudioDecodeTime, stamped - expected <= frame {
                decodeTime = expected
            }
            nextAudioDecodeTime = decodeTime + frame
            let sample = FragmentSample(duration: UInt32(frame), isSync: true, data: body.data)
            return .sample(TimedSample(track: .audio, decodeTime: decodeTime, sample: sample))
        }
    }
}
