import Foundation
import TestSupport
import Testing

/// Issue 33's `GET /metrics` as an operator's Prometheus reads it: a real `stream serve --shows` with its metrics
/// listener, Prometheus's Python parser (`prometheus_client`) on what it answers, while ffmpeg publishes a show and
/// Python `websockets` clients watch and chat.
@Suite(.startsPeers) struct MetricsServeTests {
    static let shows = """
        {"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "users": "viewer", "visitors": "viewer"}]}
        """

    @Test func prometheusParsesTheMetricsAndTheCountersMoveAsAShowRuns() throws {
        let work = try TemporaryDirectory("metrics")
        let secretFile = work.file("token-secret")
        try "5b0e4c2a9d7f1e3b6a8c0d2f4e6a8b0c1d3e5f7a9b1c3d5e\n".write(toFile: secretFile, atomically: true,
                                                                      encoding: .utf8)
        #expect(chmod(secretFile, 0o600) == 0)
        try Self.shows.write(toFile: work.file("shows.json"), atomically: true, encoding: .utf8)
        try LiveShowPeers.client.write(toFile: work.file("liveclient.py"), atomically: true, encoding: .utf8)
        try MetricsPeers.scenario.write(toFile: work.file("metrics.py"), atomically: true, encoding: .utf8)
        let (httpPort, rtmpPort, metricsPort) = (try FreePort.next(), try FreePort.next(), try FreePort.next())
        let serve = try BackgroundProcess(try StreamExecutable.url().path, [
            "serve", "--listen", "127.0.0.1:\(rtmpPort)", "--http-listen", "127.0.0.1:\(httpPort)", "--no-record",
            "--shows", work.file("shows.json"), "--token-secret-file", secretFile, "--data-dir", work.file("data"),
            "--metrics-listen", "127.0.0.1:\(metricsPort)", "--webrtc-listen", "127.0.0.1:0",
        ], environment: TemporaryConfigHome.environment(in: work.path), errorLog: work.file("serve.err"))
        defer { serve.stop() }
        try FreePort.waitUntilListening(httpPort)
        try FreePort.waitUntilListening(metricsPort)
        // The public port does not answer metrics.
        let publicPort = try Subprocess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}",
                                                     "http://127.0.0.1:\(httpPort)/metrics"])
        #expect(publicPort.stdout == "404")

        let result = try Subprocess.run("python3", [
            work.file("metrics.py"), "ws://127.0.0.1:\(httpPort)", secretFile,
            "http://127.0.0.1:\(metricsPort)/metrics", work.path,
        ], timeout: 120)
        #expect(result.status == 0, "metrics.py: \(result.stderr)")
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Double],
                                  "\(summary)")
        #expect(report["chat"] == 5 && report["notHost"] == 1, "\(report)")
        // Five messages to four sessions, their acks, the welcomes and the live show's events.
        #expect((report["deliveries"] ?? 0) >= 5 * 4, "\(report)")
        #expect((report["hls401"] ?? 0) >= 1 && (report["hlsShowRequests"] ?? 0) >= 2, "\(report)")
        // Only bob's playlist reached the show's pictures: the request without a token was refused before.
        #expect((report["showHLSRequests"] ?? 0) >= 1, "\(report)")
        #expect((report["rtmpBytesIn"] ?? 0) > 10_000 && report["rtmpConnections"] == 1, "\(report)")
        // The playlist and the list went out over HTTP; five messages to four sessions over WebSockets.
        #expect((report["httpBytesOut"] ?? 0) > 500 && (report["webSocketBytesIn"] ?? 0) > 5 * 20, "\(report)")
        #expect((report["webSocketBytesOut"] ?? 0) > 5 * 4 * 100, "\(report)")
        #expect(report["webSockets"] == 4 && report["sessions"] == 4, "\(report)")
        #expect((report["commits"] ?? 0) >= 1 && report["commitsInf"] == report["commitsCount"], "\(report)")
        #expect(report["endedPublishes"] == 0)
        let log = try String(contentsOfFile: work.file("serve.err"), encoding: .utf8)
        #expect(!log.contains("live_"), "an OBS key reached the log")
    }
}
