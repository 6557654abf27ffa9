import Foundation
import Media
import TestSupport
import Testing

/// `stream broadcast` itself, as a user runs it, publishing to a WHIP endpoint built on aiortc.
@Suite(.serialized, .startsPeers)
struct WHIPBroadcastCommandTests {
    /// The test sources over WHIP for 4 s: aiortc decodes the pattern's colours where they belong and the tone
    /// (440 Hz ± 5 %), frames arrive within 300 ms of capture, and the session is DELETEd at the end.
    @Test(.timeLimit(.minutes(1)))
    func aiortcReceivesTheTestSourcesFromTheCommand() async throws {
        let endpoint = try AiortcEndpoint.start()
        let run = try await Self.broadcast(to: endpoint, ["--test-size", "854x480", "--video-bitrate", "1000",
                                                          "--duration", "4"])
        #expect(run.status == 0, "stream broadcast: \(run.lines) \(run.errors); endpoint: \(endpoint.log.suffix(2000))")
        let start = try #require(run.live, "no Live line: \(run.lines) \(run.errors)")
        #expect(run.lines.contains { $0.contains("Live: WHIP http://127.0.0.1:\(endpoint.port)/whip") }, "\(run.lines)")

        let results = try endpoint.results()
        let frames = results["frames"] as? Int ?? 0
        #expect(frames >= 100, "aiortc decoded \(frames) of 120 frames; log: \(endpoint.log.suffix(2000))")
        #expect(results["deleted"] as? Bool == true)
        #expect(results["refused"] as? Int == 0)
        let hertz = results["audio_hz"] as? Double ?? 0
        #expect(abs(hertz - 440) <= 22, "the audio decoded to \(hertz) Hz")
        #expect(results["audio_rate"] as? Int == 48000)
        let latencies = try DecodedFrames.check(endpoint, results, pattern: ScreenPattern(width: 854, height: 480),
                                                width: 854, height: 480) { start + Double($0) / 30 }
        let worst = latencies.max() ?? 1
        let median = latencies.sorted()[latencies.count / 2]
        print("stream broadcast over WHIP: \(frames) frames decoded, tone at \(hertz) Hz, capture to decode "
            + "median \(Int(median * 1000)) ms, worst \(Int(worst * 1000)) ms over \(latencies.count) frames")
        #expect(worst < 0.3, "capture to decoded frame took up to \(Int(worst * 1000)) ms: \(latencies)")
        // The Live line is printed just after capture starts, so a frame may seem to arrive a few ms early.
        #expect(latencies.allSatisfy { $0 > -0.02 }, "\(latencies)")
        #expect(!(run.lines.joined() + run.errors).contains(endpoint.token))
    }

    /// An https endpoint: its certificate is verified as RTMPS's is. Unknown to the system store, it is refused
    /// (exit 1, naming the certificate); trusted with --ca-file, the broadcast goes through.
    @Test(.timeLimit(.minutes(1)))
    func anHTTPSEndpointsCertificateIsVerified() async throws {
        let directory = try TemporaryDirectory("whip-tls")
        let certificate = try TestCertificate.make(in: directory)
        let endpoint = try AiortcEndpoint.start(certificate: certificate)
        #expect(endpoint.url.absoluteString.hasPrefix("https://"))
        let untrusted = try await Self.broadcast(to: endpoint, ["--test-size", "320x240", "--duration", "2"])
        #expect(untrusted.status == 1, "\(untrusted.lines) \(untrusted.errors)")
        #expect(untrusted.errors.contains("certificate"), "\(untrusted.errors)")
        let trusted = try await Self.broadcast(to: endpoint, ["--test-size", "320x240", "--duration", "2",
                                                              "--ca-file", certificate.certificateFile])
        #expect(trusted.status == 0, "\(trusted.lines) \(trusted.errors); endpoint: \(endpoint.log.suffix(2000))")
        let results = try endpoint.results()
        #expect(results["deleted"] as? Bool == true && (results["frames"] as? Int ?? 0) >= 30, "\(results)")
    }

