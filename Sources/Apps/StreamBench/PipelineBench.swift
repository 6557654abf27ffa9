import Encoders
import Foundation
import Media

/// Items 6 and the "non-encoder work" target: the broadcast pipeline without the network (screen pattern →
/// I420 at the encode size → PiP with a new camera frame each frame → x264, plus tone → AAC), unpaced, in a
/// child process so its peak RSS is its own. Each stage's CPU is timed, so encoder and non-encoder work separate.
struct PipelineBench {
    let context: BenchContext

    struct Shape {
        var width: Int
        var height: Int
        var fps: Int
        var name: String { "\(height)p\(fps)" }
    }

    func run(into report: Report) throws {
        let shapes: [Shape] = context.quick
            ? [Shape(width: 1280, height: 720, fps: 30)]
            : [Shape(width: 854, height: 480, fps: 30), Shape(width: 1280, height: 720, fps: 30),
               Shape(width: 1920, height: 1080, fps: 30), Shape(width: 1280, height: 720, fps: 60),
               Shape(width: 1920, height: 1080, fps: 60)]
        let frames = context.quick ? 60 : 240
        for shape in shapes {
            let log = context.file("pipeline-\(shape.name).log")
            let child = try ChildProcess(context.selfExecutable, [
                "pipeline-child", "\(shape.width)", "\(shape.height)", "\(shape.fps)", "\(frames)",
            ], logFile: log)
            let usage = child.waitSamplingPeakRSS()
            guard usage.exitStatus == 0,
                  let line = child.logTail(4000).split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double]
            else {
                throw BenchError("pipeline child \(shape.name) failed (\(usage.exitStatus)): \(child.logTail())")
            }
            let section = "6 pipeline \(shape.name)"
            let total = object["total"] ?? 0
            let encoder = (object["video"] ?? 0) + (object["audio"] ?? 0)
            let source = object["source"] ?? 0
            let ourWork = total - source
            report.record(section, "CPU, share of one core at real time", unit: "%",
                          ours: total / Double(frames) * Double(shape.fps) * 100)
            report.record(section, "non-encoder share of pipeline CPU", unit: "%",
                          ours: ourWork > 0 ? (ourWork - encoder) / ourWork * 100 : nil,
                          note: "convert + PiP composite over (convert + PiP + x264 + AAC); the synthetic screen "
                            + "pattern (stands in for capture) is excluded")
            report.record(section, "pattern source share (excluded above)", unit: "%",
                          ours: total > 0 ? source / total * 100 : nil)
            report.record(section, "peak RSS", unit: "MB", ours: (object["peakRSS"] ?? Double(usage.maxRSS)) / 1e6,
                          note: "the child's own VmHWM; x264 alone (ffmpeg -c:v libx264, same settings) is reported "
                            + "in item 2")
        }
    }

    /// Runs in the child: prints one JSON line of CPU seconds per stage.
    static func child(width: Int, height: Int, fps: Int, frames: Int) throws {
        let screen = ScreenPattern(width: width, height: height)
        let camera = CameraPattern(width: 640, height: 480, format: .nv12)
        let screenPool = FramePool(format: .bgra, width: width, height: height, maxCount: 3)
        let cameraPool = FramePool(format: .nv12, width: 640, height: 480, maxCount: 3)
        let converter = EncodeFrameConverter(width: width, height: height)
        let compositor = PiPCompositor(configuration: PiPConfiguration(scale: 0.25, camera: .front))
        let video = try X264Encoder(
            configuration: VideoEncoderConfiguration(width: width, height: height, framesPerSecond: fps,
                                                     bitrateKbps: EncoderBench.bitrateKbps,
                                                     keyframeIntervalSeconds: 2),
            options: X264Options(threads: EncoderBench.threads))
        let audio = try AACEncoder(configuration: AudioEncoderConfiguration())
        let samplesPerFrame = 48_000 / fps
        var phase = 0.0
        var pcm = [Float](repeating: 0, count: samplesPerFrame * 2)
        var times: [String: Double] = ["source": 0, "convert": 0, "composite": 0, "video": 0, "audio": 0]
        var bytes = 0
        let start = Measure.processCPU()
        for index in 0..<frames {
            let pts = Int64(index) * 1_000_000_000 / Int64(fps)
            var mark = Measure.processCPU()
            func lap(_ stage: String) {
                let now = Measure.processCPU()
                times[stage, default: 0] += now - mark
                mark = now
            }
            guard var screenFrame = screenPool.makeFrame(pts: pts),
                  var cameraFrame = cameraPool.makeFrame(pts: pts) else { throw BenchError("pool exhausted") }
            screen.render(frameIndex: index, into: &screenFrame)
            camera.render(frameIndex: index, into: &cameraFrame)
            for sample in 0..<samplesPerFrame {
                let value = Float(sin(phase) * 0.5)
                phase += 2 * Double.pi * 440 / 48_000
                pcm[2 * sample] = value
                pcm[2 * sample + 1] = value
            }
            lap("source")
            guard let converted = try converter.convert(screenFrame) else { throw BenchError("converter dropped") }
            _ = consume screenFrame
            lap("convert")
            compositor.cameraSlot.put(cameraFrame)
            // Moved in, as the broadcast pipeline does, so the compositor draws in place instead of copying.
            let composited = compositor.composite(consume converted)
            lap("composite")
            let packets = try composited.withUnsafePlanes { planes in
                try video.encode(I420Planes(benchPlanes: planes), pts: pts / 1_000_000)
            }
            bytes += packets.reduce(0) { $0 + $1.data.count }
            lap("video")
            let audioPackets = try pcm.withUnsafeBufferPointer { try audio.encode(interleaved: $0) }
            bytes += audioPackets.reduce(0) { $0 + $1.data.count }
            lap("audio")
        }
        times["total"] = Measure.processCPU() - start
        times["bytes"] = Double(bytes)
        times["composited"] = Double(compositor.statistics.composited)
        times["copied"] = Double(compositor.statistics.copied)
        times["peakRSS"] = Double(Measure.peakRSS())
        let data = try JSONSerialization.data(withJSONObject: times, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }
}
