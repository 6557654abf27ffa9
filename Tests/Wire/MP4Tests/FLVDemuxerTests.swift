import FLV
import Testing
@testable import MP4

@Suite struct FLVDemuxerTests {
    static func videoHeader(at timestamp: UInt32 = 0) -> FLVTag {
        FLVTag(type: .video, timestamp: timestamp,
               body: FLVVideoTagBody(frameType: .keyFrame, packetType: .sequenceHeader,
                                     data: InitSegmentTests.avcC).encode())
    }

    static let audioHeader = FLVTag(audio: .sequenceHeader(AudioSpecificConfig(sampleRate: 48_000,
                                                                               channelConfiguration: 2)),
                                    timestamp: 0)

    static func frame(_ timestamp: UInt32, key: Bool = false, cts: Int32 = 0) -> FLVTag {
        FLVTag(video: .frame([0, 0, 0, 2, key ? 0x65 : 0x41, 0x88], isKeyFrame: key, compositionTime: cts),
               timestamp: timestamp)
    }

    static func aac(_ timestamp: UInt32) -> FLVTag {
        FLVTag(audio: .frame([0x21, 0x10, 0x04]), timestamp: timestamp)
    }

    static func samples(_ outputs: [FLVDemuxer.Output?]) -> [TimedSample] {
        outputs.compactMap { output in
            if case .sample(let sample)? = output { return sample }
            return nil
        }
    }

    @Test func readsTheConfigurationsOnceEach() throws {
        var demuxer = FLVDemuxer()
        guard case .videoTrack(let video)? = try demuxer.append(Self.videoHeader()) else {
            Issue.record("no video track")
            return
        }
        #expect(video.width == 640 && video.height == 360)
        #expect(try demuxer.append(Self.videoHeader(at: 40)) == nil)  // the same again changes nothing
        guard case .audioTrack(let audio)? = try demuxer.append(Self.audioHeader) else {
            Issue.record("no audio track")
            return
        }
        #expect(audio.timescale == 48_000)
        #expect(demuxer.videoTrack == video && demuxer.audioTrack == audio)
        #expect(try demuxer.append(FLVTag(video: .endOfSequence, timestamp: 100)) == nil)
    }

    @Test func videoTimesAre90kHzWithCompositionOffsetsAndEstimatedDurations() throws {
        var demuxer = FLVDemuxer()
        _ = try demuxer.append(Self.videoHeader())
        let samples = Self.samples(try [
            Self.frame(0, key: true, cts: 66), Self.frame(33, cts: 100), Self.frame(67, cts: 0),
        ].map { try demuxer.append($0) })
        #expect(samples.map(\.decodeTime) == [0, 2970, 6030])
        #expect(samples.map(\.sample.compositionOffset) == [5940, 9000, 0])
        // The first frame has no interval yet (1/30 s assumed); then each lasts the mean of the intervals so far.
        #expect(samples.map(\.sample.duration) == [3000, 2970, 3015])
        #expect(samples.map(\.sample.isSync) == [true, false, false])
        #expect(samples.map(\.sample.data) == [[0, 0, 0, 2, 0x65, 0x88], [0, 0, 0, 2, 0x41, 0x88],
                                               [0, 0, 0, 2, 0x41, 0x88]])
    }

    @Test func theFrameRateOfOnMetaDataSetsTheFirstEstimate() throws {
        var demuxer = FLVDemuxer()
        _ = try demuxer.append(FLVTag(metadata: FLVMetadata(frameRate: 25)))
        _ = try demuxer.append(Self.videoHeader())
        #expect(Self.samples([try demuxer.append(Self.frame(0, key: true))]).first?.sample.duration == 3600)
    }

    @Test func audioCountsFramesAndFollowsGaps() throws {
        var demuxer = FLVDemuxer()
        _ = try demuxer.append(Self.audioHeader)
        // FLV rounds 1024 / 48000 s to 21 or 22 ms; the sample count does not jitter. At 1000 ms a gap, at 990 a
        // step back (ignored: audio cannot go back in time).
        let samples = Self.samples(try [0, 21, 43, 64, 1000, 990].map { try demuxer.append(Self.aac($0)) })
        #expect(samples.map(\.decodeTime) == [0, 1024, 2048, 3072, 48_000, 49_024])
        #expect(samples.allSatisfy { $0.sample.duration == 1024 && $0.sample.isSync && $0.track == .audio })
    }

    @Test func timestampsThatWrapStayContinuous() throws {
        var demuxer = FLVDemuxer()
        _ = try demuxer.append(Self.videoHeader())
        let samples = Self.samples(try [Self.frame(0xFFFF_FFF0, key: true), Self.frame(0x10)].map {
            try demuxer.append($0)
        })
        #expect(samples.map(\.decodeTime) == [Int64(0xFFFF_FFF0) * 90, (Int64(1) << 32 + 0x10) * 90])
        #expect(samples.map(\.sample.duration).last == UInt32(32 * 90))
    }

    @Test func aDecodeTimeGoingBackIsMovedForwardAndCounted() throws {
        var demuxer = FLVDemuxer()
        _ = try demuxer.append(Self.videoHeader())
        let samples = Self.samples(try [Self.frame(100, key: true), Self.frame(90), Self.frame(100)].map {
            try demuxer.append($0)
        })
        #expect(samples.map(\.decodeTime) == [9000, 9090, 9180])
        #expect(demuxer.reorderedTimestamps == 2)
    }

    @Test func unusableTagsThrowAndChangeNothing() throws {
        var demuxer = FLVDemuxer()
        #expect(throws: MP4Error.self) { try demuxer.append(Self.frame(0, key: true)) }  // before its header
        #expect(throws: MP4Error.self) { try demuxer.append(Self.aac(0)) }
        _ = try demuxer.append(Self.videoHeader())
        #expect(throws: MP4Error.self) { try demuxer.append(FLVTag(type: .video, timestamp: 0, body: [0x17])) }
        // HEVC over enhanced RTMP (IsExHeader bit, FourCC "hvc1").
        #expect(throws: MP4Error.self) {
            try demuxer.append(FLVTag(type: .video, timestamp: 0, body: [0x91, 0x68, 0x76, 0x63, 0x31]))
        }
        #expect(throws: MP4Error.self) {  // an AVC header whose SPS is cut short
            try demuxer.append(FLVTag(type: .video, timestamp: 0,
                                      body: [0x17, 0x00, 0, 0, 0, 1, 0x64, 0, 0x1E, 0xFF, 0xE1, 0, 2, 0x67, 0x64,
                                             1, 0, 1, 0x68]))
        }
        #expect(demuxer.videoTrack?.width == 640)
        #expect(Self.samples([try demuxer.append(Self.frame(0, key: true))]).count == 1)
    }
}
