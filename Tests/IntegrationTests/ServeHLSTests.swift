import FLV
import Foundation
import IngestServer
import Locking
import Media
import Publisher
import StreamCore
import TestSupport
import Testing

/// LL-HLS out of a real `stream serve`, read by players we did not write: ffmpeg (whose HLS demuxer knows nothing
/// of LL-HLS) plays the playlists and decodes the publisher's frames; Python LL-HLS readers (blocking reloads and
/// hinted parts) keep every playlist they receive for the checker (Python `m3u8` plus the RFC 8216bis rules); the
/// time code burnt into the test pattern gives the latency each player sees.
@Suite(.serialized) struct ServeHLSTests {
    /// `stream serve --source test`'s screen: its time code and frame counter blocks are placed for it.
    static let screen = (width: 1920, height: 1080)

    static var geometry: HLSPeers.Geometry {
        let pattern = ScreenPattern(width: screen.width, height: screen.height)
        func row(_ rect: (Int) -> PiPRect) -> HLSPeers.Geometry.Row {
            let x = (0..<ScreenPattern.timeCodeBits).map { bit -> Double in
                let block = rect(bit)
                return (Double(block.x) + Double(block.width) / 2) / Double(screen.width)
            }
            let block = rect(0)
            return HLSPeers.Geometry.Row(x: x, y: (Double(block.y) + Double(block.height) / 2) / Double(screen.height))
        }
        return HLSPeers.Geometry(timecode: row(pattern.timeCodeRect(bit:)), frame: row(pattern.blockRect(bit:)))
    }

    /// `stream serve` with RTMP and HTTP on free ports, no recording; what it prints is kept.
    final class Server: @unchecked Sendable {
        // Safe: `collected` is only touched under `lock`.
        let process: BackgroundProcess
        let work: TemporaryDirectory
        let rtmpPort: Int
        let httpPort: Int
        private let lock = NSLock()
        private var collected: [String] = []

        init(_ extra: [String] = [], work: TemporaryDirectory? = nil) throws {
            let work = try work ?? TemporaryDirectory("hls-serve")
            self.work = work
            rtmpPort = try FreePort.next()
            httpPort = try FreePort.next()
            process = try BackgroundProcess(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            ] + extra, environment: ["XDG_CONFIG_HOME": work.file("config"), "XDG_DATA_HOME": work.file("data")],
               errorLog: work.file("serve.err"))
            let process = self.process
            Thread.detachNewThread { [self] in
                while let line = try? process.readLine(timeout: 600) {
                    lock.withLock { collected.append(line) }
                }
            }
            try FreePort.waitUntilListening(rtmpPort)
            try FreePort.waitUntilListening(httpPort)
        }

        var lines: [String] { lock.withLock { collected } }

        /// Everything it wrote: standard output and error.
        var log: String {
            lines.joined(separator: "\n") + "\n" + ((try? String(contentsOfFile: work.file("serve.err"),
                                                                 encoding: .utf8)) ?? "")
        }