    /// --stun: the offer carries the server-reflexive candidate the STUN server saw (aioice's STUN code answers with
    /// a mapped address that is not ours, as a NAT's would be), the name given resolved; the host candidates still
    /// connect on loopback.
    @Test(.timeLimit(.minutes(1)))
    func stunGivesTheOfferAServerReflexiveCandidate() async throws {
        let stun = try BackgroundProcess("python3", ["-c", """
            import asyncio
            from aioice import stun
            class Answer(asyncio.DatagramProtocol):
                def connection_made(self, transport):
                    self.transport = transport
                    print("PORT", transport.get_extra_info("sockname")[1], flush=True)
                def datagram_received(self, data, addr):
                    request = stun.parse_message(data)
                    response = stun.Message(message_method=stun.Method.BINDING,
                                            message_class=stun.Class.RESPONSE,
                                            transaction_id=request.transaction_id)
                    response.attributes["XOR-MAPPED-ADDRESS"] = ("203.0.113.7", 40000)
                    response.add_fingerprint()
                    self.transport.sendto(bytes(response), addr)
            async def main():
                await asyncio.get_running_loop().create_datagram_endpoint(Answer, local_addr=("127.0.0.1", 0))
                await asyncio.sleep(60)
            asyncio.run(main())
            """])
        defer { stun.stop() }
        let line = try stun.readLine(timeout: 20)
        let port = try #require(line.hasPrefix("PORT ") ? Int(line.dropFirst(5)) : nil, "\(line)")
        let endpoint = try AiortcEndpoint.start()
        let run = try await Self.broadcast(to: endpoint, ["--test-size", "320x240", "--duration", "2",
                                                          "--stun", "localhost:\(port)"])
        #expect(run.status == 0, "\(run.lines) \(run.errors); endpoint: \(endpoint.log.suffix(2000))")
        let results = try endpoint.results()
        let offer = results["offer"] as? String ?? ""
        #expect(offer.contains("203.0.113.7 40000 typ srflx raddr"), "\(offer)")
        #expect((results["frames"] as? Int ?? 0) >= 30, "\(results)")
    }

    /// aiortc closes the first session after 2 s (DTLS close_notify): the output reconnects on the RTMP schedule
    /// with a new WHIP session (a new offer), frames flow again, and both sessions are DELETEd.
    @Test(.timeLimit(.minutes(1)))
    func aSessionTheEndpointEndsIsReplacedByANewOne() async throws {
        let endpoint = try AiortcEndpoint.start(closeAfter: 2)
        let run = try await Self.broadcast(to: endpoint, ["--test-size", "320x240", "--video-bitrate", "500",
                                                          "--duration", "7"])
        #expect(run.status == 0, "stream broadcast: \(run.lines) \(run.errors); endpoint: \(endpoint.log.suffix(2000))")
        #expect(run.lines.contains { $0.contains("connection lost") && $0.contains("close_notify") }, "\(run.lines)")
        #expect(run.lines.contains { $0.contains("live again after") }, "\(run.lines)")
        #expect(run.lines.contains { $0.hasPrefix("WHIP http://") && $0.contains(": 2 sessions") }, "\(run.lines)")
        let results = try endpoint.results()
        #expect(results["offers"] as? Int == 2 && results["deletes"] as? Int == 2, "\(results)")
        let perSecond = results["per_second"] as? [Int] ?? []
        print("WHIP reconnect: \(run.lines.filter { $0.contains("lost") || $0.contains("again") }), frames per "
            + "second \(perSecond)")
        #expect(perSecond.dropLast().suffix(2).allSatisfy { $0 >= 20 }, "frames decoded per second: \(perSecond)")
    }

