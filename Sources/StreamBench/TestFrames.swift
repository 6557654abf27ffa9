import Foundation
import Media

/// The synthetic pictures every video benchmark uses: the screen test pattern (BGRA rendered, then I420 at the
/// encode size, as a broadcast would convert it) and the camera pattern, also written as raw I420 files for ffmpeg.
enum TestFrames {
    /// `count` consecutive I420 frames of the screen pattern at `width` × `height` (the box moves each frame).
    static func screen(width: Int, height: Int, count: Int) throws -> [VideoFrame] {
        let pattern = ScreenPattern(width: width, height: height)
        let converter = EncodeFrameConverter(width: width, height: height, maxFrames: count)
        var frames: [VideoFrame] = []
        var bgra = VideoFrame(layout: FrameLayout(format: .bgra, width: width, height: height))
        for index in 0..<count {
            pattern.render(frameIndex: index, into: &bgra)
            guard let frame = try converter.convert(bgra) else { throw BenchError("converter pool exhausted") }
            frames.append(frame)
        }
        return frames
    }

    /// `count` I420 frames of the camera pattern (the stripe moves each frame).
    static func camera(width: Int = 640, height: Int = 480, count: Int) -> [VideoFrame] {
        let pattern = CameraPattern(width: width, height: height, format: .i420)
        return (0..<count).map { index in
            var frame = VideoFrame(layout: FrameLayout(format: .i420, width: width, height: height))
            pattern.render(frameIndex: index, into: &frame)
            return frame
        }
    }

    /// Writes `frames` as packed raw I420 (ffmpeg's `-f rawvideo -pix_fmt yuv420p`), dropping row padding.
    static func writeRaw(_ frames: [VideoFrame], to path: String) throws {
        var data = Data()
        for frame in frames {
            frame.withUnsafePlanes { planes in
                for plane in 0..<3 {
                    let rows = plane == 0 ? frame.height : (frame.height + 1) / 2
                    let bytes = plane == 0 ? frame.width : (frame.width + 1) / 2
                    let base = planes.baseAddress(ofPlane: plane)
                    let stride = planes.stride(ofPlane: plane)
                    for row in 0..<rows {
                        data.append(base + row * stride, count: bytes)
                    }
                }
            }
        }
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw BenchError("cannot write \(path)")
        }
    }

    /// ffmpeg input arguments for a raw I420 file written by ``writeRaw(_:to:)``, looped forever.
    static func rawInput(_ path: String, width: Int, height: Int, fps: Int) -> [String] {
        ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-r", "\(fps)",
         "-stream_loop", "-1", "-i", path]
    }
}
