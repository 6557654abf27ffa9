import FLV
import MP4
import Testing
import TestSupport
@testable import HLS

@Suite struct LLHLSPackagerTests {
    static let wallClock: Int64 = 1_800_000_000_000  // 2027-01-15T08:00:00.000Z

    /// A part's chunk: (track ID, tfdt, sample count, first sample's flags) per traf.
    static func runs(_ bytes: [UInt8]) throws -> [(track: UInt64, decodeTime: UInt64, count: UInt64, flags: UInt64)] {
        let boxes = try Box.parse(bytes)
        #expect(boxes.map(\.type) == ["moof", "mdat"])
        return boxes[0].all("traf").map { traf in
            let trun = traf.find("trun")
            return (traf.find("tfhd")?.uint(at: 4, width: 4) ?? 0, traf.find("tfdt")?.uint(at: 4, width: 8) ?? 0,
                    trun?.uint(at: 4, width: 4) ?? 0, trun?.uint(at: 8 + 4 + 4 + 4, width: 4) ?? 0)
        }
    }

    @Test func thePlaylistAppearsWithTheFirstCompleteSegment() {
        var packager = LLHLSPackager(epoch: "e1")
        let stream = SyntheticStream()
        packager.append(stream.headers)
        let tags = stream.media(milliseconds: 2000)
        let events = packager.append(tags, wallClock: Self.wallClock)
        #expect(packager.playlist == nil, "no segment is complete before the second keyframe")
        // A part is complete when the frame after it arrives: the sixth one with the keyframe at 2 s.
        #expect(events.filter { if case .partAdded = $0 { true } else { false } }.count == 5)
        packager.append([stream.videoFrame(60)], wallClock: Self.wallClock)
        #expect(packager.targetDuration == 2)
        #expect(packager.playlist == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.002
            #EXT-X-PART-INF:PART-TARGET=0.334
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-MAP:URI="init-e1-0.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2027-01-15T08:00:00.000Z
            #EXT-X-PART:DURATION=0.33300,URI="part-e1-0.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.33400,URI="part-e1-0.1.m4s"
            #EXT-X-PART:DURATION=0.33300,URI="part-e1-0.2.m4s"
            #EXT-X-PART:DURATION=0.33300,URI="part-e1-0.3.m4s"
            #EXT-X-PART:DURATION=0.33400,URI="part-e1-0.4.m4s"
            #EXT-X-PART:DURATION=0.33300,URI="part-e1-0.5.m4s"
            #EXTINF:2.00000,
            seg-e1-0.m4s
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part-e1-1.0.m4s"

            """)
    }

    /// A packager fed `seconds` of the synthetic stream.
    static func packaged(_ stream: SyntheticStream = SyntheticStream(), seconds: Int,
                         configuration: HLSConfiguration = HLSConfiguration()) -> LLHLSPackager {
        var packager = LLHLSPackager(epoch: "e1", configuration: configuration)
        packager.append(stream.headers)
        packager.append(stream.media(milliseconds: seconds * 1000), wallClock: wallClock,
                        base: stream.startMilliseconds)
        return packager
    }

    @Test func partsStayWithinThePartTargetAndSegmentsStartOnKeyframes() throws {
        let packager = Self.packaged(seconds: 10)
        let target = Int64(packager.configuration.partTargetMilliseconds) * 90
        #expect(packager.segments.count == 4)  // 0-2, 2-4, 4-6, 6-8 s; 8-10 s is open
        for segment in packager.segments {
            #expect(segment.durationTicks == 180_000)
            for part in segment.parts {
                #expect(part.durationTicks <= target)
                let final = part.index == segment.parts.count - 1
                #expect(final || part.isIndependent || part.durationTicks * 100 >= target * 85)
                let video = try #require(try Self.runs(part.bytes).first { $0.track == 1 })
                // INDEPENDENT=YES exactly when the part's first frame is a keyframe (sync sample flags).
                #expect(part.isIndependent == (video.flags == UInt64(SampleFlags.sync.rawValue)))
                #expect(part.isIndependent == (part.index == 0))
            }
        }
    }

    @Test func fragmentsCarryTheExactTimelineAndSequenceNumbers() throws {
        let packager = Self.packaged(seconds: 6)
        var expectedVideo: UInt64 = 0
        var sequence: UInt64 = 0
        var audioTimes: [UInt64] = []
        for part in (packager.segments + [packager.openSegment].compactMap { $0 }).flatMap(\.parts) {
            let moof = try #require(try Box.parse(part.bytes).first)
            let number = try #require(moof.find("mfhd")?.uint(at: 4, width: 4))
            #expect(number == sequence + 1)
            sequence = number
            for run in try Self.runs(part.bytes) {
                if run.track == 1 {
                    // Each part's video starts at the millisecond time of its first frame, in 90 kHz ticks.
                    #expect(run.decodeTime == expectedVideo)
                    let frames = Int(run.count)
                    let firstFrame = Int(((Double(run.decodeTime) / 90) * 30 / 1000).rounded())
                    expectedVideo = UInt64(SyntheticStream().videoTime(firstFrame + frames)) * 90
                } else {
                    audioTimes.append(run.decodeTime)
                }
            }
        }
        // Audio runs follow each other: each starts a whole number of 1024-sample frames after the first.
        #expect(audioTimes.first == 0)
        #expect(audioTimes.allSatisfy { $0 % 1024 == 0 })
        #expect(audioTimes == audioTimes.sorted())
    }

    @Test func theWindowSlidesAndDropsWhatLeavesIt() {
        let packager = Self.packaged(seconds: 30)
        #expect(packager.segments.count == 6)
        #expect(packager.segments.first?.msn == 8)
        #expect(packager.statistics.segmentsDropped == 8)
        #expect(packager.statistics.segmentsDroppedForMemory == 0)
        #expect(packager.playlist?.contains("#EXT-X-MEDIA-SEQUENCE:8\n") == true)
        #expect(packager.resource(.segment(epoch: "e1", msn: 7)) == .notFound)
        #expect(packager.resource(.part(epoch: "e1", msn: 7, index: 0)) == .notFound)
        guard case .available(let bytes) = packager.resource(.segment(epoch: "e1", msn: 8)) else {
            Issue.record("segment 8 is in the window")
            return
        }
        #expect(bytes == packager.segments[0].parts.flatMap(\.bytes))
        #expect(packager.resource(.segment(epoch: "other", msn: 8)) == .notFound)
        // Parts are listed only for the last three target durations (§6.2.2): the open segment's complete parts
        // end at 29.67 s (the last waits for the next frame), so from 23.67 s: segments 11 to 13 and the open one.
        let listedParts = packager.playlist?.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PART:") } ?? []
        #expect(listedParts.first?.contains("part-e1-11.0.m4s") == true)
    }

    @Test func aWindowOverItsByteLimitDropsSegmentsEarly() {
        var stream = SyntheticStream()
        stream.frameBytes = 30_000  // 7.2 Mbit/s
        let packager = Self.packaged(stream, seconds: 20,
                                     configuration: HLSConfiguration(maximumWindowBytes: 4 << 20))
        let bytes = packager.segments.reduce(0) { $0 + $1.byteCount }
        #expect(bytes <= 4 << 20)
        #expect(packager.statistics.segmentsDroppedForMemory > 0)
        #expect(packager.segments.count < 6)
    }

    @Test func framesBeforeTheFirstKeyframeAreDropped() throws {
        let stream = SyntheticStream()
        var packager = LLHLSPackager(epoch: "e1")
        packager.append(stream.headers)
        // Five inter frames, then the stream as usual from a keyframe 200 ms in.
        packager.append((0..<5).map { stream.videoFrame($0, keyframe: false) })
        packager.append((6..<70).map { stream.videoFrame($0, keyframe: $0 == 6 || $0 == 66) })
        #expect(packager.statistics.framesBeforeKeyframe == 5)
        let first = try #require(packager.segments.first?.parts.first)
        #expect(first.isIndependent)
        #expect(try Self.runs(first.bytes).first?.decodeTime == 0)  // the timeline starts at the keyframe
    }

    @Test func aDiscontinuityStartsANewSegmentWithItsOwnInitOnTheSameTimeline() throws {
        var packager = Self.packaged(seconds: 3)
        let before = packager.openSegment
        _ = packager.beginDiscontinuity()
        // The next publisher: another encoder (1280x720 Baseline), its clock somewhere else entirely.
        var next = SyntheticStream()
        next.avc = SyntheticStream.otherAVCC
        next.startMilliseconds = 50_000
        packager.append(next.headers, base: 47_000)
        packager.append(next.media(milliseconds: 4200), base: 47_000)
        let playlist = try #require(packager.playlist)
        #expect(playlist.contains("""
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="init-e1-1.mp4"
            """))
        let resumed = try #require(packager.segments.first { $0.isDiscontinuity })
        let previous = try #require(packager.segments.first { $0.msn == resumed.msn - 1 })
        #expect(previous.msn == before?.msn)
        #expect(resumed.startTicks == previous.startTicks + (previous.durationTicks ?? 0))
        #expect(try Self.runs(resumed.parts[0].bytes).first?.decodeTime == UInt64(resumed.startTicks))
        guard case .available(let initBytes) = packager.resource(.initSegment(epoch: "e1", index: 1)) else {
            Issue.record("the second init segment is served")
            return
        }
        let avc1 = try Box.parse(initBytes)[1].find("trak/mdia/minf/stbl/stsd/avc1")
        #expect(avc1?.uint(at: 24, width: 2) == 1280)
    }

    @Test func finishEndsThePlaylistAndEveryBlockingRequest() throws {
        var packager = Self.packaged(seconds: 5)
        let hint = try #require(packager.preloadHint)
        #expect(packager.resource(hint) == .pending)
        // The encoder's flush: two AAC frames after the last video frame (4966.7 ms, lasting to 5000 ms).
        let stream = SyntheticStream()
        packager.append([stream.audioFrame(235), stream.audioFrame(236)], wallClock: Self.wallClock)
        let events = packager.finish()
        #expect(events.last == .ended)
        let playlist = try #require(packager.playlist)
        #expect(playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(!playlist.contains("PRELOAD-HINT"))
        // The audio past the last video frame (two AAC frames) became a last part of its own; nothing follows.
        let last = try #require(packager.segments.last)
        #expect(try Self.runs(try #require(last.parts.last).bytes).map(\.track) == [2])
        #expect(packager.resource(.part(epoch: "e1", msn: last.msn, index: last.parts.count)) == .notFound)
        #expect(packager.resource(.part(epoch: "e1", msn: last.msn + 1, index: 0)) == .notFound)
        #expect(BlockingReload.decide(BlockingReload.Directives(msn: 40, part: 0),
                                      position: packager.position) == .ready)
        #expect(packager.append(SyntheticStream().videoFrame(999), wallClock: 0).isEmpty)
        // The last segment runs from 4 s to the end of the last audio frame (237 × 1024 samples: 5056 ms), the
        // sum of its parts.
        #expect(last.durationTicks == Int64(95_040))
        #expect(last.durationTicks == last.parts.reduce(0) { $0 + $1.durationTicks })
    }

    @Test func aGroupOfPicturesLongerThanTheTargetIsCutAtAPartBoundary() {
        var stream = SyntheticStream()
        var packager = LLHLSPackager(epoch: "e1")
        packager.append(stream.headers)
        packager.append(stream.media(milliseconds: 4100))  // 2 s GOPs: the target duration becomes 2
        stream.groupFrames = 150  // then 5 s
        packager.append(Array(stream.media(milliseconds: 20_000).drop { $0.timestamp < 4100 }))
        #expect(packager.targetDuration == 2)
        #expect(packager.statistics.forcedSegmentCuts > 0)
        for segment in packager.segments {
            // EXTINF rounded to the nearest integer stays within the target duration.
            #expect((segment.durationTicks ?? 0) < 2 * 90_000 + 45_000)
        }
    }

    @Test func anAudioOnlyStreamIsCutOnItsAudio() {
        var stream = SyntheticStream()
        stream.hasVideo = false
        let packager = Self.packaged(stream, seconds: 5)
        let parts = packager.segments.flatMap(\.parts)
        #expect(!parts.isEmpty)
        // 15 frames of 1024 samples at 48 kHz: 320 ms, the most under 334 ms.
        #expect(parts.dropLast().allSatisfy { $0.durationTicks == 28_800 && $0.isIndependent })
        // Four parts make a segment of at least a second: 1.28 s, a target duration of 2.
        #expect(packager.segments.first?.durationTicks == Int64(4 * 28_800))
        #expect(packager.playlist?.contains("#EXT-X-TARGETDURATION:2\n") == true)
    }

    @Test func hintsTheNextPartAndHoldsOnlyWhatIsComing() throws {
        var packager = Self.packaged(seconds: 3)
        let open = try #require(packager.openSegment)
        #expect(packager.preloadHint == .part(epoch: "e1", msn: open.msn, index: open.parts.count))
        #expect(packager.resource(.part(epoch: "e1", msn: open.msn, index: open.parts.count)) == .pending)
        #expect(packager.resource(.part(epoch: "e1", msn: open.msn + 1, index: 0)) == .pending)
        #expect(packager.resource(.part(epoch: "e1", msn: open.msn, index: open.parts.count + 1)) == .notFound)
        #expect(packager.resource(.part(epoch: "e1", msn: open.msn + 2, index: 0)) == .notFound)
        // At the end of a group of pictures the last part's frames are in hand: it is the hint until the keyframe
        // completes it, and the hint then is the next segment's first part, which the keyframe starts.
        packager.append(Array(SyntheticStream().media(milliseconds: 4000).drop { $0.timestamp < 3000 }))
        #expect(packager.preloadHint == .part(epoch: "e1", msn: open.msn, index: 5))
        packager.append([SyntheticStream().videoFrame(120)], wallClock: Self.wallClock)
        #expect(packager.preloadHint == .part(epoch: "e1", msn: open.msn + 1, index: 0))
        #expect(packager.segments.last?.parts.count == 6)
        // A part of a segment that ended without it will not come.
        #expect(packager.resource(.part(epoch: "e1", msn: open.msn, index: 6)) == .notFound)
    }

    /// A publisher under load: video stamped by when frames were captured (with `jitter`, intervals of 21 to 45 ms
    /// around 33 ms), frames it dropped missing, keyframes forced every 2 s of media time.
    static func loadedPublisher(seconds: Int, dropping: Set<Int> = [], jitter: Bool = true) -> [FLVTag] {
        var stream = SyntheticStream()
        stream.groupFrames = Int.max
        let jitter = jitter ? [0, 12, -9, 5, -12, 8, 3, -7, 11, -4] : [0]
        var tags: [FLVTag] = []
        var audio = 0
        var lastKeyframe = -2000
        for index in 0..<(seconds * 30) where !dropping.contains(index) {
            let time = index == 0 ? 0 : index * 1000 / 30 + jitter[index % jitter.count]
            while audio * 1024 * 1000 / 48_000 < time {
                tags.append(stream.audioFrame(audio))
                audio += 1
            }
            let key = time - lastKeyframe >= 2000 - 20
            if key { lastKeyframe = time }
            var frame = stream.videoFrame(index, keyframe: key)
            frame.timestamp = UInt32(time)
            tags.append(frame)
        }
        return tags
    }

    /// Issue 34 item 8: parts are cut by the media's timestamps, so they tile their segment (EXTINF is the sum of
    /// their durations, each part's video starts where the one before ended) and none lasts more than PART-TARGET,
    /// however irregular the frames' timestamps and whatever frames are missing.
    @Test func partsTileTheirSegmentsWhateverTheFrameTimes() throws {
        var packager = LLHLSPackager(epoch: "e1")
        packager.append(SyntheticStream().headers)
        packager.append(Self.loadedPublisher(seconds: 12, dropping: [40, 41, 95, 130, 131, 132, 133, 200, 251]))
        let target = Int64(packager.configuration.partTargetMilliseconds) * 90
        #expect(packager.segments.count == 5)
        var videoEnd: UInt64?
        for segment in packager.segments {
            let duration = try #require(segment.durationTicks)
            #expect(segment.parts.reduce(0) { $0 + $1.durationTicks } == duration, "segment \(segment.msn)")
            for part in segment.parts {
                #expect(part.durationTicks <= target, "part \(segment.msn).\(part.index): \(part.durationTicks)")
                let video = try #require(try Self.runs(part.bytes).first { $0.track == 1 })
                if let videoEnd { #expect(video.decodeTime == videoEnd, "part \(segment.msn).\(part.index)") }
                videoEnd = video.decodeTime + UInt64(part.durationTicks)
            }
        }
    }

    /// Issue 34 item 13b: the preload hint is always the part that comes next. A segment whose group of pictures
    /// lost frames (keyframes forced by time) closes after fewer frames than the one before: the hint must not
    /// name a part it will not have.
    @Test func theHintIsThePartThatComesNext() {
        var packager = LLHLSPackager(epoch: "e1")
        packager.append(SyntheticStream().headers)
        var hint: ResourceName?
        var hints = 0
        // Frames 95-97 and 150-153 never arrive: the groups of pictures from 2 s and 4 s have 57 and 56 frames.
        for tag in Self.loadedPublisher(seconds: 12, dropping: [95, 96, 97, 150, 151, 152, 153], jitter: false) {
            let events = packager.append(tag, wallClock: Self.wallClock + Int64(tag.timestamp))
            let added = events.compactMap { event -> ResourceName? in
                guard case .partAdded(let msn, let index) = event else { return nil }
                return .part(epoch: "e1", msn: msn, index: index)
            }
            if let expected = hint {
                // A client holding a request for the hinted part gets that part next, and the hint does not move
                // before it came.
                #expect(added.first ?? packager.preloadHint == expected, "at \(tag.timestamp) ms: \(added)")
                hints += added.isEmpty ? 0 : 1
            }
            hint = packager.preloadHint
        }
        #expect(hints > 25)
    }

    @Test func unreadableTagsAreCountedAndChangeNothing() {
        var packager = Self.packaged(seconds: 3)
        let before = packager.playlist
        packager.append([FLVTag(type: .video, timestamp: 3000, body: [0x27, 0x01]),
                         FLVTag(type: .audio, timestamp: 3000, body: [0x2F, 0x01, 0x00])], base: 0)
        #expect(packager.statistics.rejectedTags == 2)
        #expect(packager.playlist == before)
    }

    @Test func cachePolicyKeepsLivePlaylistsFreshAndMediaImmutable() {
        #expect(HLSCachePolicy.livePlaylist == "no-cache")
        #expect(HLSCachePolicy.blockingPlaylist(targetDuration: 2) == "public, max-age=12")
        #expect(HLSCachePolicy.immutableMedia == "public, max-age=31536000, immutable")
        #expect(HLSCachePolicy.playlistContentType == "application/vnd.apple.mpegurl")
    }
}
