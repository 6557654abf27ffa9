import FLV
import MP4

/// Packages one live stream's FLV tags as Low-Latency HLS (RFC 8216bis), without I/O: fMP4 parts and segments in a
/// sliding window, and the media playlist that lists them.
///
/// - Segments start on keyframes: a keyframe closes the open segment once it has lasted
///   ``HLSConfiguration/minimumSegmentMilliseconds``. The first segment fixes EXT-X-TARGETDURATION (its duration
///   plus a quarter second, rounded); should a later keyframe interval outgrow it, the segment is cut at a part
///   boundary without a keyframe (counted in ``HLSStatistics/forcedSegmentCuts``) so every EXTINF stays within it.
/// - Parts are cut on the lead track (video, or audio in an audio-only stream) by the media's timestamps: a video
///   part is complete when the first frame that would take it past PART-TARGET arrives, and ends at that frame's
///   decode time, where the next part starts. Parts tile the timeline, so a segment's EXTINF is the sum of its
///   parts, and the preload hint is always the part that comes next. A part starting on a keyframe is
///   INDEPENDENT=YES.
/// - Nothing is written before the first keyframe (earlier frames are counted and dropped) and the timeline starts
///   at 0 there. ``beginDiscontinuity()`` ends the segment; the next source's first keyframe starts a new one after
///   EXT-X-DISCONTINUITY, on the same continuing timeline, with a new EXT-X-MAP when the configuration differs.
/// - Memory: the window holds ``HLSConfiguration/windowSegments`` complete segments (and at most
///   ``HLSConfiguration/maximumWindowBytes``); older segments and their parts are dropped, and so are init segments
///   no segment needs.
///
/// The playlist exists (``playlist`` is non-nil) once the first segment is complete.
public struct LLHLSPackager: Sendable {
    private struct InitVersion: Sendable {
        let index: Int
        let video: VideoTrack?
        let audio: AudioTrack?
        let bytes: [UInt8]
    }

    /// Before the first keyframe of the stream, or of a new source after a discontinuity.
    private struct Starting: Sendable {
        /// Output time (90 kHz) the first keyframe maps to.
        var resumeAt: Int64
        /// Whether the first segment follows a discontinuity.
        var afterDiscontinuity: Bool
        /// Audio that came before the first keyframe (demuxer time), at most a second of it.
        var pendingAudio: [TimedSample] = []
    }

    /// Cutting parts and segments.
    private struct Cutting: Sendable {
        /// The track parts are cut on.
        let lead: TimedSample.Track
        /// Added to the demuxer's decode times to put them on the output timeline (90 kHz; converted to the audio
        /// rate for audio).
        let offset: Int64
        /// The configuration the open segment's init segment describes.
        var video: VideoTrack?
        var audio: AudioTrack?
        /// A sequence header changed: the next keyframe starts a segment with a new init segment.
        var configurationChanged = false
        /// Samples of the open part (output time).
        var pendingVideo: [TimedSample] = []
        var pendingAudio: [TimedSample] = []
        /// Where the open part starts (90 kHz); nil when it holds no lead sample yet.
        var partStart: Int64?
        var partIndependent = false
        /// The estimated end of the last lead sample (90 kHz).
        var leadEnd: Int64
        /// The last video frame's decode time, and the frame interval seen last without a gap: a frame's duration
        /// is estimated from it (the demuxer's estimate after frames the publisher dropped spans the gap).
        var lastVideoTime: Int64?
        var frameTicks: Int64 = 0
    }

    private enum Phase: Sendable {
        case starting(Starting)
        case cutting(Cutting)
        case ended
    }

