#if canImport(Glibc)
import Glibc
#endif
import Broadcast
import Foundation
import Media
import StreamCore

/// Item 3: a live broadcast of the test sources (screen pattern, camera PiP, tone → x264 + AAC) to nginx-rtmp,
/// run as `stream broadcast` in its own process, beside ffmpeg doing the same job on the same pictures.
///
/// ffmpeg encodes what our test sources draw (their frames written raw, looped in memory by its `loop` filter,
/// paced by `realtime`): x264's work depends on the picture (the same ffmpeg costs 17–20 % more CPU on our screen,
/// whose noise strip gives the encoder real work, than on its own testsrc2), so only the same pictures compare the
/// two pipelines. ffmpeg with its own testsrc2 sources is measured too, as a second line.
struct BroadcastBench {
    let context: BenchContext

    struct Shape {
        var width: Int
        var height: Int
        var fps: Int
        var kbps: Int
        var name: String { "\(height)p\(fps)" }
    }

    func run(into report: Report) throws {
        guard Self.isAvailable(context.streamExecutable) else {
            report.note("item 3 broadcast end to end skipped: this build's `stream` has no `broadcast` command "
                            + "(the Broadcast module has not landed on this branch)")
            return
        }
        let shapes: [Shape] = context.quick
            ? [Shape(width: 1280, height: 720, fps: 30, kbps: 2500)]
            : [Shape(width: 1280, height: 720, fps: 30, kbps: 2500),
               Shape(width: 1920, height: 1080, fps: 30, kbps: 4500),
               Shape(width: 1280, height: 720, fps: 60, kbps: 4000)]
        let duration = context.quick ? 5 : 30
        let nginx = try NginxServer(directory: context.file("nginx-broadcast"), certificate: context.certificate,
                                    key: context.privateKey)
        defer { nginx.stop() }
        for shape in shapes {
            let pictures = try writePictures(shape)
            let ours = try broadcast(shape, duration: duration, url: nginx.rtmpURL)
            let ffmpeg = try ffmpegBroadcast(shape, duration: duration, url: nginx.rtmpURL, pictures: pictures)
            let testsrc2 = try ffmpegBroadcast(shape, duration: duration, url: nginx.rtmpURL, pictures: nil)
            let section = "3 broadcast \(shape.name) \(duration)s"
            let peer = "ffmpeg overlay+x264+aac"
            let oursCPU = ours.usage.cpuSeconds / Double(duration) * 100
            report.record(section, "CPU, share of one core", unit: "%", ours: oursCPU,
                          peer: ffmpeg.cpuSeconds / Double(duration) * 100, peerName: peer,
                          note: "`stream broadcast --source test --pip on` vs ffmpeg on the same pictures (our screen "
                            + "and camera frames, raw, looped in memory) + [cam]scale,hflip overlay + sine; veryfast "
                            + "zerolatency, \(shape.kbps) kbps, keyint 2 s, 2 threads, AAC 128k; both to the same "
                            + "nginx-rtmp over RTMP; CPU over the whole process life")
            report.record(section, "CPU vs ffmpeg drawing testsrc2", unit: "%", ours: oursCPU,
                          peer: testsrc2.cpuSeconds / Double(duration) * 100, peerName: "ffmpeg lavfi testsrc2+...",
                          note: "ffmpeg's own sources: a picture x264 encodes for less CPU than ours")
            report.record(section, "peak RSS", unit: "MB", ours: Double(ours.usage.maxRSS) / 1e6,
                          peer: Double(ffmpeg.maxRSS) / 1e6, peerName: peer)
            report.record(section, "peak anonymous RSS (heap, stacks)", unit: "MB",
                          ours: Double(ours.usage.peakAnonymousRSS) / 1e6,
                          peer: Double(ffmpeg.peakAnonymousRSS) / 1e6, peerName: peer,
                          note: "peak RSS minus this is file-backed pages: our binary (Swift runtime linked "
                            + "statically, no Foundation) and the C libraries (x264, libvo-aacenc, OpenSSL, ...)")
            report.record(section, "capture-to-socket latency p50", unit: "ms", ours: ours.latencyP50,
                          note: "from the session's statistics (summary line of `stream broadcast`)")
            report.record(section, "capture-to-socket latency p99", unit: "ms", ours: ours.latencyP99)
            report.record(section, "frames encoded", unit: "frames", ours: ours.encoded,
                          peer: Double(duration * shape.fps), peerName: "expected (duration x fps)")
            report.record(section, "frames dropped", unit: "frames", ours: ours.dropped,
                          note: "from `stream broadcast`'s summary line")
            report.record(section, "largest send-queue span seen", unit: "ms", ours: ours.queueMilliseconds,
                          note: "max of the status lines' `queue N ms` (media waiting to be sent)")
        }
    }

