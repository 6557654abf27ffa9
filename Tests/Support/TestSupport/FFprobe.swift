import Foundation

/// What ffprobe says about a media file.
public struct ProbeReport {
    public struct Stream {
        public var codecType: String
        public var codecName: String
        public var width: Int?
        public var height: Int?
        public var sampleRate: Int?
        public var frameCount: Int?
        public var averageFrameRate: Double?
    }

    public var streams: [Stream]
    /// The demuxer ffprobe chose (`mov,mp4,m4a,3gp,3g2,mj2`, `flv`, ...).
    public var formatName: String?
    public var durationSeconds: Double?
    public var bitRate: Int?

    public var video: Stream? { streams.first { $0.codecType == "video" } }
    public var audio: Stream? { streams.first { $0.codecType == "audio" } }

    /// Probes a file, counting frames by decoding them.
    public static func probe(_ path: String) throws -> ProbeReport {
        let result = try Subprocess.run("ffprobe", [
            "-v", "error", "-count_frames", "-show_streams", "-show_format", "-of", "json", path,
        ])
        guard result.status == 0, let data = result.stdout.data(using: .utf8),
              let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Subprocess.Failure(description: "ffprobe failed on \(path): \(result.stderr)")
        }
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { stream in
            Stream(
                codecType: stream["codec_type"] as? String ?? "",
                codecName: stream["codec_name"] as? String ?? "",
                width: stream["width"] as? Int,
                height: stream["height"] as? Int,
                sampleRate: (stream["sample_rate"] as? String).flatMap(Int.init),
                frameCount: (stream["nb_read_frames"] as? String).flatMap(Int.init),
                averageFrameRate: (stream["avg_frame_rate"] as? String).flatMap(rational)
            )
        }
        let format = json["format"] as? [String: Any] ?? [:]
        return ProbeReport(
            streams: streams,
            formatName: format["format_name"] as? String,
            durationSeconds: (format["duration"] as? String).flatMap(Double.init),
            bitRate: (format["bit_rate"] as? String).flatMap(Int.init)
        )
    }

    /// Packet timestamps (pts, in seconds) of one stream ("v:0" or "a:0"), in file order.
    public static func packetTimes(_ path: String, stream: String) throws -> [Double] {
        let result = try Subprocess.run("ffprobe", [
            "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", path,
        ])
        guard result.status == 0 else { throw Subprocess.Failure(description: "ffprobe failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The per-frame hashes of one decoded stream (`ffmpeg -f framemd5`), without their timestamps: two inputs
    /// with the same hashes decode to the same pictures or sound.
    /// - Parameters:
    ///   - stream: "v" or "a".
    ///   - inputOptions: options before `-i` (e.g. `-allowed_extensions ALL` for a playlist).
    public static func frameHashes(_ path: String, stream: String, inputOptions: [String] = []) throws -> [String] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error"] + inputOptions
                                            + ["-i", path, "-map", "0:\(stream)", "-f", "framemd5", "-"], timeout: 60)
        guard result.status == 0 else { throw Subprocess.Failure(description: "ffmpeg failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Decodes the whole file and returns what the decoder complained about (empty when it decodes cleanly).
    public static func decodeErrors(_ path: String) throws -> String {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"], timeout: 120)
        return result.status == 0 ? result.stderr : "ffmpeg exited \(result.status): \(result.stderr)"
    }

    private static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return parts.count == 1 ? parts[0] : nil }
        return parts[0] / parts[1]
    }
}

/// Media made by ffmpeg at test time, so no binary fixture lives in the repository.
public enum MediaFixture {
    /// An FLV of 640x360 30 fps H.264 with B-frames (so composition offsets vary) and 48 kHz stereo AAC.
    public static func makeFLVWithBFrames(in directory: TemporaryDirectory, seconds: Int, gop: Int) throws -> String {
        let output = directory.file("bframes-\(seconds)s-g\(gop).flv")
        let result = try Subprocess.run("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "\(gop)", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-ac", "2", "-f", "flv", output,
        ], timeout: 120)
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "ffmpeg fixture failed: \(result.stderr)")
        }
        return output
    }

    /// An FLV with H.264 (lavfi's `source`, testsrc2 by default; keyframe every `gop` frames) and AAC (a 1 kHz
    /// sine at 48 kHz).
    public static func makeFLV(in directory: TemporaryDirectory, seconds: Int = 3, size: String = "640x360",
                               fps: Int = 30, gop: Int = 60, source: String = "testsrc2") throws -> String {
        let output = directory.file("fixture-\(source)-\(size)-\(seconds)s.flv")
        let result = try Subprocess.run("ffmpeg", [
            "-v", "error", "-y",
            "-f", "lavfi", "-i", "\(source)=size=\(size):rate=\(fps)",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
            "-t", "\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "\(gop)", "-bf", "0",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2",
            "-f", "flv", output,
        ], timeout: 120)
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "ffmpeg fixture failed: \(result.stderr)")
        }
        return output
    }

    /// An FLV of noise that does not compress, so it really is `megabitsPerSecond` (H.264, a keyframe a second),
    /// with a 1 kHz AAC tone when `audio`: the bulk that fills queues, kernel buffers and disks.
    public static func makeNoisyFLV(in directory: TemporaryDirectory, seconds: Int, size: String,
                                    megabitsPerSecond: Int, audio: Bool = false) throws -> String {
        let output = directory.file("noise-\(size)-\(megabitsPerSecond)M-\(seconds)s.flv")
        let tone = audio ? ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"] : []
        let result = try Subprocess.run("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30,noise=alls=60:allf=t",
        ] + tone + [
            "-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "\(megabitsPerSecond)M",
            "-maxrate", "\(megabitsPerSecond)M", "-bufsize", "\(megabitsPerSecond / 2 + 1)M", "-g", "30",
            "-pix_fmt", "yuv420p",
        ] + (audio ? ["-c:a", "aac"] : []) + ["-f", "flv", output], timeout: 120)
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "ffmpeg fixture failed: \(result.stderr)")
        }
        return output
    }
}
