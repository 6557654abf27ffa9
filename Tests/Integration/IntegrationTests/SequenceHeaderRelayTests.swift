import FLV
import Foundation
import IngestServer
import Publisher
import StreamCore
import TestSupport
import Testing

/// Which video tags the relay keeps as the stream's sequence header is FLV's rule (`FLVTag.isSequenceHeader`,
/// `& 0x8F`), not a looser copy of it: a tag with the enhanced-RTMP bit set is not mistaken for the AVC header
/// that every new player needs first.
@Suite(.serialized) struct SequenceHeaderRelayTests {
    @Test func anEnhancedRTMPTagDoesNotReplaceTheAVCSequenceHeaderNewPlayersGet() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 5, size: "320x240", fps: 30, gop: 30)
        let url = "rtmp://127.0.0.1:\(port)/live/enhanced"
        let tags = try FLVPublishing.tags(of: fixture)
        let headerCount = tags.prefix { $0.type == .scriptData || $0.isSequenceHeader }.count
        // IsExHeader set, key frame, packet type 7 (ModEx), then a zero byte: `& 0x0F == 7` and a 0 after it
        // looked like an AVC sequence header; FLV's `& 0x8F` knows better.
        let enhanced = FLVTag(type: .video, timestamp: 0, body: [0x97, 0x00, 0x68, 0x76, 0x63, 0x31, 0x00, 0x00])
        #expect(!enhanced.isSequenceHeader)

        // The player joins the stream in progress, 1.5 s of media in, and the publish goes on once the server has
        // it: timed by events, not by sleeps on the cooperative pool, which a parallel run may hold for seconds (the
        // publish then ended before the player came).
        let joinNow = DispatchSemaphore(value: 0)
        let log = running.log
        let publisher = Task.detached {
            let client = try RTMPClient()
            try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
            try await client.publish(streamKey: "enhanced")
            var start = ContinuousClock.now
            var joined = false
            for (index, tag) in tags.enumerated() {
                if index == headerCount { try await client.send(enhanced) }
                if !joined && tag.timestamp >= 1500 {
                    joined = true
                    joinNow.signal()
                    _ = try await offPool("await-player") { log.waitForPlay(seconds: 20) }
                    start = .now - .milliseconds(Int(tag.timestamp))
                }
                // Real time, so that the player gets the rest as it is published.
                try await Task.sleep(until: start + .milliseconds(Int(tag.timestamp)), clock: .continuous)
                try await client.send(tag)
            }
            await client.close()
        }
        let played = running.work.file("played.flv")
        let playing = OffPoolTask("ffmpeg-player") {
            guard joinNow.wait(timeout: .now() + 20) == .success else {
                throw Subprocess.Failure(description: "the publisher did not get 1.5 s in within 20 s")
            }
            return try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", url, "-t", "2", "-c", "copy", played],
                                      timeout: 20)
        }
        try await publisher.value
        let player = try await playing.value
        #expect(player.status == 0, "\(player.stderr)")
        #expect((try ProbeReport.probe(played).video?.frameCount ?? 0) >= 45)
        #expect(try ProbeReport.decodeErrors(played) == "", "the player got a broken sequence header")
    }
}