    /// The path dies without a word 2 s in (the relay drops everything of the first session both ways): the
    /// publisher notices after 10 s of silence (not consent's 30 s), starts a new WHIP session, and frames flow
    /// again through it.
    @Test(.timeLimit(.minutes(1)))
    func aPathThatDiesSilentlyIsReplacedWithinTenSeconds() async throws {
        let endpoint = try AiortcEndpoint.start(blackoutAfter: 2)
        let run = try await Self.broadcast(to: endpoint, ["--test-size", "320x240", "--video-bitrate", "500",
                                                          "--duration", "20"])
        #expect(run.status == 0, "stream broadcast: \(run.lines) \(run.errors); endpoint: \(endpoint.log.suffix(2000))")
        #expect(run.lines.contains { $0.contains("connection lost") && $0.contains("sent nothing for 10") },
                "\(run.lines)")
        // The outage counts from when the path fell silent, not from when that was noticed.
        let again = run.lines.first { $0.contains("live again after") }
        let seconds = again?.components(separatedBy: "live again after ").last?.split(separator: " ").first
            .flatMap { Double($0) }
        #expect((seconds ?? 0) >= 9.5 && (seconds ?? 0) < 15, "\(run.lines)")
        let results = try endpoint.results()
        #expect(results["offers"] as? Int == 2 && results["deletes"] as? Int == 2, "\(results)")
        let perSecond = results["per_second"] as? [Int] ?? []
        print("WHIP silent path: \(run.lines.filter { $0.contains("lost") || $0.contains("again") }), frames per "
            + "second \(perSecond)")
        #expect(perSecond.dropLast().suffix(2).allSatisfy { $0 >= 20 }, "frames decoded per second: \(perSecond)")
    }

    /// Through the lossy relay (5 % of media datagrams lost each way and 50 ms of delay for 8 s, 0.3 s of video lost
    /// for good halfway): the session's RTCP-fed estimate reaches the encoder through the engine (the status line's
    /// target falls below the asked bitrate), and aiortc's PLI brings a keyframe through the output.
    @Test(.timeLimit(.minutes(1)))
    func aLossyPathLowersTheEncodersBitrateAndAPictureLossBringsAKeyframe() async throws {
        let endpoint = try AiortcEndpoint.start(loss: 0.05, delay: 0.05, lossSeconds: 8)
        // 16 s: after the 8 s of loss, room for aiortc to wait out a second gap (512 packets, ~3.5 s) and decode again.
        let run = try await Self.broadcast(to: endpoint, ["--test-size", "640x360", "--video-bitrate", "1500",
                                                          "--duration", "16"])
        #expect(run.status == 0, "stream broadcast: \(run.lines) \(run.errors); endpoint: \(endpoint.log.suffix(2000))")
        let targets = run.lines.compactMap { line -> Int? in
            guard let range = line.range(of: "(target ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        let summary = run.lines.first { $0.hasPrefix("WHIP http://") } ?? ""
        let results = try endpoint.results()
        print("WHIP lossy: targets \(targets), \(summary), relay dropped \(results["relay_dropped"] ?? 0), PLIs "
            + "from aiortc \(results["plis"] ?? 0), frames per "
            + "second \(results["per_second"] ?? [])")
        #expect(targets.contains { $0 < 1500 * 9 / 10 }, "the encoder's bitrate never came down: \(run.lines)")
        #expect(!summary.contains(" 0 keyframe requests") && summary.contains("keyframe requests"), "\(summary)")
        #expect(!summary.contains(": 0 NACKs"), "\(summary)")
        let perSecond = results["per_second"] as? [Int] ?? []
        #expect(perSecond.dropLast().suffix(2).allSatisfy { $0 >= 20 }, "frames decoded per second: \(perSecond)")
    }

    /// Runs `stream broadcast --source test --token-stdin URL` with the endpoint's token on standard input, and
    /// collects its output lines until it exits, noting when the "Live:" line came (capture starts then: frame n
    /// is captured n/30 s later).
    private static func broadcast(to endpoint: WHIPTestEndpoint, _ arguments: [String]) async throws
        -> (status: Int32?, lines: [String], errors: String, live: Double?) {
        let home = try TemporaryConfigHome()
        let errorLog = home.url.appendingPathComponent("broadcast.err").path
        let process = try BackgroundProcess(
            try StreamExecutable.url().path,
            ["broadcast", "--source", "test", "--quality", "480", "--token-stdin", endpoint.url.absoluteString]
                + arguments,
            environment: home.environment.merging(["TERM": "dumb"]) { $1 }, errorLog: errorLog,
            stdin: endpoint.token + "\n")
        let (lines, live) = try await offPool { () -> ([String], Double?) in
            var lines: [String] = []
            var live: Double?
            // readLine throws once the program has closed its output.
            while let line = try? process.readLine(timeout: 30) {
                if line.hasPrefix("Live:") && live == nil { live = Date().timeIntervalSince1970 }
                lines.append(line)
            }
            return (lines, live)
        }
        let status = try await offPool { process.waitForExit(timeout: 20) }
        let errors = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        return (status, lines, errors, live)
    }

    /// An endpoint that refuses the token (401), has no such endpoint (404), is overloaded (503) or answers with
    /// SDP that is not an answer: exit 1 with the reason on stderr, and the token nowhere in the output.
    @Test(.timeLimit(.minutes(1)))
    func refusalsEndTheBroadcastWithTheReasonAndNeverTheToken() async throws {
        let endpoint = try AiortcEndpoint.start()
        let home = try TemporaryConfigHome()
        let base = endpoint.url.absoluteString
        let environment = home.environment
        let cases: [(path: String, token: String, phrase: String)] = [
            (base, "wrong-token-123", "refused the token (401"),
            (base + "/elsewhere", endpoint.token, "no WHIP endpoint at"),
            (base + "/overloaded", endpoint.token, "failed (503"),
            // Last: the session it created is DELETEd, which ends the endpoint.
            (base + "/broken", endpoint.token, "SDP answer cannot be used"),
        ]
        for (url, token, phrase) in cases {
            let run = try await offPool {
                try Subprocess.run(try StreamExecutable.url().path,
                                   ["broadcast", "--source", "test", "--test-size", "320x240", "--quality", "480",
                                    "--duration", "2", "--token-stdin", url],
                                   timeout: 30, environment: environment, stdin: Data((token + "\n").utf8))
            }
            #expect(run.status == 1, "\(url): \(run.stdout) \(run.stderr)")
            #expect(run.stderr.contains(phrase), "\(url): \(run.stderr)")
            #expect(!(run.stdout + run.stderr).contains(token), "\(url): the token was printed")
            #expect(!(run.stdout + run.stderr).contains(endpoint.token))
        }
        let results = try endpoint.results()
        #expect(results["deleted"] as? Bool == true)
        #expect(results["refused"] as? Int == 1)
    }
}
