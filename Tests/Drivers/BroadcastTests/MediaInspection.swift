import Foundation
import TestSupport

/// ffprobe/ffmpeg measurements of a recording that ProbeReport does not make.
enum MediaInspection {
    /// A measurement that could not be made.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One video packet: time, size and whether it is a keyframe.
    struct Packet {
        var time: Double
        var size: Int
        var isKeyframe: Bool
    }

    /// The video packets of `path`, in file order.
    static func videoPackets(_ path: String) throws -> [Packet] {
        let result = try Subprocess.run("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,size,flags",
            "-of", "csv=p=0", path,
        ])
        guard result.status == 0 else { throw Failure(description: "ffprobe failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3, let time = Double(fields[0]), let size = Int(fields[1]) else { return nil }
            return Packet(time: time, size: size, isKeyframe: fields[2].contains("K"))
        }
    }

    /// The video bitrate in kbit/s over the packets' span.
    static func videoKbps(_ packets: [Packet]) -> Double {
        guard let first = packets.first, let last = packets.last, last.time > first.time else { return 0 }
        let seconds = last.time - first.time + (last.time - first.time) / Double(max(packets.count - 1, 1))
        return Double(packets.map(\.size).reduce(0, +)) * 8 / 1000 / seconds
    }

    /// The mean audio volume in dB (`ffmpeg -af volumedetect`).
    static func meanVolume(_ path: String) throws -> Double {
        let result = try Subprocess.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-vn", "-af", "volumedetect",
                                                   "-f", "null", "-"], timeout: 60)
        guard let line = result.stderr.split(separator: "\n").first(where: { $0.contains("mean_volume:") }),
              let value = line.split(separator: " ").dropLast().last.flatMap({ Double($0) }) else {
            throw Failure(description: "no mean_volume in ffmpeg output: \(result.stderr)")
        }
        return value
    }

    /// One decoded frame as RGB24 pixels.
    struct RGBFrame {
        var width: Int
        var height: Int
        var bytes: [UInt8]

        /// The pixel at (`x`, `y`).
        func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
            let offset = (y * width + x) * 3
            return (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]))
        }
    }

    /// Decodes the frame at `seconds` of `path` to RGB24.
    static func frame(_ path: String, at seconds: Double, width: Int, height: Int,
                      in directory: TemporaryDirectory) throws -> RGBFrame {
        let output = directory.file("frame-\(Int(seconds * 1000)).rgb")
        let result = try Subprocess.run("ffmpeg", [
            "-v", "error", "-y", "-ss", String(seconds), "-i", path, "-frames:v", "1", "-f", "rawvideo",
            "-pix_fmt", "rgb24", output,
        ], timeout: 60)
        guard result.status == 0, let data = FileManager.default.contents(atPath: output),
              data.count == width * height * 3 else {
            throw Failure(description: "cannot decode a frame of \(path): \(result.stderr)")
        }
        return RGBFrame(width: width, height: height, bytes: [UInt8](data))
    }
}
