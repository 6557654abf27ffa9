import Foundation
import TestSupport
import Testing

/// Players we did not write, started a minute into a live publish to a real `stream serve` (issue 34 items 9 and
/// 10): VLC, GStreamer's `hlsdemux` and `hlsdemux2`, and ffmpeg, all on the same LL-HLS playlist at once.
@Suite(.serialized, .startsPeers) struct HLSPlayerTests {
    /// How long the publish runs, and how far into it the players start.
    static let publishSeconds = 95
    static let startAfterSegments = 30

    /// `gst-launch-1.0` running `pipeline` (its decoded video through `identity name=decoded` into a
    /// clock-synchronised sink) for `seconds`: the frames it decoded (one `identity` line per frame).
    static func gstreamerFrames(_ pipeline: [String], seconds: TimeInterval) throws -> Int {
        let result = try Subprocess.run("gst-launch-1.0", ["-v"] + pipeline, timeout: seconds)
        return result.stdout.split(separator: "\n").filter { $0.contains("decoded: last-message = chain") }.count
    }

    /// Legacy `hlsdemux` (what `playbin` uses) with qtdemux and libav's H.264 decoder.
    static func legacyPipeline(_ url: String) -> [String] {
        ["souphttpsrc", "location=\(url)", "!", "hlsdemux", "!", "qtdemux", "!", "h264parse", "!", "avdec_h264", "!",
         "identity", "name=decoded", "silent=false", "!", "fakesink", "sync=true"]
    }

    /// `playbin3`, which uses `hlsdemux2`.
    static func playbin3Pipeline(_ url: String) -> [String] {
        ["playbin3", "uri=\(url)", "video-sink=identity name=decoded silent=false ! fakesink sync=true",
         "audio-sink=fakesink"]
    }

    /// VLC (headless, as `nobody`: it refuses to run as root) playing `url` until the stream ends; its log.
    static func vlcLog(_ url: String, home: TemporaryDirectory, timeout: TimeInterval) throws -> (Int32, String) {
        chmod(home.path, 0o777)
        let result = try Subprocess.run("setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=\(home.path)",
            "cvlc", "-vv", "--intf", "dummy", "--vout", "dummy", "--aout", "dummy", "--play-and-exit", url,
        ], timeout: timeout)
        return (result.status, result.stdout + result.stderr)
    }

    @Test func playersStartedAMinuteIntoAPublishPlayIt() async throws {
        let server = try ServeHLSTests.Server()
        defer { server.stop() }
        let work = try TemporaryDirectory("hls-players")
        let fixture = try MediaFixture.makeFLV(in: work, seconds: Self.publishSeconds)
        let publisher = try BackgroundProcess("ffmpeg", [
            "-nostdin", "-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
            "rtmp://127.0.0.1:\(server.rtmpPort)/live/players-key",
        ], errorLog: work.file("ffmpeg.err"))
        defer { publisher.stop() }
        let playlist = try server.hlsAddress()

        // The players start once the stream has run a minute: segment 30 (2 s each) is listed.
        let deadline = ContinuousClock.now + .seconds(Self.startAfterSegments * 2 + 30)
        var listed = ""
        while !listed.contains("seg-") || !listed.contains("-\(Self.startAfterSegments).m4s") {
            guard ContinuousClock.now < deadline else {
                Issue.record("segment \(Self.startAfterSegments) never listed: \(listed)")
                return
            }
            try await Task.sleep(for: .milliseconds(500))
            listed = try await offPool { try ServeHLSTests.curl(playlist) }
        }
        let home = try TemporaryDirectory("hls-vlc")
        let remaining = TimeInterval(Self.publishSeconds - Self.startAfterSegments * 2)
        async let vlc = offPool { try Self.vlcLog(playlist, home: home, timeout: remaining + 30) }
        async let legacy = offPool { try Self.gstreamerFrames(Self.legacyPipeline(playlist), seconds: 25) }
        async let adaptive2 = offPool { try Self.gstreamerFrames(Self.playbin3Pipeline(playlist), seconds: 25) }
        async let ffmpeg = offPool { try ServeHLSTests.playToTheEnd(playlist) }
        let (vlcResult, legacyFrames, adaptive2Frames, ffmpegFrames) = try await (vlc, legacy, adaptive2, ffmpeg)
        let ended = try await offPool { try ServeHLSTests.curl(playlist) }
        print("players a minute in: hlsdemux \(legacyFrames) frames in 25 s, playbin3 \(adaptive2Frames), "
              + "ffmpeg \(ffmpegFrames.count) to the end")

        // VLC plays to the end on its own: every segment from where it started to the last, one after the other,
        // and no fragment sequence discontinuity past the first fragment it reads (it expects 0 there, whatever
        // the stream's numbering: the one message any fMP4 stream gets).
        #expect(ended.hasSuffix("#EXT-X-ENDLIST\n"))
        let (status, log) = vlcResult
        #expect(status == 0, "VLC did not end by itself: \(log.suffix(2000))")
        let discontinuities = log.split(separator: "\n").filter { $0.contains("Fragment sequence discontinuity") }
        #expect(discontinuities.count <= 1, "\(discontinuities)")
        let fetched = log.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains("Retrieving"), let name = line.split(separator: "/").last, name.hasPrefix("seg-"),
                  let number = name.dropLast(4).split(separator: "-").last else { return nil }
            return Int(number)
        }
        let last = ended.split(separator: "\n").last { $0.hasPrefix("seg-") }
            .flatMap { $0.dropLast(4).split(separator: "-").last }.flatMap { Int($0) }
        #expect(!fetched.isEmpty && fetched == Array((fetched.first ?? 0)...(last ?? 0)), "\(fetched) to \(last ?? -1)")

        // playbin3 (hlsdemux2) and ffmpeg decode the stream in real time.
        #expect(adaptive2Frames >= 300, "playbin3: \(adaptive2Frames) frames in 25 s")
        #expect(ffmpegFrames.count >= 30 * Int(remaining - 12), "ffmpeg: \(ffmpegFrames.count) frames")
        // Legacy hlsdemux counts its timeline from the first segment of the first playlist it reads, while the
        // fragments' tfdt counts from the publish's first keyframe (as for every player): its sink waits for the
        // difference, a minute here, before the first frame (issue 34 item 10; see docs/hls.md).
        withKnownIssue("legacy hlsdemux waits for the age of the playlist's first segment") {
            #expect(legacyFrames >= 300, "hlsdemux: \(legacyFrames) frames in 25 s")
        }
    }
}
