import FLV
import Foundation
import Testing
import TestSupport
@testable import HLS

/// What the packager writes for a real x264/AAC stream, put in a directory as a server would serve it and played
/// by ffmpeg's HLS demuxer (which knows nothing of LL-HLS: it plays the EXTINF segments and ignores the parts).
@Suite(.serialized, .startsPeers) struct FFmpegPlaybackTests {
    /// Writes the playlist and every resource it names into `directory`.
    static func publish(_ packager: LLHLSPackager, into directory: TemporaryDirectory) throws {
        let playlist = try #require(packager.playlist)
        try playlist.write(toFile: directory.file("index.m3u8"), atomically: true, encoding: .utf8)
        for line in playlist.split(separator: "\n") {
            let name: Substring
            if let start = line.range(of: "URI=\"")?.upperBound, let end = line[start...].firstIndex(of: "\"") {
                name = line[start..<end]
            } else if !line.hasPrefix("#") {
                name = line
            } else {
                continue
            }
            let resource = try #require(ResourceName(parsing: String(name)))
            guard case .available(let bytes) = packager.resource(resource) else {
                if case .part = resource, line.hasPrefix("#EXT-X-PRELOAD-HINT") { continue }
                Issue.record("\(name) is listed but not available")
                continue
            }
            try Data(bytes).write(to: URL(fileURLWithPath: directory.file(String(name))))
        }
    }

    @Test func ffmpegPlaysTheSegmentsAndDecodesEveryFrameThePublisherSent() throws {
        let work = try TemporaryDirectory("hls-ffmpeg")
        let flv = try MediaFixture.makeFLVWithBFrames(in: work, seconds: 6, gop: 30)

        var packager = LLHLSPackager(epoch: "p1")
        for tag in try FLVTags.of(flv) {
            _ = packager.append(tag, wallClock: 1_800_000_000_000 + Int64(tag.timestamp))
        }
        _ = packager.finish()
        #expect(packager.segments.count == 6)  // 1 s keyframe interval: six 1 s segments
        let site = try TemporaryDirectory("hls-site")
        try Self.publish(packager, into: site)

        let playlist = site.file("index.m3u8")
        let report = try ProbeReport.probe(playlist)
        #expect(report.video?.codecName == "h264")
        #expect(report.video?.width == 640)
        #expect(report.video?.frameCount == 180)
        #expect(report.audio?.codecName == "aac")
        #expect(try ProbeReport.decodeErrors(playlist) == "")
        // The same pictures, frame for frame, as decoding the publisher's FLV.
        let allowed = ["-allowed_extensions", "ALL"]
        #expect(try ProbeReport.frameHashes(playlist, stream: "v", inputOptions: allowed)
                == ProbeReport.frameHashes(flv, stream: "v"))
        // The sound too (ffmpeg's AAC decoder is deterministic): every frame the FLV held.
        #expect(try ProbeReport.frameHashes(playlist, stream: "a", inputOptions: allowed)
                == ProbeReport.frameHashes(flv, stream: "a"))

        // And each part on its own is a playable CMAF chunk after the init segment.
        let part = try #require(packager.segments[2].parts.first)
        guard case .available(let initBytes) = packager.resource(.initSegment(epoch: "p1", index: 0)) else {
            Issue.record("no init segment")
            return
        }
        let chunk = work.file("chunk.mp4")
        try Data(initBytes + part.bytes).write(to: URL(fileURLWithPath: chunk))
        #expect(try ProbeReport.probe(chunk).video?.frameCount == 10)
    }
}