    static func isAvailable(_ stream: String) -> Bool {
        guard let child = try? ChildProcess(stream, ["broadcast", "--help"]) else { return false }
        return child.wait().exitStatus == 0
    }

    struct Outcome {
        var usage: ChildProcess.Usage
        var encoded: Double?
        var dropped: Double?
        var queueMilliseconds: Double?
        var latencyP50: Double?
        var latencyP99: Double?
    }

    private func broadcast(_ shape: Shape, duration: Int, url: String) throws -> Outcome {
        let keyFile = context.file("broadcast-key.txt")
        try "bench-broadcast\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let log = context.file("broadcast-\(shape.name).log")
        let child = try ChildProcess(context.streamExecutable,
                                     ["broadcast", url, "--key-stdin"] + Self.testArguments(shape, duration: duration),
                                     logFile: log, environment: ["XDG_CONFIG_HOME": context.file("xdg-config"),
                                       "XDG_DATA_HOME": context.file("xdg-data")],
           standardInput: keyFile)
        let usage = child.waitSamplingPeakRSS()
        guard usage.exitStatus == 0 else {
            throw BenchError("stream broadcast \(shape.name) exited with \(usage.exitStatus): \(child.logTail())")
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // The summary line: "Broadcast ended (…): 00:05, 150 frames, 0 dropped (…), 0 reconnects | latency …".
        let summary = "Broadcast ended"
        return Outcome(usage: usage, encoded: Self.number(before: " frames,", in: text, lastLine: summary),
                       dropped: Self.number(before: " dropped", in: text, lastLine: summary),
                       queueMilliseconds: Self.largestQueue(in: text),
                       latencyP50: Self.number(after: "latency p50 ", in: text, lastLine: summary),
                       latencyP99: Self.number(after: ", p99 ", in: text, lastLine: summary))
    }

    /// `stream broadcast`'s options for the test broadcast of `shape` (test sources, PiP, no adaptive bitrate).
    static func testArguments(_ shape: Shape, duration: Int) -> [String] {
        ["--source", "test", "--duration", "\(duration)",
         "--quality", "\(shape.height)", "--fps", "\(shape.fps)", "--video-bitrate", "\(shape.kbps)",
         "--audio-bitrate", "128", "--adaptive-bitrate", "off", "--pip", "on", "--pip-scale", "0.25",
         "--camera-position", "front", "--test-size", "\(shape.width)x\(shape.height)"]
    }

    /// The integer just before `marker` on the last line containing `lastLine`.
    static func number(before marker: String, in text: String, lastLine: String) -> Double? {
        guard let line = text.split(separator: "\n").last(where: { $0.contains(lastLine) }),
              let range = line.range(of: marker) else { return nil }
        let digits = line[..<range.lowerBound].reversed().prefix { $0.isNumber }
        return Double(String(digits.reversed()))
    }

    /// The integer just after `marker` on the last line containing `lastLine`.
    static func number(after marker: String, in text: String, lastLine: String) -> Double? {
        guard let line = text.split(separator: "\n").last(where: { $0.contains(lastLine) }),
              let range = line.range(of: marker) else { return nil }
        return Double(String(line[range.upperBound...].prefix { $0.isNumber }))
    }

    /// The largest "| queue N ms" among the status lines.
    static func largestQueue(in text: String) -> Double? {
        let values = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).compactMap { line -> Double? in
            guard let range = line.range(of: "| queue ") else { return nil }
            return Double(String(line[range.upperBound...].prefix { $0.isNumber }))
        }
        return values.max()
    }

