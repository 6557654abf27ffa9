#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Media

/// Item 1: the PiP compositor per frame beside ffmpeg's overlay filter on the same frames, and beside memcpy.
struct CompositorBench {
    let context: BenchContext

    func run(into report: Report) throws {
        for (width, height) in [(1280, 720), (1920, 1080)] {
            try measure(width: width, height: height, into: report)
        }
    }

    private func measure(width: Int, height: Int, into report: Report) throws {
        let section = "1 compositor \(height)p"
        let frames = context.quick ? 150 : 600
        let screens = try TestFrames.screen(width: width, height: height, count: 8)
        let cameras = TestFrames.camera(count: 8)
        let configuration = PiPConfiguration(corner: .bottomRight, scale: 0.25, camera: .front)

        // Camera at the screen's rate: every frame brings a new camera picture (convert, scale, mirror, blit).
        // The screen frame is moved in and out (`consume`), so it stays uniquely referenced and is drawn in place.
        let compositor = PiPCompositor(configuration: configuration)
        var screen = Self.unique(screens[0])
        let fresh = Self.time(frames, &screen) { index, frame in
            var camera = cameras[index % cameras.count]
            camera.pts = Int64(index) * 33_333_333
            frame.pts = camera.pts
            compositor.cameraSlot.put(camera)
            frame = compositor.composite(consume frame)
        }
        guard compositor.statistics.composited >= frames, compositor.statistics.copied == 0,
              let rect = compositor.lastRect else {
            throw BenchError("the compositor did not composite in place: \(compositor.statistics)")
        }
        // Same camera picture reused (a camera slower than the screen): the blit alone.
        let blitOnly = Self.time(frames, &screen) { _, frame in
            frame = compositor.composite(consume frame)
        }
        guard compositor.statistics.copied == 0 else {
            throw BenchError("the compositor copied shared frames: \(compositor.statistics)")
        }
        let passthrough = PiPCompositor(configuration: .disabled)
        let passed = Self.time(frames, &screen) { _, frame in
            frame = passthrough.composite(consume frame)
        }
        let byteCount = screen.layout.byteCount
        let source = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        let destination = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        defer {
            source.deallocate()
            destination.deallocate()
        }
        memset(source, 7, byteCount)
        memset(destination, 0, byteCount)
        let copy = Self.time(frames, &screen) { _, _ in
            memcpy(destination, source, byteCount)
        }

        let ffmpeg = try ffmpegOverlay(screens: screens, cameras: cameras, width: width, height: height,
                                       rect: rect, frames: frames)
        let micro = 1e6
        report.record(section, "PiP, new camera frame each frame", unit: "us/frame", ours: fresh * micro,
                      peer: ffmpeg.net * micro, peerName: "ffmpeg overlay (net)",
                      note: "ffmpeg: [1]scale,hflip[c];[0][c]overlay, 1 thread, CPU minus a no-filter run of the "
                        + "same inputs; it draws a plain rectangle (ours clips rounded corners)")
        report.record(section, "PiP, new camera frame each frame vs ffmpeg total", unit: "us/frame",
                      ours: fresh * micro, peer: ffmpeg.total * micro, peerName: "ffmpeg overlay (total)")
        report.record(section, "PiP, same camera picture (blit)", unit: "us/frame", ours: blitOnly * micro,
                      peer: copy * micro, peerName: "memcpy 1 frame")
        report.record(section, "PiP, new camera frame vs memcpy", unit: "us/frame", ours: fresh * micro,
                      peer: copy * micro, peerName: "memcpy 1 frame")
        report.record(section, "passthrough (PiP off)", unit: "us/frame", ours: passed * micro,
                      peer: copy * micro, peerName: "memcpy 1 frame")
    }

    /// CPU seconds per call of `body` (given the frame index and the screen frame), on this thread.
    static func time(_ count: Int, _ frame: inout VideoFrame, _ body: (Int, inout VideoFrame) -> Void) -> Double {
        for index in 0..<min(count, 10) { body(index, &frame) }  // warm caches and lazily built buffers
        let start = Measure.threadCPU()
        for index in 0..<count { body(index, &frame) }
        return (Measure.threadCPU() - start) / Double(count)
    }

    /// A frame with its own storage (a copy of `frame`).
    static func unique(_ frame: VideoFrame) -> VideoFrame {
        var copy = VideoFrame(layout: frame.layout, pts: frame.pts)
        let count = frame.layout.byteCount
        frame.withUnsafePlanes { source in
            copy.withUnsafeMutablePlanes { destination in
                destination.baseAddress(ofPlane: 0).update(from: source.baseAddress(ofPlane: 0), count: count)
            }
        }
        return copy
    }

    /// ffmpeg's CPU per frame for the same composite, and net of reading the inputs.
    private func ffmpegOverlay(screens: [VideoFrame], cameras: [VideoFrame], width: Int, height: Int, rect: PiPRect,
                               frames: Int) throws -> (total: Double, net: Double) {
        let screenFile = context.file("screen-\(height)p.yuv")
        let cameraFile = context.file("camera-480p.yuv")
        try TestFrames.writeRaw(screens, to: screenFile)
        try TestFrames.writeRaw(cameras, to: cameraFile)
        let inputs = TestFrames.rawInput(screenFile, width: width, height: height, fps: 30)
            + TestFrames.rawInput(cameraFile, width: 640, height: 480, fps: 30)
        let common = ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1", "-filter_threads", "1",
                      "-filter_complex_threads", "1"]
        let overlay = "[1:v]scale=\(rect.width):\(rect.height),hflip[c];[0:v][c]overlay=\(rect.x):\(rect.y)[out]"
        let log = context.file("ffmpeg-overlay.log")
        let composite = try ChildProcess.run("ffmpeg", common + inputs + [
            "-filter_complex", overlay, "-map", "[out]", "-frames:v", "\(frames)", "-f", "null", "-",
        ], logFile: log)
        let baseline = try ChildProcess.run("ffmpeg", common + inputs + [
            "-map", "0:v", "-map", "1:v", "-frames:v", "\(frames)", "-f", "null", "-",
        ], logFile: log)
        let total = composite.cpuSeconds / Double(frames)
        return (total, max(composite.cpuSeconds - baseline.cpuSeconds, 0) / Double(frames))
    }
}
