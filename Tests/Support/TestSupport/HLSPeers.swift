import Foundation

/// Real HLS players for the tests: Chromium running Stream's MSE player (Playwright), and ffmpeg's HLS demuxer. Both
/// read the test pattern's burnt-in time code and frame counter from what they show.
public enum HLSPeers {
    /// Where the time code and frame counter blocks are, as fractions of the picture: the centres of the 16 blocks
    /// of each row, left to right, and the row's height.
    public struct Geometry: Codable, Sendable {
        public struct Row: Codable, Sendable {
            public var x: [Double]
            public var y: Double

            public init(x: [Double], y: Double) {
                self.x = x
                self.y = y
            }
        }

        public var timecode: Row
        public var frame: Row

        public init(timecode: Row, frame: Row) {
            self.timecode = timecode
            self.frame = frame
        }

        var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
    }

    /// A frame a player showed: its burnt-in number and how long after its capture it was shown (ms).
    public struct ShownFrame: Codable, Sendable {
        public var frame: Int
        public var latency: Int
    }

    /// What the page did, sampled four times a second.
    public struct BrowserReport: Codable, Sendable {
        public struct Sample: Codable, Sendable {
            /// "webrtc" or "hls": which player the watch page runs (nil on a page with neither yet).
            public var mode: String?
            public var time: Double
            public var paused: Bool
            public var state: String?
            public var error: String?
            public var status: String?
            public var stats: [String: Double]?
        }

        public var samples: [Sample]
        public var shown: [ShownFrame]
        public var errors: [String]
    }

    /// ffmpeg's decoded frames as they came out.
    public struct FFmpegReport: Codable, Sendable {
        public var frames: [ShownFrame]
        public var stderr: String
    }

    /// The folder of the peer scripts, for scripts of other tests that import them (`sys.path`).
    public static var directory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers").path
    }

    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/\(name)").path
    }

    /// Runs a peer script with `python3` and decodes the JSON object it prints last.
    static func run<Report: Decodable>(_ name: String, _ arguments: [String], timeout: Double,
                                       as type: Report.Type) throws -> Report {
        let result = try Subprocess.run("python3", [script(name)] + arguments, timeout: timeout)
        guard let line = result.stdout.split(separator: "\n").last,
              let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8)) else {
            throw Subprocess.Failure(description: "\(name) failed: \(result.stdout.suffix(2000)) "
                                         + "\(result.stderr.suffix(2000))")
        }
        return report
    }

    /// Opens `url` in Chromium for `seconds` and reports what it played.
    public static func playInBrowser(url: String, seconds: Double, geometry: Geometry?,
                                     screenshot: String? = nil) throws -> BrowserReport {
        var arguments = [url, "\(seconds)", geometry?.json ?? "null"]
        if let screenshot { arguments.append(screenshot) }
        return try run("hls_browser.py", arguments, timeout: seconds + 60, as: BrowserReport.self)
    }

    /// Plays `url` with ffmpeg for `seconds`, reading each decoded frame's time code as it comes out.
    public static func playWithFFmpeg(url: String, seconds: Double, geometry: Geometry) throws -> FFmpegReport {
        try run("hls_ffmpeg_latency.py", [url, "\(seconds)", geometry.json], timeout: seconds + 30,
                as: FFmpegReport.self)
    }

    /// The median and 90th percentile of some values.
    public static func percentiles(_ values: [Int]) -> (p50: Int, p90: Int)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 9 / 10)])
    }
}

extension HLSPeers {
    /// What LL-HLS readers (`Peers/hls_readers.py`) got.
    public struct ReadersReport: Codable, Sendable {
        public var requests: Int
        public var parts: Int
        public var bytes: Int
        public var errors: Int
        public var misses: Int
        /// Blocking reloads answered with a playlist that did not yet list the part they named (counted in `errors`
        /// too).
        public var early: Int
        public var failedReaders: Int
        public var failures: [String]
        /// For each part received: the decode time of its last video frame (ms), the wall-clock time the reader had
        /// it (ms since the epoch), the wall-clock time the kernel received its last byte on the reader's socket and,
        /// from a blocking reader, when the blocking playlist reload asked at the same time was answered.
        public var records: [[Double]]

        /// What went wrong, for a test's message: the errors (and how many reloads were answered early), the
        /// failed readers and their first failures.
        public var problems: String {
            "\(errors) errors (\(early) reloads answered early), \(failedReaders) readers failed: \(failures)"
        }

        enum CodingKeys: String, CodingKey {
            case requests, parts, bytes, errors, misses, early, failures, records
            case failedReaders = "failed_readers"
        }
    }

    /// Runs `readers` LL-HLS readers (blocking reloads and hinted parts) of the playlist at `url` for `seconds`, or
    /// until it ends; with `save`, each reader's playlists go to `save/reader-N/`.
    public static func blockingReaders(url: String, readers: Int, seconds: Double,
                                       save: String? = nil) throws -> ReadersReport {
        var arguments = ["blocking", url, "\(readers)", "\(seconds)"]
        if let save { arguments.append(save) }
        return try run("hls_readers.py", arguments, timeout: seconds + 60, as: ReadersReport.self)
    }
}