    /// The configuration in force.
    public let configuration: HLSConfiguration
    /// The publish's epoch, in every resource name.
    public let epoch: String
    /// What was skipped or dropped, and why.
    public private(set) var statistics = HLSStatistics()
    /// EXT-X-TARGETDURATION in seconds, once the first segment is complete.
    public private(set) var targetDuration: Int?
    /// The complete segments of the window, oldest first.
    public private(set) var segments: [HLSSegment] = []
    /// The segment being written (its complete parts), if any.
    public private(set) var openSegment: HLSSegment?
    /// EXT-X-DISCONTINUITY-SEQUENCE: discontinuities that left the window.
    public private(set) var discontinuitySequence = 0
    /// The media playlist as it stands; nil until the first segment is complete.
    public private(set) var playlist: String?
    /// Whether the stream has ended (EXT-X-ENDLIST).
    public var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    private var demuxer = FLVDemuxer()
    private var phase: Phase = .starting(Starting(resumeAt: 0, afterDiscontinuity: false))
    private var inits: [InitVersion] = []
    private var nextMSN = 0
    /// The `mfhd` sequence number of the next fragment (part): one more for each, over the stream's whole life,
    /// across discontinuities.
    public private(set) var nextFragmentSequence: UInt32
    private var origin: ProgramDateTime?

    /// The tracks an init segment version describes; nil for a version the packager never made.
    func initTracks(_ index: Int) -> (video: VideoTrack?, audio: AudioTrack?)? {
        inits.first { $0.index == index }.map { ($0.video, $0.audio) }
    }

    /// The most audio kept while waiting for the first keyframe: one second at 48 kHz.
    static let maximumPendingAudioFrames = 47

