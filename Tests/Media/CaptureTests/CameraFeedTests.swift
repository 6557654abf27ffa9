import Capture
import Foundation
import Media
import Testing
import TestSupport

@Suite(.startsPeers) struct CameraFeedTests {
    @Test func keepsTheLatestFrameOfAPacedY4MFile() throws {
        let directory = try TemporaryDirectory("feed")
        let path = try Y4MCameraSourceTests.makeFile(in: directory, frames: 3)
        let feed = try CameraFeed { () throws(CaptureError) -> any CameraSource in try Y4MCameraSource(path: path) }
        defer { feed.stop() }
        #expect((feed.width, feed.height, feed.frameRate) == (320, 240, 15))
        let deadline = Date().addingTimeInterval(5)
        var frames: [VideoFrame] = []
        while frames.count < 3 && Date() < deadline {
            if let frame = feed.latestFrame() { frames.append(frame) }
            usleep(20_000)
        }
        #expect(frames.count == 3)
        #expect(frames.allSatisfy { $0.format == .i420 && $0.width == 320 })
        #expect(feed.failure == nil && !feed.hasEnded)
        #expect(feed.poolStatistics.allocations >= 1)
    }

    @Test func reportsAFailureToOpen() {
        let error = #expect(throws: CaptureError.self) {
            try CameraFeed { () throws(CaptureError) -> any CameraSource in
                try Y4MCameraSource(path: "/nonexistent/camera.y4m")
            }
        }
        #expect(error?.message.hasPrefix("cannot open Y4M camera") == true)
    }

    @Test func endsWhenAPipeCloses() throws {
        let directory = try TemporaryDirectory("feed")
        let fifo = directory.file("camera.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = try BackgroundProcess("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                                      "-i", "testsrc2=size=64x48:rate=30", "-frames:v", "2",
                                                      "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", fifo])
        defer { writer.stop() }
        let feed = try CameraFeed { () throws(CaptureError) -> any CameraSource in try Y4MCameraSource(path: fifo) }
        let deadline = Date().addingTimeInterval(5)
        while !feed.hasEnded && Date() < deadline { usleep(20_000) }
        #expect(feed.hasEnded)
        #expect(feed.failure == nil)
        #expect(feed.statistics.delivered == 2)
    }
}
