import Foundation
import IngestServer
import TestSupport
import Testing

/// A query in the ingest URL (`rtmp://host/live?x=1`, where ingests put tokens) stays in `tcUrl` and is not part
/// of the application name, as nginx-rtmp and ffmpeg treat it.
@Suite(.serialized) struct QueryURLTests {
    /// An HTTP server in Python that answers every POST with 200 and appends "PATH BODY" lines to a file: the
    /// target of nginx-rtmp's `on_connect`/`on_publish` callbacks.
    static let callbackServer = """
        import http.server, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                with open(sys.argv[2], "a") as calls:
                    calls.write(self.path + " " + body + "\\n")
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *arguments):
                pass
        http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
        """

    @Test func ourPublisherKeepsTheQueryInTcUrlAndNginxFilesItUnderTheApp() async throws {
        let work = try TemporaryDirectory("query-nginx")
        let script = work.file("callbacks.py")
        try Self.callbackServer.write(toFile: script, atomically: true, encoding: .utf8)
        let calls = work.file("calls.txt")
        let callbackPort = try FreePort.next()
        let callbacks = try BackgroundProcess("python3", [script, "\(callbackPort)", calls])
        defer { callbacks.stop() }
        try FreePort.waitUntilListening(callbackPort)
        let nginx = try NginxRTMP(serverDirectives: "on_connect http://127.0.0.1:\(callbackPort)/connect;",
                                  applicationDirectives: "on_publish http://127.0.0.1:\(callbackPort)/publish;")
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 1)
        try await FLVPublishing.publish(file: fixture, to: nginx.rtmpURL + "?token=t1", key: "query-key")
        nginx.stop()

        let lines = try String(contentsOfFile: calls, encoding: .utf8).split(separator: "\n")
        let connect = try #require(lines.first { $0.hasPrefix("/connect ") }, "\(lines)")
        let fields = Set(connect.dropFirst("/connect ".count).split(separator: "&").map(String.init))
        // nginx-rtmp's application is `live`, the query reaches the callback as arguments and stays in tcUrl.
        #expect(fields.contains("app=live"), "\(connect)")
        #expect(fields.contains("token=t1"), "\(connect)")
        #expect(fields.contains("tcurl=\(nginx.rtmpURL)%3Ftoken=t1"), "\(connect)")
        let publish = try #require(lines.first { $0.hasPrefix("/publish ") }, "\(lines)")
        #expect(publish.contains("app=live&") && publish.contains("name=query-key&"), "\(publish)")
        let recording = try #require(nginx.recordings().first, "nginx recorded nothing: \(nginx.errorLog)")
        #expect(URL(fileURLWithPath: recording).lastPathComponent.hasPrefix("query-key-"))
    }

    @Test func ffmpegPublishingWithAQueryLandsInTheAppWithoutIt() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 1)
        // ffmpeg sends app `live?x=1` and tcUrl `rtmp://127.0.0.1:PORT/live?x=1`, and publishes `key?s=2`.
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "rtmp://127.0.0.1:\(port)/live?x=1/query-key?s=2"], timeout: 20)
        running.server.stop()
        #expect(push.status == 0, "\(push.stderr)")
        let tag = StreamKeyTag.tag("query-key")
        #expect(running.log.all.contains { if case .publishStarted("live", tag, _) = $0 { true } else { false } },
                "\(running.log.text)")
        let recording = try #require(try running.recordingFiles().first)
        #expect(URL(fileURLWithPath: recording).lastPathComponent.hasPrefix("live-\(tag.dropFirst())-"))
        #expect(try ProbeReport.probe(recording).video?.frameCount == 30)
    }
}