    /// Raw files of what our test sources draw for `shape`: its screen (BGRA) and the camera (NV12 640×480).
    struct Pictures {
        var screen: String
        var camera: String
        /// Frames in each file; ffmpeg loops them (the noise strip changes every frame, so a loop of this many is
        /// as hard to predict as an endless run for x264's single reference frame).
        var count: Int
    }

    func writePictures(_ shape: Shape) throws -> Pictures {
        let count = 10
        let screen = TestScreenSource(size: PixelSize(width: shape.width, height: shape.height))
        let camera = TestCameraSource()
        var screenBytes = Data()
        var cameraBytes = Data()
        for index in 0..<count {
            // Each frame goes back to its source's pool (of three) before the next is drawn.
            guard let drawn = screen.frame(index: index, pts: 0), let shot = camera.frame(index: index, pts: 0) else {
                throw BenchError("the test sources' pools ran dry writing the bench's pictures")
            }
            TestFrames.appendRaw(drawn, to: &screenBytes)
            TestFrames.appendRaw(shot, to: &cameraBytes)
        }
        let pictures = Pictures(screen: context.file("screen-\(shape.name).bgra"),
                                camera: context.file("camera-\(shape.name).nv12"), count: count)
        try TestFrames.write(screenBytes, to: pictures.screen)
        try TestFrames.write(cameraBytes, to: pictures.camera)
        return pictures
    }

    /// ffmpeg doing the job to an RTMP `url`: on `pictures` when given, else from its own testsrc2 sources.
    private func ffmpegBroadcast(_ shape: Shape, duration: Int, url: String,
                                 pictures: Pictures?) throws -> ChildProcess.Usage {
        let name = pictures == nil ? "testsrc2-\(shape.name)" : shape.name
        return try ffmpegBroadcast(shape, duration: duration, output: ["-f", "flv", "\(url)/bench-ffmpeg-\(name)"],
                                   pictures: pictures, log: "ffmpeg-broadcast-\(name).log")
    }

    /// ffmpeg doing the job, writing to `output` (its muxer options and URL or file; `-f tee` for several).
    func ffmpegBroadcast(_ shape: Shape, duration: Int, output: [String], pictures: Pictures?,
                         log: String) throws -> ChildProcess.Usage {
        let pipWidth = shape.width / 4 / 2 * 2
        let pipHeight = pipWidth * 3 / 4 / 2 * 2
        let video: [String]
        let filter: String
        if let pictures {
            let loop = "loop=loop=-1:size=\(pictures.count):start=0"
            video = ["-f", "rawvideo", "-pix_fmt", "bgra", "-video_size", "\(shape.width)x\(shape.height)",
                     "-framerate", "\(shape.fps)", "-i", pictures.screen,
                     "-f", "rawvideo", "-pix_fmt", "nv12", "-video_size", "640x480", "-framerate", "30",
                     "-i", pictures.camera]
            filter = "[0:v]\(loop),format=yuv420p[s];[1:v]\(loop),scale=\(pipWidth):\(pipHeight),hflip[c];"
                + "[s][c]overlay=W-w-16:H-h-16,realtime[v]"
        } else {
            video = ["-re", "-f", "lavfi", "-i", "testsrc2=size=\(shape.width)x\(shape.height):rate=\(shape.fps)",
                     "-re", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=30"]
            filter = "[1:v]scale=\(pipWidth):\(pipHeight),hflip[c];[0:v][c]overlay=W-w-16:H-h-16[v]"
        }
        return try ChildProcess.run("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error"] + video + [
            "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-filter_complex", filter, "-map", "[v]", "-map", "2:a", "-t", "\(duration)",
            "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high",
            "-b:v", "\(shape.kbps)k", "-maxrate", "\(shape.kbps)k", "-bufsize", "\(shape.kbps)k",
            "-g", "\(shape.fps * 2)", "-keyint_min", "\(shape.fps * 2)", "-sc_threshold", "0", "-threads", "2",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-ac", "2",
        ] + output, logFile: context.file(log))
    }
}
