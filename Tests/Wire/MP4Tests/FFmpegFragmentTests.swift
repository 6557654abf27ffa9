import FLV
import Foundation
import MP4
import Testing
import TestSupport

/// An FLV that ffmpeg made (x264 with B-frames, AAC) turned into fMP4 by FLVDemuxer, InitSegment and MovieFragment,
/// then read by ffprobe and decoded by ffmpeg: the same frames, the same timestamps, the same pictures and sound.
@Suite(.serialized, .startsPeers) struct FFmpegFragmentTests {
    /// Writes the init segment, then one fragment per group of pictures (each starting at a keyframe, audio
    /// alongside), as a packager would.
    static func fragmentedMP4(from tags: [FLVTag]) throws -> [UInt8] {
        var demuxer = FLVDemuxer()
        var samples: [TimedSample] = []
        for tag in tags {
            if case .sample(let sample)? = try demuxer.append(tag) { samples.append(sample) }
        }
        var bytes = InitSegment.make(video: demuxer.videoTrack, audio: demuxer.audioTrack)
        let keyframeTimes = samples.filter { $0.track == .video && $0.sample.isSync }.map(\.decodeTime)
        var sequence: UInt32 = 1
        for (index, start) in keyframeTimes.enumerated() {
            let end = index + 1 < keyframeTimes.count ? keyframeTimes[index + 1] : .max
            let video = samples.filter { $0.track == .video && $0.decodeTime >= start && $0.decodeTime < end }
            // Audio by the same clock: 90 kHz video ticks against 48 kHz audio ticks.
            let audio = samples.filter {
                $0.track == .audio && $0.decodeTime * 90_000 / 48_000 >= (index == 0 ? .min : start)
                    && $0.decodeTime * 90_000 / 48_000 < end
            }
            let runs = [TrackFragment(trackID: VideoTrack.trackID, timedSamples: video),
                        TrackFragment(trackID: AudioTrack.trackID, timedSamples: audio)]
            bytes += MovieFragment.make(sequenceNumber: sequence, tracks: runs.compactMap { $0 })
            sequence += 1
        }
        return bytes
    }

    @Test func ffmpegDecodesTheSameFramesAtTheSameTimes() throws {
        let work = try TemporaryDirectory("mp4")
        let flv = try MediaFixture.makeFLVWithBFrames(in: work, seconds: 3, gop: 30)
        let tags = try FLVTags.of(flv)
        #expect(tags.contains { tag in
            (try? FLVVideoTagBody(parsing: tag.body)).map { $0.compositionTime > 0 } == true && tag.type == .video
        }, "the source must have B-frames, so composition offsets are exercised")

        let mp4 = work.file("fragmented.mp4")
        try Data(try Self.fragmentedMP4(from: tags)).write(to: URL(fileURLWithPath: mp4))

        let report = try ProbeReport.probe(mp4)
        #expect(report.video?.codecName == "h264")
        #expect(report.video?.width == 640 && report.video?.height == 360)
        #expect(report.video?.frameCount == 90)
        #expect(report.audio?.codecName == "aac")
        #expect(report.audio?.sampleRate == 48_000)
        #expect(try ProbeReport.decodeErrors(mp4) == "")

        // Presentation times, frame by frame, as ffprobe reads them from both containers (to the millisecond).
        let sourceTimes = try ProbeReport.packetTimes(flv, stream: "v:0").map { ($0 * 1000).rounded() }
        let ourTimes = try ProbeReport.packetTimes(mp4, stream: "v:0").map { ($0 * 1000).rounded() }
        #expect(ourTimes.count == 90)
        #expect(ourTimes == sourceTimes)
        #expect(try ProbeReport.frameHashes(mp4, stream: "v") == ProbeReport.frameHashes(flv, stream: "v"))
        #expect(try ProbeReport.frameHashes(mp4, stream: "a") == ProbeReport.frameHashes(flv, stream: "a"))
    }
}
