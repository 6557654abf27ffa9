import Encoders
import Foundation
import Media

/// Item 2: our X264Encoder beside ffmpeg's libx264 on the same raw frames and settings.
struct EncoderBench {
    let context: BenchContext
    static let bitrateKbps = 2500
    static let threads = 2

    func run(into report: Report) throws {
        let sizes = context.quick ? [(1280, 720)] : [(1280, 720), (1920, 1080)]
        for (width, height) in sizes {
            try measure(width: width, height: height, into: report)
        }
    }

    private func measure(width: Int, height: Int, into report: Report) throws {
        let section = "2 encoder \(height)p30"
        let frames = context.quick ? 90 : 300
        let pictures = try TestFrames.screen(width: width, height: height, count: 30)
        let ours = try Self.encode(pictures, width: width, height: height, fps: 30, frames: frames)

        let file = context.file("encode-\(height)p.yuv")
        try TestFrames.writeRaw(pictures, to: file)
        let input = ["-nostdin", "-hide_banner", "-loglevel", "error"]
            + TestFrames.rawInput(file, width: width, height: height, fps: 30)
        let log = context.file("ffmpeg-x264.log")
        let encoded = try ChildProcess.run("ffmpeg", input + [
            "-frames:v", "\(frames)", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
            "-profile:v", "high", "-b:v", "\(Self.bitrateKbps)k", "-maxrate", "\(Self.bitrateKbps)k",
            "-bufsize", "\(Self.bitrateKbps)k", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
            "-threads", "\(Self.threads)", "-f", "null", "-",
        ], logFile: log)
        let baseline = try ChildProcess.run("ffmpeg", input + ["-frames:v", "\(frames)", "-f", "null", "-"],
                                            logFile: log)
        let peerNet = max(encoded.cpuSeconds - baseline.cpuSeconds, 0) / Double(frames)
        let milli = 1e3
        report.record(section, "CPU per frame", unit: "ms", ours: ours.cpuPerFrame * milli, peer: peerNet * milli,
                      peerName: "ffmpeg libx264 (net)",
                      note: "veryfast, zerolatency, high, \(Self.bitrateKbps) kbps VBV 1 s, keyint 60, no scenecut, "
                        + "\(Self.threads) threads; ffmpeg net = CPU minus a no-encode run reading the same frames")
        report.record(section, "CPU per frame vs ffmpeg total", unit: "ms", ours: ours.cpuPerFrame * milli,
                      peer: encoded.cpuSeconds / Double(frames) * milli, peerName: "ffmpeg libx264 (total)")
        report.record(section, "output bitrate", unit: "kbps", ours: ours.kbps, peer: nil,
                      note: "the screen pattern is simple: x264 stays far under the 2500 kbps cap")
        report.record(section, "ffmpeg libx264 peak RSS", unit: "MB", ours: nil,
                      peer: Double(encoded.maxRSS) / 1e6, peerName: "ffmpeg libx264")
    }

    struct Result {
        var cpuPerFrame: Double
        var kbps: Double
    }

    /// Encodes `frames` pictures (cycling through `pictures`) and returns CPU per frame (all threads) and bitrate.
    static func encode(_ pictures: [VideoFrame], width: Int, height: Int, fps: Int, frames: Int) throws -> Result {
        let configuration = VideoEncoderConfiguration(width: width, height: height, framesPerSecond: fps,
                                                      bitrateKbps: bitrateKbps, keyframeIntervalSeconds: 2)
        let encoder = try X264Encoder(configuration: configuration, options: X264Options(threads: threads))
        var bytes = 0
        let start = Measure.processCPU()
        for index in 0..<frames {
            let picture = pictures[index % pictures.count]
            let packets = try picture.withUnsafePlanes { planes in
                try encoder.encode(I420Planes(benchPlanes: planes), pts: Int64(index) * 1000 / Int64(fps))
            }
            bytes += packets.reduce(0) { $0 + $1.data.count }
        }
        bytes += try encoder.flush().reduce(0) { $0 + $1.data.count }
        let cpu = Measure.processCPU() - start
        return Result(cpuPerFrame: cpu / Double(frames),
                      kbps: Double(bytes) * 8 / 1000 / (Double(frames) / Double(fps)))
    }
}

extension I420Planes {
    /// A view over an I420 frame's planes (valid inside `withUnsafePlanes`).
    init(benchPlanes planes: VideoPlanes) {
        self.init(width: planes.layout.width, height: planes.layout.height,
                  y: planes.baseAddress(ofPlane: 0), yStride: planes.stride(ofPlane: 0),
                  u: planes.baseAddress(ofPlane: 1), uStride: planes.stride(ofPlane: 1),
                  v: planes.baseAddress(ofPlane: 2), vStride: planes.stride(ofPlane: 2))
    }
}
