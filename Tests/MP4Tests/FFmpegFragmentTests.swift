import FLV
import Foundation
import MP4
import Testing
import TestSupport

/// An FLV that ffmpeg made (x264 with B-frames, AAC) turned into fMP4 by FLVDemuxer, InitSegment and MovieFragment,
/// then read by ffprobe and decoded by ffmpeg: the same frames, the same timestamps, the same pictures and sound.
@Suite(.serialized) struct FFmpegFragmentTests {
    /// Reads an FLV file into tags.
    static func tags(of path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        return tags
    }

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

    /// The per-frame hashes of a decoded stream (`-f framemd5`), without timestamps.
    static func frameHashes(_ path: String, stream: String) throws -> [String] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:\(stream)", "-f", "framemd5",
                                                   "-"], timeout: 60)
        guard result.status == 0 else { throw Subprocess.Failure(description: result.stderr) }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test func ffmpegDecodesTheSameFramesAtTheSameTimes() throws {
        let work = try TemporaryDirectory("mp4")
        let flv = work.file("source.flv")
        let made = try Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "3",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-ac", "2", "-f", "flv", flv,
        ], timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")
        let tags = try Self.tags(of: flv)
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
        #expect(try Self.frameHashes(mp4, stream: "v") == Self.frameHashes(flv, stream: "v"))
        #expect(try Self.frameHashes(mp4, stream: "a") == Self.frameHashes(flv, stream: "a"))
    }
}
