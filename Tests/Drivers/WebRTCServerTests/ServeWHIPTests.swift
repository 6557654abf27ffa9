import Foundation
import TestSupport
import Testing

/// WHIP ingest as a user runs it: the real `stream serve` with a keys file, aiortc (a WebRTC stack we did not
/// write) POSTing its offer with a stream key and sending H.264 and Opus, curl for the refusals and the DELETE.
@Suite(.startsPeers, .serialized) struct ServeWHIPTests {
    static let key = "whip-secret-key-0001"

    /// `stream serve` and what it printed up to its HTTP line.
    struct Served {
        let process: BackgroundProcess
        let httpPort: Int
        let udpPort: Int
        var lines: [String]

        /// The first line printed so far (from line `start` on), or read within `timeout` seconds, that contains
        /// `text`.
        mutating func waitFor(_ text: String, from start: Int = 0, timeout: TimeInterval = 20) async throws -> String {
            if let line = lines.dropFirst(start).first(where: { $0.contains(text) }) { return line }
            let process = self.process
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else {
                    throw WaitTimeout(description: "stream serve printed no line with '\(text)' within \(timeout) s; "
                        + "it printed:\n" + lines.joined(separator: "\n"))
                }
                let line = try await offPool { try process.readLine(timeout: left) }
                lines.append(line)
                if line.contains(text) { return line }
            }
        }
    }

    /// Starts `stream serve` with the test key (and `otherKeys`); `recording` replaces `--no-record` (e.g.
    /// `--record-dir DIR`); `extra` adds options.
    static func serve(in directory: TemporaryDirectory, recording: [String] = ["--no-record"],
                      otherKeys: [String] = [], extra: [String] = []) async throws -> Served {
        let keys = directory.file("keys.txt")
        try "# WHIP keys\n\(([key] + otherKeys).joined(separator: "\n"))\n".write(toFile: keys, atomically: true,
                                                                                  encoding: .utf8)
        let process = try BackgroundProcess(try StreamExecutable.url().path, ["serve"] + recording + extra + [
            "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
            "--webrtc-listen", "127.0.0.1:0", "--keys-file", keys, "--duration", "60",
        ], environment: TemporaryConfigHome.environment(in: directory.path), errorLog: directory.file("serve.log"))
        var served = Served(process: process, httpPort: 0, udpPort: 0, lines: [])
        let whip = try await served.waitFor("WHIP at /whip/APP")
        let http = try await served.waitFor("HTTP on http://127.0.0.1:")
        let udp = Int(whip.split(separator: ":").last ?? "") ?? 0
        let port = Int(http.split(separator: ":")[2].prefix { $0.isNumber }) ?? 0
        #expect(udp > 0 && port > 0, "\(served.lines)")
        return Served(process: process, httpPort: port, udpPort: udp, lines: served.lines)
    }

    /// What ffprobe and ffmpeg (readers we did not write) find in an ended LL-HLS playlist: the video and audio
    /// streams, and the audio decoded to 48 kHz mono.
    struct Heard: Sendable, CustomStringConvertible {
        var videoCodec: String?
        var videoFrames: Int?
        var frameRate: Double?
        var audioCodec: String?
        var audioRate: Int?
        var audio: [Float]

        /// Seconds of video (frames over the frame rate) and of decoded audio.
        var videoSeconds: Double { Double(videoFrames ?? 0) / (frameRate ?? 30) }
        var audioSeconds: Double { Double(audio.count) / 48_000 }
        /// The audio's pitch, past its first half second (the encoder's start).
        var pitch: ToneAnalysis.Pitch { ToneAnalysis.pitch(Array(audio.dropFirst(24_000))) }

        var description: String {
            "video \(videoCodec ?? "none") \(videoFrames ?? 0) frames at \(frameRate ?? 0) fps ("
                + String(format: "%.2f s", videoSeconds) + "), audio \(audioCodec ?? "none") \(audioRate ?? 0) Hz ("
                + String(format: "%.2f s", audioSeconds) + ")"
        }

        static func probe(_ playlist: String, in directory: TemporaryDirectory) throws -> Heard {
            let report = try ProbeReport.probe(playlist)
            let raw = directory.file("audio.f32")
            let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", playlist, "-vn", "-ac", "1", "-ar",
                                                       "48000", "-f", "f32le", raw], timeout: 60)
            let data = decode.status == 0 ? (try? Data(contentsOf: URL(fileURLWithPath: raw))) ?? Data() : Data()
            return Heard(videoCodec: report.video?.codecName, videoFrames: report.video?.frameCount,
                         frameRate: report.video?.averageFrameRate, audioCodec: report.audio?.codecName,
                         audioRate: report.audio?.sampleRate,
                         audio: data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
        }
    }

    /// The playlist once its segments total `seconds`.
    static func waitForSegments(seconds: Double, in playlist: String) async throws -> String {
        var listed = ""
        try await eventually("the playlist lists \(seconds) s of segments", within: .seconds(40), every: .seconds(1),
                             seen: { listed }) {
            listed = try await curl([playlist])
            let total = listed.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
                .compactMap { Double($0.dropFirst("#EXTINF:".count).prefix { $0 != "," }) }.reduce(0, +)
            return total >= seconds
        }
        return listed
    }

    /// Ends a WHIP session with a DELETE on its Location, with the test key; expects 200.
    static func delete(_ location: String, port: Int) async throws {
        let deleted = try await curl(["-X", "DELETE", "-H", "Authorization: Bearer \(key)",
                                      "http://127.0.0.1:\(port)\(location)"])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
    }

    static func curl(_ arguments: [String]) async throws -> String {
        try await offPool { try Subprocess.run("curl", ["-sS", "-i"] + arguments, timeout: 10).stdout }
    }

    @Test(.timeLimit(.minutes(2))) func aiortcPublishesWithAKeyAndDeleteEndsIt() async throws {
        let directory = try TemporaryDirectory("serve-whip")
        var served = try await Self.serve(in: directory)
        defer { served.process.stop() }
        let endpoint = "http://127.0.0.1:\(served.httpPort)/whip/live"

        // A key not in the keys file, and none at all: 401, nothing opened.
        let wrong = try await Self.curl(["-X", "POST", "-H", "Authorization: Bearer not-the-key-9999",
                                         "-H", "Content-Type: application/sdp", "--data-binary", "v=0", endpoint])
        #expect(wrong.hasPrefix("HTTP/1.1 401"), "\(wrong)")
        #expect(!wrong.contains("not-the-key-9999"))
        let none = try await Self.curl(["-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "v=0",
                                        endpoint])
        #expect(none.hasPrefix("HTTP/1.1 401"), "\(none)")

        let aiortc = try AiortcPublisher(whipURL: endpoint, key: Self.key)
        defer { aiortc.stop() }
        let posted = try await aiortc.next()
        #expect(posted["status"] as? Int == 201, "\(posted)\n\(aiortc.log.suffix(2000))")
        let location = try #require(posted["location"] as? String, "\(posted)")
        #expect(location.hasPrefix("/whip/live/session/"))
        let state = try await aiortc.next()
        #expect(state["state"] as? String == "connected", "\(state)\n\(aiortc.log.suffix(2000))")
        _ = try await served.waitFor("WHIP session 1 on live: connected")
        _ = try await served.waitFor("WHIP session 1 on live: receiving H.264 and Opus")

        // Garbage on the UDP port from an address no check proved changes nothing.
        let stranger = try UDPTestSocket(connectingTo: served.udpPort)
        for datagram: [UInt8] in [[0xff, 1, 2], [0x80, 0x60] + Array(repeating: 9, count: 60),
                                  [0x16, 0xfe, 0xfd] + Array(repeating: 1, count: 40),
                                  [0x00, 0x01, 0x00, 0x08, 0x21, 0x12, 0xa4, 0x42] + Array(repeating: 0, count: 20)] {
            stranger.send(datagram)
        }
        let health = try await Self.curl(["http://127.0.0.1:\(served.httpPort)/v1/health"])
        #expect(health.hasPrefix("HTTP/1.1 200"))

        // The H.264 goes where an RTMP publish's goes: its LL-HLS playlist (printed as for RTMP) lists parts.
        let announced = try await served.waitFor("LL-HLS: http://")
        let playlist = String(try #require(announced.split(separator: " ").last))
        #expect(playlist.hasSuffix("/index.m3u8") && playlist.contains("/hls/live/"), "\(announced)")
        // A blocking reload (held until the third part exists), as an LL-HLS player asks; once a second at most,
        // which the origin's guard against address guessing never slows.
        var listed = ""
        try await eventually("the WHIP publish's playlist lists parts", within: .seconds(15), every: .seconds(1),
                             seen: { listed }) {
            listed = try await Self.curl(["-m", "10", playlist + "?_HLS_msn=0&_HLS_part=2"])
            return listed.contains("#EXT-X-PART:")
        }
        #expect(listed.contains("#EXT-X-MAP:"), "\(listed)")

        // DELETE (with the key) ends the session: its line counts what arrived; aiortc sees the close_notify.
        let deleted = try await Self.curl(["-X", "DELETE", "-H", "Authorization: Bearer \(Self.key)",
                                           "http://127.0.0.1:\(served.httpPort)\(location)"])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
        let ended = try await served.waitFor("WHIP session 1 on live: ended")
        #expect(ended.contains("closed by the client (DELETE)") && ended.contains(", 0 refused by SRTP"), "\(ended)")
        let counts = ended.split(separator: " ").compactMap { Int($0) }
        #expect(counts.count >= 3 && counts[1] > 0 && counts[2] > 0, "H.264 and Opus packets counted: \(ended)")
        let closed = try await aiortc.next()
        #expect(closed["state"] as? String != "connected", "\(closed)")
        let again = try await Self.curl(["-X", "DELETE", "-H", "Authorization: Bearer \(Self.key)",
                                         "http://127.0.0.1:\(served.httpPort)\(location)"])
        #expect(again.hasPrefix("HTTP/1.1 404"), "\(again)")
        try await eventually("the ended publish's playlist ends", within: .seconds(10), every: .seconds(1),
                             seen: { listed }) {
            listed = try await Self.curl([playlist])
            return listed.contains("#EXT-X-ENDLIST")
        }

        served.process.stop()
        let log = (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? ""
        let id = String(location.dropFirst("/whip/live/session/".count))
        let printed = served.lines.joined(separator: "\n") + log
        #expect(!printed.contains(Self.key) && !printed.contains(id), "no key or session id printed:\n\(printed)")
    }

    /// aiortc (a WebRTC stack we did not write) publishes a 440 Hz tone over WHIP: the LL-HLS that ffprobe reads has
    /// an AAC stream beside the H.264, ffmpeg decodes it to 440 Hz, and it lasts as long as the video.
    @Test(.timeLimit(.minutes(2))) func aiortcToneIsHeardInLLHLS() async throws {
        let directory = try TemporaryDirectory("serve-whip-tone")
        var served = try await Self.serve(in: directory)
        defer { served.process.stop() }
        let aiortc = try AiortcPublisher(whipURL: "http://127.0.0.1:\(served.httpPort)/whip/live", key: Self.key,
                                         tone: 440)
        defer { aiortc.stop() }
        let posted = try await aiortc.next()
        let location = try #require(posted["location"] as? String, "\(posted)\n\(aiortc.log.suffix(2000))")
        _ = try await served.waitFor("WHIP session 1 on live: receiving H.264 and Opus")
        let announced = try await served.waitFor("LL-HLS: http://")
        let playlist = String(try #require(announced.split(separator: " ").last))
        // Enough media for a pitch and a duration: segments totalling 4 s.
        var listed = try await Self.waitForSegments(seconds: 4, in: playlist)
        try await Self.delete(location, port: served.httpPort)
        let ended = try await served.waitFor("WHIP session 1 on live: ended")
        #expect(ended.contains("AAC frames from Opus") && !ended.contains(" 0 AAC frames"), "\(ended)")
        try await eventually("the ended publish's playlist ends", within: .seconds(10), every: .seconds(1),
                             seen: { listed }) {
            listed = try await Self.curl([playlist])
            return listed.contains("#EXT-X-ENDLIST")
        }
        let heard = try await offPool { try Heard.probe(playlist, in: directory) }
        #expect(heard.videoCodec == "h264" && heard.audioCodec == "aac" && heard.audioRate == 48000, "\(heard)")
        #expect(heard.audioSeconds >= 3.5, "\(heard)")
        #expect(abs(heard.pitch.frequency - 440) <= 22, "\(heard.pitch); \(heard)")
        #expect(ToneAnalysis.rms(heard.audio) > 0.1, "a tone, not silence: \(heard)")
        #expect(abs(heard.audioSeconds - heard.videoSeconds) <= 0.5, "\(heard)")
    }

    /// A WHIP publish is recorded as an RTMP publish is (`--record-dir`, FLV or MP4): one file named
    /// `APP-TAG-TIME`, finished when the session ends, in which ffprobe and ffmpeg (readers we did not write) find
    /// the H.264 and the tone, transcoded Opus → AAC, as long as the video.
    @Test(.timeLimit(.minutes(2)), arguments: ["flv", "mp4"]) func aWHIPPublishIsRecordedAsAnRTMPOneIs(
        format: String) async throws {
        let directory = try TemporaryDirectory("serve-whip-record")
        let recordings = directory.file("recordings")
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        var served = try await Self.serve(in: directory, recording: [
            "--record-dir", recordings, "--record-format", format,
        ])
        defer { served.process.stop() }
        let aiortc = try AiortcPublisher(whipURL: "http://127.0.0.1:\(served.httpPort)/whip/live", key: Self.key,
                                         tone: 440)
        defer { aiortc.stop() }
        let posted = try await aiortc.next()
        let location = try #require(posted["location"] as? String, "\(posted)\n\(aiortc.log.suffix(2000))")
        let started = try await served.waitFor("recording to ")
        let path = String(try #require(started.components(separatedBy: "recording to ").last))
        #expect(path.hasPrefix(recordings + "/live-") && path.hasSuffix("." + format), "\(started)")
        _ = try await served.waitFor("WHIP session 1 on live: receiving H.264 and Opus")
        let announced = try await served.waitFor("LL-HLS: http://")
        let playlist = String(try #require(announced.split(separator: " ").last))
        // 4 s of the publish went by.
        _ = try await Self.waitForSegments(seconds: 4, in: playlist)
        try await Self.delete(location, port: served.httpPort)
        let finished = try await served.waitFor("recording finished: \(path)")
        let heard = try await offPool { try Heard.probe(path, in: directory) }
        #expect(heard.videoCodec == "h264" && heard.audioCodec == "aac" && heard.audioRate == 48000,
                "\(heard); \(finished)")
        #expect(heard.videoSeconds >= 3.5 && heard.audioSeconds >= 3.5, "\(heard)")
        #expect(abs(heard.pitch.frequency - 440) <= 22, "\(heard.pitch); \(heard)")
        #expect(abs(heard.audioSeconds - heard.videoSeconds) <= 0.5, "\(heard)")
        let files = try FileManager.default.contentsOfDirectory(atPath: recordings)
        #expect(files.count == 1, "one file for one publish: \(files)")
        #expect(!path.contains(Self.key), "the key is not in the file's name")
    }

    /// 1,000 WHIP POSTs whose clients never send an ICE check (issue 30's bad input): each is answered on the one
    /// UDP port, one more is 503 with Retry-After, every session ends at its 15 s connect deadline, and the
    /// server's resident memory comes back near where it was before them.
    @Test(.timeLimit(.minutes(3))) func aThousandSessionsThatNeverConnectAreAllFreed() async throws {
        let directory = try TemporaryDirectory("serve-whip-thousand")
        let keys = (1...1001).map { "never-connects-\($0)" }
        var served = try await Self.serve(in: directory, otherKeys: keys, extra: ["--webrtc-max-sessions", "1000"])
        defer { served.process.stop() }
        let pid = served.process.pid
        let before = ProcessMemory.residentBytes(ofProcess: pid)
        #expect(before > 0, "cannot read the server's VmRSS")
        try WebRTCServerPeerTests.offer.write(toFile: directory.file("offer.sdp"), atomically: true, encoding: .utf8)
        try keys.joined(separator: "\n").write(toFile: directory.file("keys.list"), atomically: true,
                                               encoding: .utf8)
        try Self.postMany.write(toFile: directory.file("post_many.py"), atomically: true, encoding: .utf8)
        let httpPort = served.httpPort
        async let posting = offPool {
            try Subprocess.run("python3", [directory.file("post_many.py"), "127.0.0.1", "\(httpPort)",
                                           directory.file("offer.sdp"), directory.file("keys.list")], timeout: 120)
        }
        // Reads what the server prints until `count` lines hold `text` (its standard output is a pipe: left
        // unread, it fills and holds the server's loop).
        func read(_ count: Int, linesWith text: String, timeout: TimeInterval) async throws {
            var start = 0
            while served.lines.filter({ $0.contains(text) }).count < count {
                start = served.lines.count
                _ = try await served.waitFor(text, from: start, timeout: timeout)
            }
        }
        try await read(1000, linesWith: "on live: answered", timeout: 60)
        let posted = try await posting
        let report = (try? JSONSerialization.jsonObject(with: Data(posted.stdout.utf8))) as? [String: Any] ?? [:]
        #expect(report["created"] as? Int == 1000, "\(posted.stdout) \(posted.stderr.suffix(2000))")
        #expect(report["last"] as? String == "503 5", "the 1,001st is refused with Retry-After: \(report)")
        let peak = ProcessMemory.residentBytes(ofProcess: pid)
        try await read(1000, linesWith: ": ended (no ICE check nominated a path", timeout: 40)
        // What 1,000 sessions held is given back (malloc_trim a moment after the last ends): within a quarter of
        // what they took, or 8 MB.
        var after = peak
        try await eventually("the server's memory back near its baseline", within: .seconds(10),
                             seen: { "before \(before), peak \(peak), now \(after)" }) {
            after = ProcessMemory.residentBytes(ofProcess: pid)
            return after - before <= max(8 << 20, (peak - before) / 4)
        }
        print("1,000 unconnected WHIP sessions: RSS \(before >> 10) KB before, \(peak >> 10) KB with them, "
              + "\(after >> 10) KB after; POSTs p50 \(report["p50Milliseconds"] ?? "?") ms")
        let printed = served.lines.joined(separator: "\n")
        #expect(!printed.contains("never-connects-"), "no key printed")
    }

    /// POSTs the offer to /whip/live once per key on one keep-alive connection; prints how many were created,
    /// the last answer's status and Retry-After, and the POSTs' median time.
    static let postMany = #"""
        import http.client, json, statistics, sys, time
        host, port, offer, keys = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read(), open(sys.argv[4]).read().split()
        connection = http.client.HTTPConnection(host, port, timeout=10)
        created, times, last = 0, [], ""
        for key in keys:
            began = time.monotonic()
            connection.request("POST", "/whip/live", body=offer,
                               headers={"Content-Type": "application/sdp", "Authorization": "Bearer " + key})
            response = connection.getresponse()
            response.read()
            times.append((time.monotonic() - began) * 1000)
            if response.status == 201:
                created += 1
            last = f"{response.status} {response.getheader('Retry-After')}"
        print(json.dumps({"created": created, "last": last, "p50Milliseconds": round(statistics.median(times), 2)}))
        """#

    /// Our own publisher (`stream broadcast` over WHIP, a full ICE agent and a DTLS client) into `stream serve`, and
    /// ffprobe (an HLS reader we did not write) reading the publish's LL-HLS once the broadcast has ended.
    @Test(.timeLimit(.minutes(2))) func ourBroadcastBecomesLLHLSThatFFprobeReads() async throws {
        let directory = try TemporaryDirectory("serve-whip-broadcast")
        var served = try await Self.serve(in: directory)
        defer { served.process.stop() }
        let home = try TemporaryConfigHome()
        let broadcast = try BackgroundProcess(try StreamExecutable.url().path, [
            "broadcast", "--source", "test", "--test-size", "640x360", "--quality", "480", "--duration", "5",
            "--token-stdin", "http://127.0.0.1:\(served.httpPort)/whip/live",
        ], environment: home.environment.merging(["TERM": "dumb"]) { $1 },
           errorLog: directory.file("broadcast.err"), stdin: Self.key + "\n")
        defer { broadcast.stop() }

        _ = try await served.waitFor("WHIP session 1 on live: receiving H.264 and Opus")
        let announced = try await served.waitFor("LL-HLS: http://")
        let playlist = String(try #require(announced.split(separator: " ").last))
        // The broadcast's end (its close_notify) ends the session and the playlist.
        let ended = try await served.waitFor("WHIP session 1 on live: ended", timeout: 30)
        #expect(ended.contains("the client closed DTLS (close_notify)") && ended.contains(", 0 refused by SRTP"),
                "\(ended)")
        let status = try await offPool { broadcast.waitForExit(timeout: 20) }
        let errors = (try? String(contentsOfFile: directory.file("broadcast.err"), encoding: .utf8)) ?? ""
        #expect(status == 0, "stream broadcast failed: \(errors.suffix(2000))")
        var listed = ""
        try await eventually("the ended publish's playlist ends", within: .seconds(10), every: .seconds(1),
                             seen: { listed }) {
            listed = try await Self.curl([playlist])
            return listed.contains("#EXT-X-ENDLIST")
        }
        // (codec, width, height, frames, has audio): ProbeReport is not Sendable, so it stays on its thread.
        let probed = try await offPool { () -> (String, Int?, Int?, Int?, Bool)? in
            let report = try ProbeReport.probe(playlist)
            return report.video.map { ($0.codecName, $0.width, $0.height, $0.frameCount, report.audio != nil) }
        }
        let (codec, width, height, frames, hasAudio) = try #require(probed, "ffprobe found no video in \(playlist)")
        #expect(codec == "h264" && width == 640 && height == 360, "\(String(describing: probed))")
        // 5 s at 30 fps, less what came before the first keyframe and after the last whole part.
        #expect((frames ?? 0) >= 90, "\(String(describing: probed))")
        #expect(hasAudio, "the Opus became AAC")
        // The broadcast's tone (440 Hz), transcoded Opus → AAC, through ffmpeg's decoder.
        let heard = try await offPool { try Heard.probe(playlist, in: directory) }
        #expect(heard.audioCodec == "aac" && heard.audioRate == 48000, "\(heard)")
        #expect(abs(heard.pitch.frequency - 440) <= 22, "\(heard.pitch); \(heard)")
        #expect(abs(heard.audioSeconds - heard.videoSeconds) <= 0.5, "\(heard)")
        #expect(ended.contains("AAC frames from Opus") && !ended.contains(" 0 AAC frames"), "\(ended)")
        let printed = served.lines.joined(separator: "\n")
        #expect(!printed.contains(Self.key), "the key is never printed")
    }

    /// An RTMP and a WHIP publish with one key would feed one LL-HLS stream: while ffmpeg publishes over RTMP a
    /// WHIP POST with its key is 409, and while aiortc publishes over WHIP an RTMP publish with it is refused.
    @Test(.timeLimit(.minutes(2))) func rtmpAndWHIPWithOneKeyPublishOneAtATime() async throws {
        let directory = try TemporaryDirectory("serve-whip-rtmp")
        var served = try await Self.serve(in: directory)
        defer { served.process.stop() }
        let published = try #require(served.lines.first { $0.hasPrefix("Publish to rtmp://127.0.0.1:") })
        let rtmp = String(try #require(published.split(separator: " ").dropFirst(2).first)) + "/" + Self.key
        let fixture = try MediaFixture.makeFLV(in: directory, seconds: 3)
        let endpoint = "http://127.0.0.1:\(served.httpPort)/whip/live"

        let ffmpeg = OffPoolTask("ffmpeg-rtmp") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", rtmp],
                               timeout: 30)
        }
        _ = try await served.waitFor("publish started: live/")
        let conflict = try await Self.curl(["-X", "POST", "-H", "Authorization: Bearer \(Self.key)",
                                            "-H", "Content-Type: application/sdp", "--data-binary", "v=0", endpoint])
        #expect(conflict.hasPrefix("HTTP/1.1 409") && conflict.contains("publishing over RTMP"), "\(conflict)")
        #expect(!conflict.contains(Self.key))
        #expect(try await ffmpeg.value.status == 0)
        _ = try await served.waitFor("publish stopped: live/")

        let aiortc = try AiortcPublisher(whipURL: endpoint, key: Self.key)
        defer { aiortc.stop() }
        let posted = try await aiortc.next()
        #expect(posted["status"] as? Int == 201, "\(posted)\n\(aiortc.log.suffix(2000))")
        _ = try await served.waitFor("WHIP session 1 on live: connected")  // the WHIP publish started
        let refused = try await offPool {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", rtmp],
                               timeout: 30)
        }
        #expect(refused.status != 0, "ffmpeg published over RTMP beside a WHIP publish with its key")
        let line = try await served.waitFor("publish refused: live/")
        #expect(line.contains("already publishing over WHIP") && !line.contains(Self.key), "\(line)")
    }

    @Test(arguments: [
        (["--webrtc-listen", "nonsense"], "--webrtc-listen must be HOST:PORT"),
        (["--no-http", "--webrtc-listen", "127.0.0.1:0"], "--webrtc-listen needs HTTP"),
        (["--webrtc-listen", "0.0.0.0:0"], "give the address clients reach with --webrtc-public-ip"),
        (["--webrtc-public-ip", "nope"], "--webrtc-public-ip must be a numeric IP address"),
    ])
    func badWebRTCArgumentsExitWithUsageErrors(arguments: [String], message: String) async throws {
        let environment = try TemporaryConfigHome().environment
        let result = try await offPool {
            try Subprocess.run(try StreamExecutable.url().path, ["serve", "--no-record", "--listen", "127.0.0.1:0",
                                                                  "--duration", "1"] + arguments,
                               timeout: 10, environment: environment)
        }
        #expect(result.status == 2 && result.stderr.contains(message), "\(result.status): \(result.stderr)")
    }

    /// A port given on the command line that cannot be bound stops the command (the default one only turns WHIP
    /// off, with a line saying so).
    @Test func aTakenWebRTCPortGivenOnTheCommandLineIsAnError() async throws {
        let home = try TemporaryConfigHome()
        let environment = home.environment
        let holder = try UDPTestSocket(connectingTo: nil)
        let port = holder.localPort
        let result = try await offPool {
            try Subprocess.run(try StreamExecutable.url().path, [
                "serve", "--no-record", "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                "--webrtc-listen", "127.0.0.1:\(port)", "--duration", "1",
            ], timeout: 10, environment: environment)
        }
        #expect(result.status == 1 && result.stderr.contains("Address already in use"), "\(result.stderr)")
        withExtendedLifetime(holder) {}
    }

    /// Chromium (Debian's, through Playwright, with its fake camera and microphone) publishing over WHIP from a page
    /// of the server's own origin: H.264 and Opus arrive, and since Chromium sends keyframes only when asked, the
    /// 2 s segments of its LL-HLS playlist show the server's periodic keyframe requests at work.
    @Test(.timeLimit(.minutes(2))) func chromiumPublishesAndItsPlaylistHasTwoSecondSegments() async throws {
        let directory = try TemporaryDirectory("serve-whip-chromium")
        var served = try await Self.serve(in: directory)
        defer { served.process.stop() }
        let script = directory.file("chromium.py")
        try Self.chromium.write(toFile: script, atomically: true, encoding: .utf8)
        let origin = "http://127.0.0.1:\(served.httpPort)"
        let chromium = try BackgroundProcess("python3", [script, origin + "/whip/live", origin + "/v1/health"],
                                             environment: ["WHIP_KEY": Self.key],
                                             errorLog: directory.file("chromium.err"))
        defer { chromium.stop() }
        func log() -> String {
            ((try? String(contentsOfFile: directory.file("chromium.err"), encoding: .utf8)) ?? "").suffix(2000)
                .description
        }
        let line = try await offPool { try chromium.readLine(timeout: 60) }
        let result = try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                                  "not JSON: \(line)\n\(log())")
        #expect(result["status"] as? Int == 201 && result["state"] as? String == "connected", "\(result)\n\(log())")
        let location = try #require(result["location"] as? String, "\(result)")
        let estimate = try await offPool { try chromium.readLine(timeout: 30) }
        print("Chromium's estimate 4 s into a WHIP publish: \(estimate)")
        let stats = (try? JSONSerialization.jsonObject(with: Data(estimate.utf8))) as? [String: Any] ?? [:]
        // Above its 300 kbit/s start: it heard the server's reports and REMB, and believed them.
        #expect((stats["availableOutgoingBitrate"] as? Double ?? 0) >= 1_000_000, "\(estimate)\n\(log())")
        #expect(stats["roundTripTime"] is Double, "our receiver reports gave it a round trip: \(estimate)")

        _ = try await served.waitFor("WHIP session 1 on live: receiving H.264 and Opus")
        let announced = try await served.waitFor("LL-HLS: http://")
        let playlist = String(try #require(announced.split(separator: " ").last))
        var listed = ""
        try await eventually("two complete segments", within: .seconds(15), every: .seconds(1), seen: { listed }) {
            listed = try await Self.curl(["-m", "10", playlist + "?_HLS_msn=2&_HLS_part=0"])
            return listed.components(separatedBy: "#EXTINF:").count >= 3
        }
        #expect(listed.contains("#EXT-X-TARGETDURATION:2\r\n") || listed.contains("#EXT-X-TARGETDURATION:2\n"),
                "segments cut every 2 s by the keyframes asked for: \(listed)")

        let deleted = try await Self.curl(["-X", "DELETE", "-H", "Authorization: Bearer \(Self.key)",
                                           origin + location])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
        let ended = try await served.waitFor("WHIP session 1 on live: ended")
        #expect(ended.contains(", 0 refused by SRTP") && ended.contains("keyframe requests"), "\(ended)")
        let after = try await offPool { try chromium.readLine(timeout: 40) }
        #expect(!after.contains(#""connected""#), "Chromium saw the session end: \(after)")
    }

    /// The Chromium publisher: prints `{"status": …, "location": …, "state": …}` once connected (or refused),
    /// then `{"state": …}` when the connection leaves "connected".
    static let chromium = #"""
    import asyncio, json, os, sys
    URL, ORIGIN, KEY = sys.argv[1], sys.argv[2], os.environ["WHIP_KEY"]
    def say(v): print(json.dumps(v), flush=True)
    async def main():
        from playwright.async_api import async_playwright
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
            page = await browser.new_page()
            await page.goto(ORIGIN)
            result = await page.evaluate("""async ([url, key]) => {
                const stream = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 360},
                                                                          audio: true});
                const pc = new RTCPeerConnection({bundlePolicy: "max-bundle"});
                window.pc = pc;
                for (const track of stream.getTracks()) pc.addTransceiver(track, {direction: "sendonly"});
                const video = pc.getTransceivers().find(t => t.sender.track.kind === "video");
                const h264 = RTCRtpSender.getCapabilities("video").codecs.filter(
                    c => c.mimeType === "video/H264" && /packetization-mode=1/.test(c.sdpFmtpLine || ""));
                if (h264.length === 0) return {error: "no H.264 in this Chromium"};
                video.setCodecPreferences(h264);
                await pc.setLocalDescription(await pc.createOffer());
                await new Promise(done => {
                    if (pc.iceGatheringState === "complete") done();
                    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") done(); };
                    setTimeout(done, 3000);
                });
                const response = await fetch(url, {method: "POST", body: pc.localDescription.sdp,
                    headers: {"Content-Type": "application/sdp", "Authorization": "Bearer " + key}});
                const body = await response.text();
                if (response.status !== 201) return {status: response.status, body};
                await pc.setRemoteDescription({type: "answer", sdp: body});
                await new Promise(done => {
                    if (pc.connectionState === "connected") done();
                    pc.onconnectionstatechange = () => {
                        if (pc.connectionState !== "connecting" && pc.connectionState !== "new") done();
                    };
                    setTimeout(done, 10000);
                });
                return {status: 201, location: response.headers.get("Location"), state: pc.connectionState};
            }""", [URL, KEY])
            say(result)
            # Four seconds in: what Chromium's bandwidth estimate allows (the server's receiver reports and REMB
            # raise it from its 300 kbit/s start) and what its encoder aims at.
            await asyncio.sleep(4)
            say(await page.evaluate("""async () => {
                const report = {};
                (await window.pc.getStats()).forEach(entry => {
                    if (entry.type === "candidate-pair" && entry.nominated && entry.availableOutgoingBitrate)
                        report.availableOutgoingBitrate = entry.availableOutgoingBitrate;
                    if (entry.type === "outbound-rtp" && entry.kind === "video") {
                        report.targetBitrate = entry.targetBitrate;
                        report.qualityLimitationReason = entry.qualityLimitationReason;
                    }
                    if (entry.type === "remote-inbound-rtp" && entry.kind === "video")
                        report.roundTripTime = entry.roundTripTime;
                });
                return report;
            }"""))
            # Publishing until the session ends (the test's DELETE) or 30 s pass.
            for _ in range(300):
                state = await page.evaluate("window.pc ? window.pc.connectionState : 'none'")
                if state != "connected":
                    break
                await asyncio.sleep(0.1)
            say({"state": state})
            await browser.close()
    asyncio.run(main())

    """#
}

