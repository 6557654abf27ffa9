import ByteIO
import FLV
import HLS
import MP4
import TestSupport
import Testing

/// Issue 34 item 11: a multivariant playlist for every stream, with what players choose by (RFC 8216bis §4.4.6.2).
struct MultivariantPlaylistTests {
    @Test func theTextHasEveryAttributeInOrder() {
        let variant = VariantDescription(peakBitsPerSecond: 2_104_331, averageBitsPerSecond: 1_987_002,
                                         codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720,
                                         framesPerSecond: 30_000.0 / 1001)
        #expect(MultivariantPlaylist.render(variant, uri: "index.m3u8") == """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=2104331,AVERAGE-BANDWIDTH=1987002,CODECS="avc1.64001f,mp4a.40.2",\
            RESOLUTION=1280x720,FRAME-RATE=29.970
            index.m3u8

            """)
        // Audio only: no RESOLUTION, no FRAME-RATE.
        #expect(MultivariantPlaylist.render(VariantDescription(peakBitsPerSecond: 130_000, averageBitsPerSecond: 128_000,
                                                               codecs: ["mp4a.40.2"]), uri: "main.m3u8")
                == "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=130000,AVERAGE-BANDWIDTH=128000,CODECS=\"mp4a.40.2\"\nmain.m3u8\n")
    }

    @Test func aPackagerDescribesItsStreamOnceASegmentIsComplete() throws {
        #expect(LLHLSPackagerTests.packaged(seconds: 1).variant == nil, "no complete segment yet")
        let packager = LLHLSPackagerTests.packaged(seconds: 10)
        let variant = try #require(packager.variant)
        let record = try AVCDecoderConfigurationRecord(parsing: SyntheticStream.avcC)
        let expectedCodec = "avc1." + Hex.encode([record.profileIndication, record.profileCompatibility,
                                                  record.levelIndication])
        #expect(variant.codecs == [expectedCodec, "mp4a.40.2"])
        #expect(variant.framesPerSecond == 30)
        let sps = try H264SequenceParameterSet(parsing: try #require(record.sequenceParameterSets.first))
        #expect(variant.width == sps.width && variant.height == sps.height)
        // The media's own bit rate: the parts' bytes over the segments' durations (init segments aside).
        let segments = packager.segments
        let bytes = segments.flatMap(\.parts).reduce(0) { $0 + $1.bytes.count }
        let seconds = Double(segments.compactMap(\.durationTicks).reduce(0, +)) / 90_000
        #expect(variant.averageBitsPerSecond == Int((Double(bytes * 8) / seconds).rounded()))
        #expect(variant.peakBitsPerSecond >= variant.averageBitsPerSecond && variant.averageBitsPerSecond > 48_000,
                "\(variant)")
    }

    /// FRAME-RATE is the maximum (RFC 8216bis §4.4.6.2): frames an encoder dropped in one segment, under load, do
    /// not lower it (a test publish measured 28 against its 30).
    @Test func droppedFramesInOneSegmentDoNotLowerTheFrameRate() throws {
        let stream = SyntheticStream()
        var packager = LLHLSPackager(epoch: "e1", configuration: HLSConfiguration())
        _ = packager.append(stream.headers)
        // Ten video frames missing between 2.3 and 2.7 s (none a keyframe: those are every 2 s).
        let media = stream.media(milliseconds: 10_000).filter { tag in
            !(tag.type == .video && (2_300..<2_700).contains(tag.timestamp))
        }
        _ = packager.append(media, wallClock: LLHLSPackagerTests.wallClock, base: stream.startMilliseconds)
        let variant = try #require(packager.variant)
        #expect(variant.framesPerSecond == 30, "\(String(describing: variant.framesPerSecond))")
    }
}
