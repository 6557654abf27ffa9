#if canImport(Glibc)
import Glibc
#endif
import Capture
import Foundation
import Media

/// Item 7: X11 capture of a 1080p screen (MIT-SHM and plain GetImage) and its conversion to the 720p I420 that x264
/// takes, beside ffmpeg's x11grab doing the same grab and conversion, on a private Xvfb.
struct CaptureBench {
    let context: BenchContext

    func run(into report: Report) throws {
        let section = "7 capture 1080p X11"
        let frames = context.quick ? 100 : 300
        let display = ":\(Int(getpid()) % 400 + 500)"
        // -noreset: the server would otherwise reset (and refuse connections) each time its last client leaves.
        let xvfb = try ChildProcess("Xvfb", [display, "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-noreset"],
                                    logFile: context.file("xvfb.log"))
        defer { _ = xvfb.stop() }
        try waitForDisplay(display)

        let shm = try grabCost(display: display, sharedMemory: true, frames: frames)
        let plain = try grabCost(display: display, sharedMemory: false, frames: frames)
        let converter = EncodeFrameConverter(width: 1280, height: 720)
        let source = try X11ScreenSource(options: .init(display: display, drawsCursor: false, poolSize: 2))
        var converted = 0
        let start = Measure.threadCPU()
        for index in 0..<frames {
            guard let frame = try source.grab(pts: Int64(index)) else { continue }
            if (try? converter.convert(frame)) != nil { converted += 1 }
        }
        let grabAndConvert = (Measure.threadCPU() - start) / Double(frames)
        guard converted == frames else { throw BenchError("converted \(converted) of \(frames) grabs") }

        let ffmpeg = try ChildProcess.run("ffmpeg", [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1", "-filter_threads", "1",
            "-f", "x11grab", "-draw_mouse", "0", "-framerate", "1000", "-video_size", "1920x1080", "-i", display,
            "-frames:v", "\(frames)", "-vf", "scale=1280:720:flags=bilinear,format=yuv420p", "-f", "null", "-",
        ], logFile: context.file("ffmpeg-x11grab.log"))
        guard ffmpeg.exitStatus == 0 else {
            throw BenchError("ffmpeg x11grab failed: see \(context.file("ffmpeg-x11grab.log"))")
        }
        let milli = 1e3
        report.record(section, "SHM grab + convert to 720p I420", unit: "ms/frame", ours: grabAndConvert * milli,
                      peer: ffmpeg.cpuSeconds / Double(frames) * milli, peerName: "ffmpeg x11grab + scale",
                      note: "ours: thread CPU; ffmpeg: process CPU incl. start-up, 1 thread")
        report.record(section, "MIT-SHM grab only", unit: "ms/frame", ours: shm * milli)
        report.record(section, "plain GetImage grab only", unit: "ms/frame", ours: plain * milli)
    }

    private func grabCost(display: String, sharedMemory: Bool, frames: Int) throws -> Double {
        let source = try X11ScreenSource(options: .init(display: display, useSharedMemory: sharedMemory,
                                                        drawsCursor: false, poolSize: 2))
        guard source.usesSharedMemory == sharedMemory else {
            throw BenchError("the X server \(sharedMemory ? "has no" : "forced") MIT-SHM")
        }
        for index in 0..<5 { _ = try source.grab(pts: Int64(index)) }
        let start = Measure.threadCPU()
        for index in 0..<frames { _ = try source.grab(pts: Int64(index)) }
        return (Measure.threadCPU() - start) / Double(frames)
    }

    private func waitForDisplay(_ display: String) throws {
        let deadline = Measure.now() + 10
        while Measure.now() < deadline {
            if (try? X11ScreenSource(options: .init(display: display, poolSize: 1))) != nil { return }
            usleep(50_000)
        }
        throw BenchError("Xvfb \(display) did not start")
    }
}
