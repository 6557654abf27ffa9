#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Item 15: the cost of publishing over WebRTC. The same 720p30 test broadcast (`stream broadcast --source test`,
/// PiP on, adaptive bitrate off) runs twice in one run: over WHIP to aiortc (PyPI; ICE, DTLS-SRTP, RTP, its
/// decoder) and over RTMP to nginx-rtmp. Only the `stream` process is measured: CPU over its whole life and peak RSS.
struct WHIPBench {
    let context: BenchContext

    func run(into report: Report) throws {
        guard BroadcastBench.isAvailable(context.streamExecutable) else {
            report.note("item 15 WHIP vs RTMP skipped: this build's `stream` has no `broadcast` command")
            return
        }
        let duration = context.quick ? 5 : 20
        let endpoint = try AiortcWHIPEndpoint(directory: context.file("whip-endpoint"))
        defer { endpoint.stop() }
        let whip = try broadcast(url: endpoint.url, name: "whip", secret: endpoint.token, duration: duration)
        let frames = endpoint.framesDecoded()
        let nginx = try NginxServer(directory: context.file("nginx-whip-bench"), certificate: context.certificate,
                                    key: context.privateKey)
        defer { nginx.stop() }
        let rtmp = try broadcast(url: nginx.rtmpURL, name: "rtmp", secret: "bench-rtmp", duration: duration)
        let section = "15 WHIP vs RTMP 720p30 \(duration)s"
        let peer = "same broadcast over RTMP"
        report.record(section, "CPU, share of one core", unit: "%", ours: whip.cpuSeconds / Double(duration) * 100,
                      peer: rtmp.cpuSeconds / Double(duration) * 100, peerName: peer,
                      note: "`stream broadcast --source test --pip on`, 2500 kbps, x264 veryfast zerolatency "
                        + "(constrained baseline + Opus 128k for WHIP; high + AAC 128k for RTMP); WHIP to aiortc on "
                        + "loopback, RTMP to nginx-rtmp; CPU over the whole process life")
        report.record(section, "peak RSS", unit: "MB", ours: Double(whip.maxRSS) / 1e6,
                      peer: Double(rtmp.maxRSS) / 1e6, peerName: peer)
        report.record(section, "peak anonymous RSS (heap, stacks)", unit: "MB",
                      ours: Double(whip.peakAnonymousRSS) / 1e6, peer: Double(rtmp.peakAnonymousRSS) / 1e6,
                      peerName: peer)
        report.record(section, "frames aiortc decoded", unit: "frames", ours: frames.map(Double.init),
                      peer: Double(duration * 30), peerName: "expected (duration x fps)")
    }

    private func broadcast(url: String, name: String, secret: String, duration: Int) throws -> ChildProcess.Usage {
        let secretFile = context.file("whip-bench-\(name)-secret.txt")
        try (secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
        let child = try ChildProcess(context.streamExecutable, [
            "broadcast", url, "--key-stdin", "--source", "test", "--duration", "\(duration)",
            "--quality", "720", "--fps", "30", "--video-bitrate", "2500", "--audio-bitrate", "128",
            "--adaptive-bitrate", "off", "--pip", "on", "--pip-scale", "0.25", "--test-size", "1280x720",
        ], logFile: context.file("whip-bench-\(name).log"),
           environment: ["XDG_CONFIG_HOME": context.file("xdg-config"), "XDG_DATA_HOME": context.file("xdg-data")],
           standardInput: secretFile)
        let usage = child.waitSamplingPeakRSS()
        guard usage.exitStatus == 0 else {
            throw BenchError("stream broadcast over \(name) exited with \(usage.exitStatus): \(child.logTail())")
        }
        return usage
    }
}

/// aiortc as a WHIP endpoint for the benchmark: answers one offer, decodes what arrives (counting frames) and ends
/// on DELETE, writing the count.
struct AiortcWHIPEndpoint {
    let directory: String
    let child: ChildProcess
    let url: String
    let token = "bench-\(UInt64.random(in: 0..<UInt64.max))"

    init(directory: String) throws {
        self.directory = directory
        // A fresh directory per run: the previous run's port and count must not be read for this one's.
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = directory + "/whip_endpoint.py"
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        let portFile = directory + "/port"
        child = try ChildProcess("python3", [script, directory, token], logFile: directory + "/endpoint.log")
        let deadline = Measure.now() + 60
        while Measure.now() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                url = "http://127.0.0.1:\(port)/whip"
                return
            }
            usleep(50_000)
        }
        child.signal(SIGKILL)
        _ = child.wait()
        throw BenchError("the aiortc WHIP endpoint did not start (is aiortc installed? scripts/install-deps.sh): "
                            + ((try? String(contentsOfFile: directory + "/endpoint.log", encoding: .utf8)) ?? ""))
    }

    func framesDecoded() -> Int? {
        let deadline = Measure.now() + 10
        while Measure.now() < deadline {
            if let text = try? String(contentsOfFile: directory + "/frames", encoding: .utf8) { return Int(text) }
            usleep(50_000)
        }
        return nil
    }

    func stop() {
        child.signal(SIGKILL)
        _ = child.wait()
    }

    static let script = #"""
    import asyncio, os, sys
    import aioice.ice
    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
    from aiortc import RTCPeerConnection, RTCSessionDescription

    OUT, TOKEN = sys.argv[1], sys.argv[2]
    frames = [0]
    done = asyncio.Event()
    pcs = []

    async def consume(track):
        while True:
            try:
                await track.recv()
            except Exception:
                return
            if track.kind == "video":
                frames[0] += 1

    async def handle(reader, writer):
        head = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
        method, path = head[0].split(" ")[:2]
        fields = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in head[1:] if ":" in l}
        body = await reader.readexactly(int(fields.get("content-length", "0")))
        status, extra, payload = 404, "", b""
        if fields.get("authorization") != "Bearer " + TOKEN:
            status = 401
        elif method == "POST":
            pc = RTCPeerConnection()
            pcs.append(pc)
            pc.on("track", lambda track: asyncio.ensure_future(consume(track)))
            await pc.setRemoteDescription(RTCSessionDescription(body.decode(), "offer"))
            await pc.setLocalDescription(await pc.createAnswer())
            status, payload = 201, pc.localDescription.sdp.encode()
            extra = "Content-Type: application/sdp\r\nLocation: /whip/session\r\n"
        elif method == "DELETE":
            status = 200
            done.set()
        writer.write(("HTTP/1.1 %d X\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n"
                      % (status, len(payload), extra)).encode() + payload)
        await writer.drain()
        writer.close()

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        with open(os.path.join(OUT, "port"), "w") as f:
            f.write(str(server.sockets[0].getsockname()[1]))
        await done.wait()
        await asyncio.sleep(0.3)
        with open(os.path.join(OUT, "frames"), "w") as f:
            f.write(str(frames[0]))
        for pc in pcs:
            await pc.close()

    asyncio.run(main())
    """#
}
