import FLV
import Foundation
import Testing
import TestSupport
@testable import HLS

/// What the packager writes for a real x264/AAC stream, put in a directory as a server would serve it and played
/// by ffmpeg's HLS demuxer (which knows nothing of LL-HLS: it plays the EXTINF segments and ignores the parts).
@Suite(.serialized) struct FFmpegPlaybackTests {
    static func tags(of path: String) throws -> [FLVTag] {
        var reader = FLVReader()
        reader.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        var tags: [FLVTag] = []
        while let tag = try reader.next() { tags.append(tag) }
        return tags
    }

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

    static func frameHashes(_ input: String, stream: String, extra: [String] = []) throws -> [String] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error"] + extra + ["-i", input, "-map", "0:\(stream)",
                                                                               "-f", "framemd5", "-"], timeout: 60)
        guard result.status == 0 else { throw Subprocess.Failure(description: result.stderr) }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test func ffmpegPlaysTheSegmentsAndDecodesEveryFrameThePublisherSent() throws {
        let work = try TemporaryDirectory("hls-ffmpeg")
        let flv = work.file("source.flv")
        let made = try Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "6",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-ac", "2", "-f", "flv", flv,
        ], timeout: 60)
        try #require(made.status == 0, "\(made.stderr)")

        var packager = LLHLSPackager(epoch: "p1")
        for tag in try Self.tags(of: flv) {
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
        #expect(try Self.frameHashes(playlist, stream: "v", extra: allowed) == Self.frameHashes(flv, stream: "v"))
        // The sound too (ffmpeg's AAC decoder is deterministic): every frame the FLV held.
        #expect(try Self.frameHashes(playlist, stream: "a", extra: allowed) == Self.frameHashes(flv, stream: "a"))

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