    /// Creates a packager for one publish.
    /// - Parameters:
    ///   - epoch: letters a–z and digits that make this publish's resource names unique (e.g. its start time).
    ///   - configuration: part and segment lengths, window size.
    ///   - firstFragmentSequence: the first fragment's `mfhd` sequence number: 1, or where the previous packager of
    ///     the same address stopped, so that a player that keeps the address sees the numbers go on increasing.
    /// - Precondition: `epoch` is 1 to 32 lowercase letters and digits.
    public init(epoch: String, configuration: HLSConfiguration = HLSConfiguration(),
                firstFragmentSequence: UInt32 = 1) {
        precondition(!epoch.isEmpty && epoch.utf8.count <= 32
                     && epoch.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) },
                     "an epoch is 1 to 32 lowercase letters and digits")
        self.epoch = epoch
        self.configuration = configuration
        nextFragmentSequence = max(firstFragmentSequence, 1)
    }

    private var partTargetTicks: Int64 { Int64(configuration.partTargetMilliseconds) * 90 }

    // MARK: Input

    /// Packages one tag.
    /// - Parameters:
    ///   - tag: an audio, video or script data tag as the publisher sent it.
    ///   - wallClock: when it arrived (milliseconds since the Unix epoch); the first media sample's time becomes
    ///     the EXT-X-PROGRAM-DATE-TIME of the timeline's start.
    /// - Returns: what changed. A tag that cannot be read is counted in ``statistics`` and changes nothing.
    public mutating func append(_ tag: FLVTag, wallClock: Int64) -> [HLSEvent] {
        guard !isEnded else { return [] }
        let output: FLVDemuxer.Output?
        do {
            output = try demuxer.append(tag)
        } catch {
            statistics.rejectedTags += 1
            return []
        }
        statistics.reorderedTimestamps = demuxer.reorderedTimestamps
        var events: [HLSEvent] = []
        switch output {
        case nil:
            break
        case .videoTrack, .audioTrack:
            if case .cutting(var cutting) = phase {
                cutting.configurationChanged = true
                phase = .cutting(cutting)
            }
        case .sample(let sample):
            handle(sample, wallClock: wallClock, events: &events)
        }
        if !events.isEmpty { render() }
        return events
    }

    /// Ends the current source: the open segment closes, and the next source's first keyframe starts a new segment
    /// after EXT-X-DISCONTINUITY (a show's main picture switching publishers). Send the new source's sequence
    /// headers before its frames.
    public mutating func beginDiscontinuity() -> [HLSEvent] {
        var events: [HLSEvent] = []
        switch phase {
        case .starting(var starting):
            starting.pendingAudio.removeAll()
            starting.afterDiscontinuity = starting.afterDiscontinuity || openSegment != nil || !segments.isEmpty
            phase = .starting(starting)
        case .cutting(var cutting):
            closePart(&cutting, events: &events)
            // Audio past the last frame would overlap the next source's first: it is dropped.
            statistics.droppedAudioFrames += cutting.pendingAudio.count
            let end = cutting.leadEnd
            closeSegment(end: end, events: &events)
            phase = .starting(Starting(resumeAt: end, afterDiscontinuity: true))
        case .ended:
            return []
        }
        demuxer = FLVDemuxer()
        if !events.isEmpty { render() }
        return events
    }

    /// Ends the stream: the open part and segment close, the playlist gets EXT-X-ENDLIST and no preload hint.
    public mutating func finish() -> [HLSEvent] {
        var events: [HLSEvent] = []
        switch phase {
        case .starting:
            break
        case .cutting(var cutting):
            // The audio that outlasts the last frame (an encoder's flush) goes into a last part of its own, so
            // that no part outgrows PART-TARGET.
            closePart(&cutting, events: &events)
            closePart(&cutting, flushingAudio: true, events: &events)
            closeSegment(end: cutting.leadEnd, events: &events)
        case .ended:
            return []
        }
        phase = .ended
        events.append(.ended)
        render()
        return events
    }

    // MARK: Samples

    private mutating func handle(_ sample: TimedSample, wallClock: Int64, events: inout [HLSEvent]) {
        switch phase {
        case .starting(var starting):
            // The phase is parked while its payload is changed, so the payload's arrays are uniquely referenced
            // and grow in place instead of being copied on every sample.
            phase = .ended
            // The timeline's 0 is the first keyframe (or audio frame) packaged: if this sample starts the stream,
            // it arrived now.
            let hadOrigin = origin != nil
            if !hadOrigin { origin = ProgramDateTime(millisecondsSinceEpoch: wallClock - starting.resumeAt / 90) }
            if let cutting = start(&starting, with: sample, events: &events) {
                phase = .cutting(cutting)
            } else {
                phase = .starting(starting)
                if !hadOrigin { origin = nil }
            }
        case .cutting(var cutting):
            phase = .ended  // parked, as above
            switch sample.track {
            case .video: addVideo(sample, to: &cutting, events: &events)
            case .audio: addAudio(sample, to: &cutting, events: &events)
            }
            phase = .cutting(cutting)
        case .ended:
            break
        }
    }

    /// Waits for the first keyframe (or, with no video track, a second of audio), then starts cutting.
    private mutating func start(_ starting: inout Starting, with sample: TimedSample,
                                events: inout [HLSEvent]) -> Cutting? {
        switch sample.track {
        case .video:
            guard sample.sample.isSync else {
                statistics.framesBeforeKeyframe += 1
                return nil
            }
            var cutting = Cutting(lead: .video, offset: starting.resumeAt - sample.decodeTime,
                                  video: demuxer.videoTrack, audio: demuxer.audioTrack, leadEnd: starting.resumeAt)
            openNewSegment(at: starting.resumeAt, cutting: cutting, discontinuity: starting.afterDiscontinuity)
            // Audio from before the keyframe is dropped; audio from its time on goes into the first part.
            let pending = starting.pendingAudio
            addVideo(sample, to: &cutting, events: &events)
            let rate = Int64(demuxer.audioTrack?.timescale ?? 48_000)
            for audio in pending {
                if audio.decodeTime * 90_000 / rate + cutting.offset >= starting.resumeAt {
                    addAudio(audio, to: &cutting, events: &events)
                } else {
                    statistics.droppedAudioFrames += 1
                }
            }
            return cutting
        case .audio:
            starting.pendingAudio.append(sample)
            if starting.pendingAudio.count > Self.maximumPendingAudioFrames {
                guard demuxer.videoTrack == nil, let audioTrack = demuxer.audioTrack,
                      let first = starting.pendingAudio.first else {
                    starting.pendingAudio.removeFirst()
                    statistics.droppedAudioFrames += 1
                    return nil
                }
                // A second of audio and no video configuration: an audio-only stream.
                let rate = Int64(audioTrack.timescale)
                var cutting = Cutting(lead: .audio, offset: starting.resumeAt - first.decodeTime * 90_000 / rate,
                                      video: nil, audio: audioTrack, leadEnd: starting.resumeAt)
                openNewSegment(at: starting.resumeAt, cutting: cutting, discontinuity: starting.afterDiscontinuity)
                for audio in starting.pendingAudio {
                    addAudio(audio, to: &cutting, events: &events)
                }
                return cutting
            }
            return nil
        }
    }

    private mutating func addVideo(_ timed: TimedSample, to cutting: inout Cutting, events: inout [HLSEvent]) {
        guard cutting.lead == .video, cutting.video != nil else {
            // A video track appearing in an audio-only stream needs a new init segment at a segment boundary;
            // the audio lead has none to offer it, so its frames are not packaged.
            statistics.framesBeforeKeyframe += 1
            return
        }
        var sample = timed
        sample.decodeTime += cutting.offset
        var time = sample.decodeTime
        var duration = Int64(sample.sample.duration)
        if let last = cutting.lastVideoTime, time > last {
            let interval = time - last
            if cutting.frameTicks == 0 || interval * 2 <= cutting.frameTicks * 3 { cutting.frameTicks = interval }
        }
        cutting.lastVideoTime = time
        if cutting.frameTicks > 0 && duration * 2 > cutting.frameTicks * 3 {
            duration = cutting.frameTicks
            sample.sample.duration = UInt32(clamping: duration)
        }
        // How long this frame lasts in the output: its estimated duration, plus a hole it fills (below).
        var span = duration
        // The open part's last frame lasts until this one, as far as PART-TARGET allows: its duration was an
        // estimate until now, and a frame the publisher dropped must not leave the part short.
        if let start = cutting.partStart, let last = cutting.pendingVideo.indices.last {
            let end = min(time, start + partTargetTicks)
            let lastTime = cutting.pendingVideo[last].decodeTime
            if end > lastTime {
                cutting.pendingVideo[last].sample.duration = UInt32(clamping: end - lastTime)
                cutting.leadEnd = end
            }
        }
        // A frame that starts a part starts exactly where the part before ended, so that parts tile the timeline
        // and add up to EXTINF and to the program date-times: after a hole (frames the publisher dropped) it is
        // shown as much longer, before the estimated end of an audio-only part as much shorter. Its presentation
        // time is kept. A stall longer than a part can hold with the frame is not filled: the segment ends there.
        func startsWhereThePartBeforeEnded() -> Bool {
            let hole = time - cutting.leadEnd
            guard hole != 0 else { return true }
            guard hole > -duration, hole + duration <= partTargetTicks else { return false }
            sample.decodeTime = cutting.leadEnd
            sample.sample.compositionOffset = Int32(clamping: Int64(sample.sample.compositionOffset) + hole)
            span = duration + hole
            sample.sample.duration = UInt32(clamping: span)
            time = cutting.leadEnd
            if hole > 0 { statistics.filledHoles += 1 }
            return true
        }
        if sample.sample.isSync {
            let segmentStart = openSegment?.startTicks ?? time
            let due = time - segmentStart >= Int64(configuration.minimumSegmentMilliseconds) * 90
            if due || cutting.configurationChanged {
                closePart(&cutting, events: &events)
                let end = cutting.leadEnd
                if !startsWhereThePartBeforeEnded() { statistics.stalls += 1 }
                closeSegment(end: end, events: &events)
                let changed = cutting.configurationChanged
                if changed {
                    cutting.video = demuxer.videoTrack
                    cutting.audio = demuxer.audioTrack
                    cutting.configurationChanged = false
                }
                openNewSegment(at: time, cutting: cutting, discontinuity: changed)
            }
        }
        // A part is complete when the first frame that does not fit in it arrives: its end is that frame's time,
        // known exactly (the media's timestamps cut parts, not when frames arrive).
        if let start = cutting.partStart, time + duration - start > partTargetTicks {
            closePart(&cutting, events: &events)
        }
        if cutting.partStart == nil {
            if !startsWhereThePartBeforeEnded(), let open = openSegment, !open.parts.isEmpty {
                // The stall leaves a gap in the timeline: between segments, so that each EXTINF is still the sum
                // of its parts.
                statistics.stalls += 1
                closeSegment(end: cutting.leadEnd, events: &events)
                openNewSegment(at: time, cutting: cutting, discontinuity: false)
            }
            cutting.partStart = time
            cutting.partIndependent = sample.sample.isSync
        }
        cutting.pendingVideo.append(sample)
        cutting.leadEnd = time + span
    }

    private mutating func addAudio(_ timed: TimedSample, to cutting: inout Cutting, events: inout [HLSEvent]) {
        guard let audioTrack = cutting.audio, demuxer.audioTrack == audioTrack else {
            statistics.droppedAudioFrames += 1
            return
        }
        var sample = timed
        let rate = Int64(audioTrack.timescale)
        sample.decodeTime += cutting.offset * rate / 90_000
        let time = sample.decodeTime * 90_000 / rate
        let end = (sample.decodeTime + Int64(sample.sample.duration)) * 90_000 / rate
        let frameTicks = end - time
        switch cutting.lead {
        case .audio:
            if cutting.partStart == nil {
                let segmentStart = openSegment?.startTicks ?? time
                if time - segmentStart >= Int64(configuration.minimumSegmentMilliseconds) * 90
                    || cutting.configurationChanged {
                    closeSegment(end: time, events: &events)
                    let changed = cutting.configurationChanged
                    if changed {
                        cutting.audio = demuxer.audioTrack
                        cutting.configurationChanged = false
                    }
                    openNewSegment(at: time, cutting: cutting, discontinuity: changed)
                }
                cutting.partStart = time
                cutting.partIndependent = true
            }
            cutting.pendingAudio.append(sample)
            cutting.leadEnd = end
            if let start = cutting.partStart, end + frameTicks - start > partTargetTicks {
                closePart(&cutting, events: &events)
            }
        case .video:
            cutting.pendingAudio.append(sample)
            // Video stalled while audio goes on (a part's worth past the open part's end): the open part ends at
            // PART-TARGET, and audio-only parts keep the stream moving and memory bounded.
            if let start = cutting.partStart, let last = cutting.pendingVideo.indices.last,
               end - start > 2 * partTargetTicks {
                let lastTime = cutting.pendingVideo[last].decodeTime
                let end = start + partTargetTicks
                cutting.pendingVideo[last].sample.duration = UInt32(clamping: max(end - lastTime, 1))
                cutting.leadEnd = max(start + partTargetTicks, lastTime + 1)
                closePart(&cutting, events: &events)
            }
            if cutting.pendingVideo.isEmpty, let first = cutting.pendingAudio.first {
                let start = first.decodeTime * 90_000 / rate
                if end + frameTicks - start > partTargetTicks {
                    cutting.partStart = start
                    cutting.partIndependent = false
                    cutting.leadEnd = max(cutting.leadEnd, end)
                    closePart(&cutting, events: &events)
                }
            }
        }
    }

    // MARK: Parts and segments

    private mutating func closePart(_ cutting: inout Cutting, flushingAudio: Bool = false,
                                    events: inout [HLSEvent]) {
        if flushingAudio, let rate = cutting.audio.map({ Int64($0.timescale) }), let first = cutting.pendingAudio.first,
           let last = cutting.pendingAudio.last {
            // The flushed audio may outlast the lead track, or be all that is left.
            if cutting.partStart == nil {
                // Where the part before ended, so that parts tile the timeline.
                cutting.partStart = min(first.decodeTime * 90_000 / rate, cutting.leadEnd)
                cutting.partIndependent = cutting.lead == .audio
            }
            cutting.leadEnd = max(cutting.leadEnd, (last.decodeTime + Int64(last.sample.duration)) * 90_000 / rate)
        }
        guard let start = cutting.partStart, var segment = openSegment else { return }
        let end = cutting.leadEnd
        var audio: [TimedSample] = []
        if let rate = cutting.audio.map({ Int64($0.timescale) }) {
            // Audio up to the part's end goes in; later audio waits for the next part.
            let split = flushingAudio ? cutting.pendingAudio.endIndex
                : cutting.pendingAudio.firstIndex { $0.decodeTime * 90_000 / rate >= end }
                ?? cutting.pendingAudio.endIndex
            audio = Array(cutting.pendingAudio[..<split])
            cutting.pendingAudio.removeSubrange(..<split)
        }
        segment.videoFrames += cutting.pendingVideo.count
        let runs = [TrackFragment(trackID: VideoTrack.trackID, timedSamples: cutting.pendingVideo),
                    TrackFragment(trackID: AudioTrack.trackID, timedSamples: audio)].compactMap { $0 }
        cutting.pendingVideo.removeAll(keepingCapacity: true)
        cutting.partStart = nil
        guard !runs.isEmpty else { return }
        let bytes = MovieFragment.make(sequenceNumber: nextFragmentSequence, tracks: runs)
        nextFragmentSequence &+= 1
        let part = HLSPart(index: segment.parts.count, durationTicks: max(end - start, 1),
                           isIndependent: cutting.partIndependent, bytes: bytes)
        segment.parts.append(part)
        openSegment = segment
        events.append(.partAdded(msn: segment.msn, index: part.index))
        // Should the segment not end on a keyframe in time, it ends here: EXTINF must round to at most the
        // target duration.
        if let targetDuration, end - segment.startTicks + partTargetTicks >= Int64(targetDuration) * 90_000 + 45_000 {
            statistics.forcedSegmentCuts += 1
            closeSegment(end: end, events: &events)
            openNewSegment(at: end, cutting: cutting, discontinuity: false)
        }
    }

    private mutating func closeSegment(end: Int64, events: inout [HLSEvent]) {
        guard var segment = openSegment else { return }
        openSegment = nil
        guard !segment.parts.isEmpty else {
            nextMSN = segment.msn  // an empty segment is never listed: its number is reused
            return
        }
        let duration = max(end - segment.startTicks, 1)
        segment.durationTicks = duration
        if targetDuration == nil {
            // The first segment's duration plus a quarter second, rounded: later segments may run up to a
            // quarter second longer and still round to it.
            targetDuration = max(1, Int((duration + 22_500 + 45_000) / 90_000))
        }
        segments.append(segment)
        events.append(.segmentAdded(msn: segment.msn))
        trimWindow()
    }

    private mutating func openNewSegment(at time: Int64, cutting: Cutting, discontinuity: Bool) {
        let initIndex = initVersion(video: cutting.lead == .video ? cutting.video : nil, audio: cutting.audio)
        let origin = origin ?? ProgramDateTime(millisecondsSinceEpoch: 0)
        openSegment = HLSSegment(msn: nextMSN, startTicks: time,
                                 programDateTime: origin.adding(milliseconds: time / 90),
                                 initIndex: initIndex,
                                 isDiscontinuity: discontinuity,
                                 parts: [], durationTicks: nil)
        nextMSN += 1
    }

    /// The version describing these tracks, made if new.
    private mutating func initVersion(video: VideoTrack?, audio: AudioTrack?) -> Int {
        if let current = inits.last, current.video == video, current.audio == audio { return current.index }
        let index = (inits.last?.index ?? -1) + 1
        inits.append(InitVersion(index: index, video: video, audio: audio,
                                 bytes: InitSegment.make(video: video, audio: audio)))
        return index
    }

    private mutating func trimWindow() {
        var bytes = segments.reduce(0) { $0 + $1.byteCount } + (openSegment?.byteCount ?? 0)
        while segments.count > configuration.windowSegments
                || (bytes > configuration.maximumWindowBytes && segments.count > 1) {
            let overCount = segments.count > configuration.windowSegments
            let dropped = segments.removeFirst()
            statistics.segmentsDropped += 1
            if !overCount { statistics.segmentsDroppedForMemory += 1 }
            bytes -= dropped.byteCount
            if dropped.isDiscontinuity { discontinuitySequence += 1 }
        }
        let needed = Set(segments.map(\.initIndex) + [openSegment?.initIndex].compactMap { $0 })
        let newest = inits.last?.index
        inits.removeAll { !needed.contains($0.index) && $0.index != newest }
    }

    // MARK: Output

    private mutating func render() {
        guard let targetDuration else { return }
        playlist = MediaPlaylistWriter(
            configuration: configuration, epoch: epoch, targetDuration: targetDuration, segments: segments,
            openSegment: openSegment, discontinuitySequence: discontinuitySequence, isEnded: isEnded,
            preloadHint: preloadHint
        ).text
    }

    /// The part the playlist hints at: the part that comes next, never one that will not exist. With a video lead
    /// the frame that completed the last part is already in hand, in the part it starts (the next segment's first
    /// when it was a keyframe that closed the segment), so the hint is that part. An audio lead cuts by time alone:
    /// the next segment's first part once the segment is due.
    public var preloadHint: ResourceName? {
        switch phase {
        case .ended:
            return nil
        case .starting:
            // Between sources: the next segment's first part comes with the next keyframe.
            return segments.isEmpty ? nil : .part(epoch: epoch, msn: nextMSN, index: 0)
        case .cutting(let cutting):
            guard let open = openSegment else { return nil }
            if cutting.lead == .audio, cutting.partStart == nil, !open.parts.isEmpty,
               cutting.leadEnd - open.startTicks >= Int64(configuration.minimumSegmentMilliseconds) * 90 {
                return .part(epoch: epoch, msn: open.msn + 1, index: 0)
            }
            return .part(epoch: epoch, msn: open.msn, index: open.parts.count)
        }
    }

    /// Where the playlist stands, for blocking reload decisions.
    public var position: PlaylistPosition {
        PlaylistPosition(lastCompleteMSN: segments.last?.msn, openMSN: openSegment?.msn,
                         openPartCount: openSegment?.parts.count ?? 0, isEnded: isEnded,
                         partCounts: Dictionary(uniqueKeysWithValues: segments.map { ($0.msn, $0.parts.count) }),
                         advancePartLimit: configuration.advancePartLimit)
    }

    /// Looks up a resource by name.
    public func resource(_ name: ResourceName) -> ResourceLookup {
        guard name.epoch == epoch else { return .notFound }
        switch name {
        case .initSegment(_, let index):
            return inits.first { $0.index == index }.map { .available($0.bytes) } ?? .notFound
        case .segment(_, let msn):
            guard let segment = segments.first(where: { $0.msn == msn }) else { return .notFound }
            return .available(segment.parts.flatMap(\.bytes))
        case .part(_, let msn, let index):
            if let segment = openSegment, segment.msn == msn {
                if index < segment.parts.count { return .available(segment.parts[index].bytes) }
                return index == segment.parts.count && !isEnded ? .pending : .notFound
            }
            if let segment = segments.first(where: { $0.msn == msn }) {
                return index < segment.parts.count ? .available(segment.parts[index].bytes) : .notFound
            }
            // The first part of the segment after the open one, or of the stream's first segment, is still to come.
            let upcoming = (openSegment?.msn ?? (segments.last?.msn ?? -1)) + 1
            return !isEnded && msn == upcoming && index == 0 ? .pending : .notFound
        }
    }
}

/// The answer to a request for a packaged resource.
public enum ResourceLookup: Sendable, Hashable {
    /// Here it is.
    case available([UInt8])
    /// It does not exist yet but is the next part to come: hold the request until it does.
    case pending
    /// It does not exist and will not (wrong epoch, dropped from the window, or never to be made).
    case notFound
}
