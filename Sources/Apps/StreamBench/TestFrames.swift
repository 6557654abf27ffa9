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

    /// Writes `frames` as packed raw planes in their own format (I420 as ffmpeg's `-pix_fmt yuv420p`, BGRA as
    /// `bgra`, NV12 as `nv12`), dropping row padding.
    static func writeRaw(_ frames: [VideoFrame], to path: String) throws {
        var data = Data()
        for frame in frames { appendRaw(frame, to: &data) }
        try write(data, to: path)
    }

    /// Appends `frame`'s planes to `data` as ``writeRaw(_:to:)`` writes them.
    static func appendRaw(_ frame: VideoFrame, to data: inout Data) {
        frame.withUnsafePlanes { planes in
            for plane in 0..<frame.format.planeCount {
                let base = planes.baseAddress(ofPlane: plane)
                let stride = planes.stride(ofPlane: plane)
                let bytes = frame.layout.rowBytes(ofPlane: plane)
                for row in 0..<frame.layout.rows(ofPlane: plane) {
                    data.append(base + row * stride, count: bytes)
                }
            }
        }
    }

    static func write(_ data: Data, to path: String) throws {
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
