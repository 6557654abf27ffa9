import ByteIO
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
    final class Server {
        let process: BackgroundProcess
        let work: TemporaryDirectory
        let rtmpPort: Int
        let httpPort: Int
        /// What it printed, line by line (the reading thread holds this, not the server: the server's end stops the
        /// process, which ends the thread).
        private let collected = Locked<[String]>([])

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
            let collected = self.collected
            Thread.detachNewThread {
                while let line = try? process.readLine(timeout: 600) {
                    collected.withLock { $0.append(line) }
                }
            }
            try FreePort.waitUntilListening(rtmpPort)
            try FreePort.waitUntilListening(httpPort)
        }

        var lines: [String] { collected.withLock { $0 } }

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

        /// Stops the server (each test does so itself: a suite's values may outlive the test).
        func stop() { process.stop() }

        deinit { process.stop() }
    }

    /// The body curl gets from `url`.
    static func curl(_ url: String) throws -> String {
        let result = try Subprocess.run("curl", ["-sS", "--max-time", "10", url], timeout: 15)
        guard result.status == 0 else { throw Subprocess.Failure(description: "curl \(url): \(result.stderr)") }
        return result.stdout
    }

    /// The status and fields (lowercased names) of a GET of `url`, as curl receives them.
    static func head(_ url: String) throws -> (status: Int, fields: [String: String]) {
        let result = try Subprocess.run("curl", ["-sS", "--max-time", "10", "-D", "-", "-o", "/dev/null", url],
                                        timeout: 15)
        let lines = result.stdout.split(separator: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, fields)
    }

    /// Every file under `directory`, read as text.
    static func texts(under directory: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return files.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
    }

    @Test func aPlainPublishIsServedAsLLHLSAndPlainHLSAndEnds() async throws {
        let server = try Server()
        defer { server.stop() }
        let key = "hls-serve-secret-key-31"
        let broadcaster = try BroadcasterProcess(url: "rtmp://127.0.0.1:\(server.rtmpPort)/live", key: key,
                                                 arguments: ["--quality", "480", "--duration", "30", "--pip", "off"])
        defer { broadcaster.stop() }
        let playlist = try server.hlsAddress()
        // Issue 34 D: the address is 128 bits of a keyed hash, not the log's short unkeyed tag.
        let prefix = "http://127.0.0.1:\(server.httpPort)/hls/live/"
        let tag = String(playlist.dropFirst(prefix.count).prefix { $0 != "/" })
        #expect(playlist.hasPrefix(prefix) && playlist == prefix + tag + "/index.m3u8", "\(playlist)")
        #expect(tag.count == 32 && tag.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(tag)")
        let logTag = String(StreamKeyTag.tag(key).dropFirst())
        #expect(!tag.contains(logTag), "the address tag is the log's unkeyed tag")
        #expect(try await offPool { try Self.head(prefix + logTag + "/index.m3u8") }.status == 404)
        let saved = try TemporaryDirectory("hls-served")
        let geometry = Self.geometry

        // Two LL-HLS readers keep every playlist they get until it ends; ffmpeg plays the same playlist, and the
        // plain one (?mode=plain, no LL-HLS tags), as a player of ordinary HLS.
        async let readers = offPool {
            try HLSPeers.blockingReaders(url: playlist, readers: 2, seconds: 50, save: saved.path)
        }
        async let ffmpeg = offPool {
            try HLSPeers.playWithFFmpeg(url: playlist, seconds: 22, geometry: geometry)
        }
        async let plain = offPool {
            try HLSPeers.playWithFFmpeg(url: playlist + "?mode=plain", seconds: 22, geometry: geometry)
        }
        // While it is live, curl sees the answers and fields of docs/hls.md.
        let live = try await offPool { try Self.head(playlist) }
        #expect(live.status == 200 && live.fields["cache-control"] == "no-cache"
                && live.fields["content-type"] == "application/vnd.apple.mpegurl", "\(live)")
        let text = try Self.curl(playlist)
        let part = try #require(text.split(separator: "\"").first { $0.hasPrefix("part-") })
        let media = try await offPool { try Self.head(playlist.replacingOccurrences(of: "index.m3u8", with: part)) }
        #expect(media.status == 200 && media.fields["cache-control"] == "public, max-age=31536000, immutable")
        let msn = Int(try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") })
                        .dropFirst(22)) ?? 0
        let blocking = try await offPool { try Self.head(playlist + "?_HLS_msn=\(msn)&_HLS_part=0") }
        #expect(blocking.status == 200 && blocking.fields["cache-control"]?.hasPrefix("public, max-age=") == true,
                "\(blocking)")
        for query in ["_HLS_part=1", "_HLS_msn=\(msn + 60)", "_HLS_msn=x"] {
            let refused = try await offPool { try Self.head(playlist + "?" + query) }
            #expect(refused.status == 400, "\(query): \(refused)")
        }
        #expect(try await offPool { try Self.head(playlist.replacingOccurrences(of: "index.m3u8", with: "x.m4s")) }
                    .status == 404)
        // The player page beside the playlist: the watch page's player on it (PlainPlayerPageTests plays it in
        // Chromium).
        let page = try Self.curl(playlist.replacingOccurrences(of: "index.m3u8", with: "index.html"))
        #expect(page.contains("<script src=\"/assets/hls-player.js\"></script>")
                    && page.contains("<script src=\"/assets/hls-page.js\"></script>"), "\(page.prefix(200))")
        // Issue 34 item 11: the multivariant playlist beside it says what ffprobe finds in the stream, and ffprobe
        // opens the stream through it.
        let multivariantURL = playlist.replacingOccurrences(of: "index.m3u8", with: "multivariant.m3u8")
        let multivariant = try await offPool { try Self.curl(multivariantURL) }
        let info = try #require(multivariant.split(separator: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF:") },
                                "\(multivariant)")
        #expect(multivariant.hasPrefix("#EXTM3U\n") && multivariant.hasSuffix("\nindex.m3u8\n"), "\(multivariant)")
        var attributes: [String: String] = [:]
        for pair in info.dropFirst("#EXT-X-STREAM-INF:".count).split(separator: ",", omittingEmptySubsequences: false)
        where pair.contains("=") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            attributes[String(parts[0])] = String(parts[1])
        }
        // CODECS holds a comma: the split above cut it; read it whole.
        let codecs = info.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
        let probe = try await offPool {
            try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                           "stream=width,height,level", "-of", "default=nw=1", playlist], timeout: 30)
        }
        let probed = Dictionary(probe.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        #expect(attributes["RESOLUTION"] == "\(probed["width"] ?? "?")x\(probed["height"] ?? "?")", "\(info) \(probed)")
        let level = Int(probed["level"] ?? "") ?? -1
        #expect(codecs.hasPrefix("avc1.")
                    && codecs.split(separator: ",").first?.suffix(2) == Substring(Hex.encode([UInt8(clamping: level)]))
                    && codecs.hasSuffix(",mp4a.40.2"), "\(codecs) level \(level)")
        let frameRate = Double(attributes["FRAME-RATE"] ?? "") ?? 0
        #expect((29...31).contains(frameRate), "\(info)")
        let peak = Int(attributes["BANDWIDTH"] ?? "") ?? 0
        let average = Int(attributes["AVERAGE-BANDWIDTH"] ?? "") ?? 0
        #expect(peak >= average && average > 100_000, "\(info)")
        let through = try await offPool {
            try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0",
                                           multivariantURL], timeout: 30)
        }
        // (ffprobe lists each stream under the variant's program too.)
        #expect(Set(through.stdout.split(separator: "\n")) == ["audio", "video"],
                "\(through.stdout) \(through.stderr)")
        let (read, decoded, decodedPlain) = try await (readers, ffmpeg, plain)
        let process = broadcaster.process
        let exit = try await offPool { process.waitForExit(timeout: 30) }
        #expect(exit == 0, "\(broadcaster.errors)")

        // Every playlist served, as each reader saw them one after another, passes the checker; the last has
        // EXT-X-ENDLIST (the broadcast ended).
        #expect(read.failedReaders == 0 && read.errors == 0, "\(read.problems)")
        for reader in 0..<2 {
            let report = try LLHLSChecker.check(directory: saved.file("reader-\(reader)"))
            #expect(report.errors.isEmpty, "\(report)")
            #expect(report.playlists > 40, "\(report)")
            #expect(report.ended, "the playlist must end with EXT-X-ENDLIST once the broadcast stops")
        }
        let after = try Self.curl(playlist)
        #expect(after.hasSuffix("#EXT-X-ENDLIST\n"), "\(after)")

        // ffmpeg decoded the publisher's frames in order: their burnt-in numbers only go up, and only the few the
        // broadcaster itself drops when the machine is busy are missing (the show test below compares every
        // picture with the publisher's).
        for report in [decoded, decodedPlain] {
            let frames = report.frames.map(\.frame)
            #expect(frames.count > 12 * 25, "\(report.stderr)")
            let steps = zip(frames, frames.dropFirst()).map { ($1 - $0) & 0xFFFF }
            let skipped = steps.reduce(0) { $0 + max($1 - 1, 0) }
            let odd = zip(frames, frames.dropFirst()).filter { ($1 - $0) & 0xFFFF != 1 }
            #expect(!steps.contains(0) && steps.allSatisfy { $0 < 30 } && skipped * 20 < frames.count,
                    "frames repeated, out of order or missing: \(odd)")
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
    /// times the parts two held readers receive (the hinted part) and the blocking playlist reloads naming them
    /// against the send time of the part's last frame: both are held until the part exists.
    @Test func aHeldReaderGetsEachPartWithin50MillisecondsOfTheFrameCompletingIt() async throws {
        let server = try Server()
        defer { server.stop() }
        let work = try TemporaryDirectory("hls-timing")
        let flv = try MediaFixture.makeFLV(in: work, seconds: 12, size: "640x360", fps: 30, gop: 60)
        let tags = try FLVTags.of(flv)
        let key = "hls-timing-key"
        let client = try RTMPClient()
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(server.rtmpPort)/live"))
        try await client.publish(streamKey: key)
        let playlist = try server.hlsAddress()

        let sent = Locked<[Int: Double]>([:])
        async let readers = offPool {
            try HLSPeers.blockingReaders(url: playlist, readers: 2, seconds: 16)
        }
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
        // A part is complete when the frame after its last one arrives (parts are cut by the media's timestamps):
        // delays count from the sending of that frame.
        let sentTimes = sent.withLock { $0 }
        let order = sentTimes.keys.sorted()
        var times: [Int: Double] = [:]
        for (frame, next) in zip(order, order.dropFirst()) { times[frame] = sentTimes[next] }
        let delays = report.records.compactMap { record -> Int? in
            times[Int(record[0].rounded()) + origin].map { Int(record[1] - $0) }
        }
        let reloadDelays = report.records.compactMap { record -> Int? in
            record.count > 3 ? times[Int(record[0].rounded()) + origin].map { Int(record[3] - $0) } : nil
        }
        #expect(report.failedReaders == 0 && report.errors == 0, "\(report.problems)")
        let unmatched = "\(report.records.prefix(5)) vs \(times.keys.sorted().prefix(10))"
        #expect(delays.count > 50,
                "parts matched to their frames: \(delays.count) of \(report.records.count): \(unmatched)")
        let (p50, p90) = try #require(HLSPeers.percentiles(delays))
        print("LL-HLS part at a held reader after the frame completing it was sent: p50 \(p50) ms, p90 \(p90) ms, "
              + "max \(delays.max() ?? 0) ms over \(delays.count) parts")
        #expect(p90 <= 50, "p50 \(p50) ms, p90 \(p90) ms")
        // The blocking playlist reload naming that part, asked at the same time, is answered as quickly.
        #expect(reloadDelays.count == delays.count)
        let reload = try #require(HLSPeers.percentiles(reloadDelays))
        print("LL-HLS blocking reload answered after the frame completing the part was sent: p50 \(reload.p50) ms, "
              + "p90 \(reload.p90) ms")
        #expect(reload.p90 <= 50, "p50 \(reload.p50) ms, p90 \(reload.p90) ms")
    }

    /// Issue 34 D: a client guessing plain addresses is answered 429 (with Retry-After) after 30 misses, for
    /// everything it asks, the live address too; once it waits it is answered again. Another client is not slowed.
    @Test func aClientGuessingAddressesIsSlowed() async throws {
        let server = try Server()
        defer { server.stop() }
        let work = try TemporaryDirectory("hls-guess")
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 20)
        let url = "rtmp://127.0.0.1:\(server.rtmpPort)/live/guess-me"
        let publisher = try BackgroundProcess("ffmpeg", ["-nostdin", "-v", "error", "-re", "-i", fixture, "-c", "copy",
                                                         "-f", "flv", url], errorLog: work.file("ffmpeg.err"))
        defer { publisher.stop() }
        let playlist = try server.hlsAddress()
        let base = "http://127.0.0.1:\(server.httpPort)/hls/live/"
        // 40 guesses from 127.0.0.1 in one curl (one connection): the first 30 are 404, then 429 (two misses a
        // second come back: the last few are 429 however slow the machine is).
        let guesses = (0..<40).map { String(format: "%032x", $0 * 7919) }
        let statuses = try await offPool {
            try Subprocess.run("curl", ["-sS", "--max-time", "20", "-w", "%{http_code}\n"]
                                   + guesses.flatMap { ["-o", "/dev/null", base + $0 + "/index.m3u8"] }, timeout: 30)
        }.stdout.split(separator: "\n").map(String.init)
        #expect(statuses.count == 40 && statuses.prefix(30).allSatisfy { $0 == "404" }
                    && statuses.suffix(6).allSatisfy { $0 == "429" },
                "\(statuses)")
        let limited = try await offPool { try Self.head(playlist) }
        #expect(limited.status == 429, "\(limited)")
        let wait = try #require(limited.fields["retry-after"].flatMap { Int($0) }, "\(limited.fields)")
        #expect((1...2).contains(wait), "Retry-After: \(wait)")
        // Another address of this machine (127.0.0.2) is its own client.
        let other = try await offPool {
            try Subprocess.run("curl", ["-sS", "--max-time", "10", "--interface", "127.0.0.2", "-o", "/dev/null",
                                        "-w", "%{http_code}", playlist], timeout: 15)
        }
        #expect(other.stdout == "200", "\(other.stdout) \(other.stderr)")
        // Once the time it was told has passed, the live address answers again (asked every 100 ms meanwhile;
        // a 429 is no miss).
        let limitedAt = ContinuousClock.now
        var status = 429
        while status == 429, ContinuousClock.now - limitedAt < .seconds(wait + 3) {
            try await Task.sleep(for: .milliseconds(100))
            status = try await offPool { try Self.head(playlist) }.status
        }
        #expect(status == 200, "still \(status) \(wait + 3) s after Retry-After: \(wait)")
    }

    static let showsFile = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "visitors": "viewer"}]}
        """

    /// The host of `show:hls`: goes live with a camera and a screen (ffmpeg publishes a file to each grant, `-c
    /// copy`), waits for the show's default main picture (the screen), chooses the camera, then ends the show.
    /// Prints "live" and its media token, then "switched", then a JSON summary.
    static let host = #"""
        import asyncio, json, subprocess, sys
        from liveclient import Client, mint

        BASE, SECRET, WORK, CAMERA, SCREEN = sys.argv[1], open(sys.argv[2]).read().strip(), *sys.argv[3:6]


        def publish(grant, path, log):
            return subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-i", path, "-c", "copy",
                                     "-f", "flv", grant["url"] + "/" + grant["key"]],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log, "w"))


        def tiles(client, main):
            return any(e["event"] == "tiles" and sorted(e["tiles"]) == ["camera", "screen"] and e["main"] == main
                       for e in client.events)


        async def main():
            ann = await Client(BASE, "show:hls", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            reply = await ann.request("goLive", tiles=["camera", "screen"])
            assert reply["ok"], reply
            grants = {grant["tile"]: grant for grant in reply["grants"]}
            camera = publish(grants["camera"], CAMERA, f"{WORK}/ffmpeg-camera.log")
            screen = publish(grants["screen"], SCREEN, f"{WORK}/ffmpeg-screen.log")
            await ann.wait(lambda c: tiles(c, "screen"), timeout=20, what="both tiles, the screen as main")
            print("live " + ann.welcome["access"]["token"], flush=True)
            await asyncio.sleep(8)
            assert (await ann.request("setMain", tile="camera"))["ok"]
            await ann.wait(lambda c: tiles(c, "camera"), timeout=10, what="the camera as main")
            print("switched", flush=True)
            await asyncio.sleep(7)
            assert (await ann.request("end"))["ok"]
            codes = [camera.wait(timeout=10), screen.wait(timeout=10)]
            print(json.dumps({"ended": True, "publishers": codes}), flush=True)


        asyncio.run(main())
        """#

    /// ffmpeg plays a playlist live until it ends, hashing each decoded picture.
    static func playToTheEnd(_ url: String) throws -> [String] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", url, "-map", "0:v", "-fps_mode", "passthrough",
                                                   "-f", "framemd5", "-"], timeout: 90)
        guard result.status == 0 else { throw Subprocess.Failure(description: "ffmpeg \(url): \(result.stderr)") }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// A live show's pictures: ffmpeg plays the main playlist and the camera's while the host publishes two tiles
    /// and switches the main picture; both decode exactly the publishers' pictures, the main one the screen's
    /// then the camera's after an EXT-X-DISCONTINUITY; every main playlist a blocking reader got passes the
    /// checker; the end of the show ends both playlists.
    @Test func aShowsMainPictureFollowsTheHostAndEachTileHasItsPlaylist() async throws {
        let work = try TemporaryDirectory("hls-show")
        let secretFile = work.file("token-secret")
        try "7c1e5a3b9d0f2e4a6b8c0d1e3f5a7b9c1d3e5f7a9b1c3d5e\n".write(toFile: secretFile, atomically: true,
                                                                      encoding: .utf8)
        #expect(chmod(secretFile, 0o600) == 0)
        try Self.showsFile.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        for (name, text) in ["liveclient.py": LiveShowPeers.client, "host.py": Self.host] {
            try text.write(toFile: work.file(name), atomically: true, encoding: .utf8)
        }
        // 320x240 at 30 fps, a keyframe a second: two pictures that never share a frame.
        let camera = try MediaFixture.makeFLV(in: work, seconds: 40, size: "320x240", gop: 30, source: "testsrc2")
        let screen = try MediaFixture.makeFLV(in: work, seconds: 40, size: "320x240", gop: 30, source: "testsrc")
        let server = try Server(["--shows", work.file("shows.json"), "--token-secret-file", secretFile,
                                 "--data-dir", work.file("data")], work: work)
        defer { server.stop() }
        let host = try BackgroundProcess("python3", [work.file("host.py"), "ws://127.0.0.1:\(server.httpPort)",
                                                     secretFile, work.path, camera, screen],
                                         errorLog: work.file("host.err"))
        defer { host.stop() }
        let live = try await offPool { try host.readLine(timeout: 40) }
        #expect(live.hasPrefix("live m1."), "\(work.file("host.err"))")
        let token = String(live.dropFirst(5))
        let base = "http://127.0.0.1:\(server.httpPort)/hls/show:hls/\(token)/"
        // The addresses stream serve printed: the two tiles and the main picture, with a place for the token
        // (never one).
        let printed = try Set((0..<3).map { try server.hlsAddress($0) })
        // The main picture's first (issue 34 item 13b: a newcomer opened the first, a tile's).
        let first = try server.hlsAddress(0)
        #expect(first.contains("/TOKEN/main.m3u8"), "\(first)")
        #expect(printed == Set(["main", "camera", "screen"].map {
            "http://127.0.0.1:\(server.httpPort)/hls/show:hls/TOKEN/\($0).m3u8 "
                + "(TOKEN: the media token of a session that joined)"
        }))
        // Without the token (or with one altered) nothing of the show is served, not even whether it exists.
        for path in ["show:hls/main.m3u8", "show:hls/camera.m3u8", "show:nothing/main.m3u8",
                     "show:hls/m1.\(token.dropFirst(4))/main.m3u8", "show:other/\(token)/main.m3u8"] {
            let status = try Self.head("http://127.0.0.1:\(server.httpPort)/hls/" + path).status
            #expect(status == 401, "\(path): \(status)")
        }

        let saved = try TemporaryDirectory("hls-show-playlists")
        async let readers = offPool {
            try HLSPeers.blockingReaders(url: base + "main.m3u8", readers: 1, seconds: 40, save: saved.path)
        }
        async let mainPictures = offPool { try Self.playToTheEnd(base + "main.m3u8") }
        async let cameraPictures = offPool { try Self.playToTheEnd(base + "camera.m3u8") }
        let switched = try await offPool { try host.readLine(timeout: 30) }
        #expect(switched == "switched")
        // The show's multivariant playlist names its main picture (and needs the token like the rest).
        let multivariant = try await offPool { try Self.curl(base + "multivariant.m3u8") }
        #expect(multivariant.contains("#EXT-X-STREAM-INF:BANDWIDTH=") && multivariant.hasSuffix("\nmain.m3u8\n"),
                "\(multivariant)")
        let withoutToken = "http://127.0.0.1:\(server.httpPort)/hls/show:hls/multivariant.m3u8"
        #expect(try await offPool { try Self.head(withoutToken) }.status == 401)
        let summary = try await offPool { try host.readLine(timeout: 40) }
        #expect(summary.contains(#""ended": true"#), "\(summary)")
        let (read, main, cameraSeen) = try await (readers, mainPictures, cameraPictures)

        // The pictures ffmpeg decoded are the publishers' own, in order: the camera's playlist only the camera's;
        // the main one the screen's, then (after the host's choice) the camera's.
        let cameraHashes = try ProbeReport.frameHashes(camera, stream: "v")
        let screenHashes = try ProbeReport.frameHashes(screen, stream: "v")
        func runs(_ seen: [String]) -> [(source: String, first: Int, count: Int)] {
            var runs: [(source: String, first: Int, count: Int)] = []
            for hash in seen {
                let place = cameraHashes.firstIndex(of: hash).map { ("camera", $0) }
                    ?? screenHashes.firstIndex(of: hash).map { ("screen", $0) } ?? ("unknown", -1)
                if let last = runs.last, last.source == place.0, last.first + last.count == place.1 {
                    runs[runs.count - 1].count += 1
                } else {
                    runs.append((place.0, place.1, 1))
                }
            }
            return runs
        }
        let cameraRuns = runs(cameraSeen)
        #expect(cameraRuns.count == 1 && cameraRuns.first?.source == "camera" && cameraSeen.count > 8 * 30,
                "\(cameraRuns)")
        // (Should the camera's publish start first, the main picture shows it until the screen's starts.)
        let mainRuns = runs(main)
        #expect(mainRuns.map(\.source).drop { $0 == "camera" } == ["screen", "camera"], "\(mainRuns)")
        #expect(mainRuns.suffix(2).allSatisfy { $0.count > 3 * 30 }, "\(mainRuns)")

        // Every main playlist passes the checker; the switch is a discontinuity; the show's end ends it.
        #expect(read.failedReaders == 0 && read.errors == 0, "\(read.problems)")
        let report = try LLHLSChecker.check(directory: saved.file("reader-0"))
        #expect(report.errors.isEmpty, "\(report)")
        #expect(report.ended)
        let playlists = Self.texts(under: saved.path)
        #expect(playlists.contains { $0.contains("#EXT-X-DISCONTINUITY\n") })
        for name in ["main", "camera", "screen"] {
            #expect(try Self.curl(base + name + ".m3u8").hasSuffix("#EXT-X-ENDLIST\n"), "\(name)")
        }
        #expect(!server.log.contains("grant_"), "a publish grant reached the log")
        #expect(!server.log.contains(token), "a media token reached the log")
    }
}