        /// The n-th LL-HLS address `stream serve` printed, waiting up to `timeout` for it.
        func hlsAddress(_ index: Int = 0, timeout: Duration = .seconds(20)) throws -> String {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let addresses = lines.filter { $0.hasPrefix("LL-HLS: ") }.map { String($0.dropFirst(8)) }
                if addresses.count > index { return addresses[index] }
                Thread.sleep(forTimeInterval: 0.05)
            }
            throw Subprocess.Failure(description: "stream serve printed no LL-HLS address: \(lines)")
        }

        deinit { process.stop() }
    }

    /// The body curl gets from `url`.
    static func curl(_ url: String) throws -> String {
        let result = try Subprocess.run("curl", ["-sS", "--max-time", "10", url], timeout: 15)
        guard result.status == 0 else { throw Subprocess.Failure(description: "curl \(url): \(result.stderr)") }
        return result.stdout
    }

    /// Every file under `directory`, read as text.
    static func texts(under directory: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
    }

    @Test func aPlainPublishIsServedAsLLHLSAndPlainHLSAndEnds() async throws {
        let server = try Server()
        let key = "hls-serve-secret-key-31"
        let broadcaster = try BroadcasterProcess(url: "rtmp://127.0.0.1:\(server.rtmpPort)/live", key: key,
                                                 arguments: ["--quality", "480", "--duration", "30", "--pip", "off"])
        defer { broadcaster.stop() }
        let playlist = try server.hlsAddress()
        let tag = String(StreamKeyTag.tag(key).dropFirst())
        #expect(playlist == "http://127.0.0.1:\(server.httpPort)/hls/live/\(tag)/index.m3u8")
        let saved = try TemporaryDirectory("hls-served")
        let geometry = Self.geometry

        // Two LL-HLS readers keep every playlist they get until it ends; ffmpeg plays the same playlist, and the
        // plain one (?mode=plain, no LL-HLS tags), as a player of ordinary HLS.
        async let readers = Task.detached {
            try HLSPeers.blockingReaders(url: playlist, readers: 2, seconds: 50, save: saved.path)
        }.value
        async let ffmpeg = Task.detached {
            try HLSPeers.playWithFFmpeg(url: playlist, seconds: 22, geometry: geometry)
        }.value
        async let plain = Task.detached {
            try HLSPeers.playWithFFmpeg(url: playlist + "?mode=plain", seconds: 22, geometry: geometry)
        }.value
        let (read, decoded, decodedPlain) = try await (readers, ffmpeg, plain)
        #expect(broadcaster.waitForExit(timeout: 30) == 0, "\(broadcaster.errors)")

        // Every playlist served, as each reader saw them one after another, passes the checker; the last has
        // EXT-X-ENDLIST (the broadcast ended).
        #expect(read.failedReaders == 0 && read.errors == 0, "\(read.failures)")
        for reader in 0..<2 {
            let report = try LLHLSChecker.check(directory: saved.file("reader-\(reader)"))
            #expect(report.errors.isEmpty, "\(report)")
            #expect(report.playlists > 40, "\(report)")
            #expect(report.ended, "the playlist must end with EXT-X-ENDLIST once the broadcast stops")
        }
        let after = try Self.curl(playlist)
        #expect(after.hasSuffix("#EXT-X-ENDLIST\n"), "\(after)")

        // ffmpeg decoded the publisher's frames in order: their burnt-in numbers follow each other.
        for report in [decoded, decodedPlain] {
            let frames = report.frames.map(\.frame)
            #expect(frames.count > 12 * 25, "\(report.stderr)")
            let gaps = zip(frames, frames.dropFirst()).filter { ($1 - $0) & 0xFFFF != 1 }.count
            let where_ = "\(zip(frames, frames.dropFirst()).filter { ($1 - $0) & 0xFFFF != 1 })"
            #expect(gaps == 0, "ffmpeg skipped or repeated frames: \(gaps) gaps: \(where_)")
        }
        let ll = try #require(HLSPeers.percentiles(decoded.frames.dropFirst(60).map(\.latency)))
        let ordinary = try #require(HLSPeers.percentiles(decodedPlain.frames.dropFirst(60).map(\.latency)))
        print("latency from the publisher's clock in the frame to ffmpeg's decoded frame: LL-HLS playlist p50 "
              + "\(ll.p50) ms p90 \(ll.p90) ms; plain playlist p50 \(ordinary.p50) ms p90 \(ordinary.p90) ms")
        #expect(ll.p50 > 0 && ll.p50 < 20_000, "the time code must read back: \(ll)")

        // The key is in no address, playlist or log line.
        #expect(!server.log.contains(key))
        #expect(!Self.texts(under: saved.path).contains { $0.contains(key) })
    }

    /// Publishes a real x264/AAC FLV with our RTMP client at its own pace, noting when each frame was sent, and
    /// times the parts two held readers receive (blocking reload and hinted part) against the send time of their
    /// last frame.
    @Test func aHeldReaderGetsEachPartWithin50MillisecondsOfItsLastFrame() async throws {
        let server = try Server()
        let work = try TemporaryDirectory("hls-timing")
        let flv = try MediaFixture.makeFLV(in: work, seconds: 12, size: "640x360", fps: 30, gop: 60)
        let tags = try FLVFile.tags(of: flv)
        let key = "hls-timing-key"
        let client = try RTMPClient()
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(server.rtmpPort)/live"))
        try await client.publish(streamKey: key)
        let playlist = try server.hlsAddress()

        let sent = Locked<[Int: Double]>([:])
        async let readers = Task.detached {
            try HLSPeers.blockingReaders(url: playlist, readers: 2, seconds: 16)
        }.value
        let start = ContinuousClock.now
        for tag in tags {
            try await Task.sleep(until: start + .milliseconds(Int(tag.timestamp)), clock: .continuous)
            try await client.send(tag)
            if tag.type == .video && !tag.isSequenceHeader {
                let now = Date().timeIntervalSince1970 * 1000
                sent.withLock { $0[Int(tag.timestamp)] = now }
            }
        }
        await client.close()
        let report = try await readers

        // The packaged timeline starts at 0 on the first keyframe.
        let origin = Int(try #require(tags.first { $0.isVideoKeyFrame && !$0.isSequenceHeader }).timestamp)
        let times = sent.withLock { $0 }
        let delays = report.records.compactMap { record -> Int? in
            times[Int(record[0].rounded()) + origin].map { Int(record[1] - $0) }
        }
        #expect(report.failedReaders == 0 && report.errors == 0, "\(report.failures)")
        let unmatched = "\(report.records.prefix(5)) vs \(times.keys.sorted().prefix(10))"
        #expect(delays.count > 50, "parts matched to their frames: \(delays.count) of \(report.records.count): \(unmatched)")
        let (p50, p90) = try #require(HLSPeers.percentiles(delays))
        print("LL-HLS part at a held reader after its last frame was sent: p50 \(p50) ms, p90 \(p90) ms, "
              + "max \(delays.max() ?? 0) ms over \(delays.count) parts")
        #expect(p90 <= 50, "p50 \(p50) ms, p90 \(p90) ms")
    }
}
