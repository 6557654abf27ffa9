import Foundation
import TestSupport
import Testing

/// docs/deploy.md's two files, as far as this machine allows: the systemd unit passes `systemd-analyze verify`, and
/// the nginx site, with only its ports, certificate and upstream address changed, fronts a real `stream serve
/// --shows` over TLS: HTTPS requests, a live-show WebSocket and a plain publish's LL-HLS go through it.
@Suite(.startsPeers) struct DeployTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/deploy")

    @Test func theSystemdUnitVerifies() throws {
        let work = try TemporaryDirectory("deploy-unit")
        var unit = try String(contentsOf: Self.docs.appendingPathComponent("stream.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/stream serve --config"))
        // The unit names the installed binary; here it is the one just built.
        unit = unit.replacingOccurrences(of: "/usr/local/bin/stream", with: try StreamExecutable.url().path)
        try unit.write(toFile: work.file("stream.service"), atomically: true, encoding: .utf8)
        let verified = try Subprocess.run("systemd-analyze", ["verify", work.file("stream.service")], timeout: 30)
        #expect(verified.status == 0 && !verified.stderr.contains("stream.service"),
                "systemd-analyze verify: \(verified.stdout)\(verified.stderr)")
    }

    @Test func nginxFrontsTheServerOverTLS() throws {
        let server = try LiveShowServer()
        defer { server.stop() }
        let work = server.work
        let certificate = try TestCertificate.make(in: work, name: "front")
        let (tlsPort, plainPort) = (try FreePort.next(), try FreePort.next())
        var site = try String(contentsOf: Self.docs.appendingPathComponent("nginx-stream.conf"), encoding: .utf8)
        for (from, to) in [
            ("listen 443 ssl;", "listen 127.0.0.1:\(tlsPort) ssl;"), ("listen [::]:443 ssl;", ""),
            ("listen 80;", "listen 127.0.0.1:\(plainPort);"), ("listen [::]:80;", ""),
            ("/etc/letsencrypt/live/live.example.com/fullchain.pem", certificate.certificateFile),
            ("/etc/letsencrypt/live/live.example.com/privkey.pem", certificate.keyFile),
            ("127.0.0.1:8080", "127.0.0.1:\(server.httpPort)"),
        ] {
            #expect(site.contains(from), "the site no longer has \(from)")
            site = site.replacingOccurrences(of: from, with: to)
        }
        let temporary = work.file("nginx")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let config = """
            \(getuid() == 0 ? "user root;" : "")
            daemon off;
            worker_processes 1;
            pid \(temporary)/nginx.pid;
            error_log \(temporary)/error.log info;
            events { worker_connections 64; }
            http {
                access_log \(temporary)/access.log;
                client_body_temp_path \(temporary)/body;
                proxy_temp_path \(temporary)/proxy;
                fastcgi_temp_path \(temporary)/fastcgi;
                uwsgi_temp_path \(temporary)/uwsgi;
                scgi_temp_path \(temporary)/scgi;
            \(site)
            }
            """
        try config.write(toFile: temporary + "/nginx.conf", atomically: true, encoding: .utf8)
        let nginx = try BackgroundProcess(try Subprocess.resolve("nginx"),
                                          ["-p", temporary, "-e", temporary + "/error.log", "-c",
                                           temporary + "/nginx.conf"], errorLog: temporary + "/stderr.log")
        defer { nginx.stop() }
        try FreePort.waitUntilListening(tlsPort)
        let front = "https://127.0.0.1:\(tlsPort)"
        let curl = { (path: String) throws -> (status: String, body: String) in
            let result = try Subprocess.run("curl", ["-s", "--cacert", certificate.certificateFile, "-w",
                                                     "\n%{http_code}", front + path], timeout: 30)
            let body = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(body.last ?? ""), body.dropLast().joined(separator: "\n"))
        }
        #expect(try curl("/v1/health").status == "200")
        let page = try curl("/watch/show:mugs")
        #expect(page.status == "200" && page.body.contains("<html"), "\(page.status) \(page.body.prefix(200))")
        let card = try curl("/v1/streams/show:mugs")
        #expect(card.status == "200" && card.body.contains("\"state\""), "\(card)")
        let redirect = try Subprocess.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                                   "http://127.0.0.1:\(plainPort)/watch/show:mugs"], timeout: 30)
        #expect(redirect.stdout.hasPrefix("301 https://"), "plain HTTP sends to HTTPS: \(redirect.stdout)")

        // A live-show WebSocket through the front (wss, the test's certificate trusted) joins the show.
        try LiveShowPeers.client.write(toFile: work.file("liveclient.py"), atomically: true, encoding: .utf8)
        try """
            import asyncio, sys
            from liveclient import Client, mint
            async def main():
                bob = await Client(sys.argv[1], "show:mugs", mint(open(sys.argv[2]).read().strip(), "bob"),
                                   label="bob").open()
                reply = await bob.join()
                assert reply["ok"], reply
                print("joined")
            asyncio.run(main())
            """.write(toFile: work.file("join.py"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["SSL_CERT_FILE"] = certificate.certificateFile
        let joined = try Subprocess.run("python3", [work.file("join.py"), "wss://127.0.0.1:\(tlsPort)",
                                                    server.secretFile], timeout: 30, environment: environment)
        #expect(joined.status == 0 && joined.stdout.hasPrefix("joined"), "\(joined.stdout)\(joined.stderr)")

        // A plain publish's LL-HLS playlist through the front, held until its parts exist.
        let ffmpeg = try BackgroundProcess("ffmpeg", ReloadServeTests.publish(
            "rtmp://127.0.0.1:\(server.rtmpPort)/live/deploy-key", seconds: 8), errorLog: work.file("ffmpeg.err"))
        defer { ffmpeg.stop() }
        let address = try #require(try Self.hlsAddress(in: server), "no LL-HLS address in the log")
        let hls = try #require(address.range(of: "/hls/"), "\(address)")
        let path = String(address[hls.lowerBound...])
        var playlist = (status: "", body: "")
        let deadline = Date().addingTimeInterval(20)
        repeat {
            playlist = try curl(path)  // 404 until the first segment is cut, then held until its parts exist
            if !playlist.body.contains("#EXT-X-PART:") { usleep(200_000) }
        } while !playlist.body.contains("#EXT-X-PART:") && Date() < deadline
        #expect(playlist.status == "200" && playlist.body.hasPrefix("#EXTM3U")
                    && playlist.body.contains("#EXT-X-PART:"), "\(playlist)")
    }

    /// The LL-HLS address the server printed for the publish, within 20 s.
    static func hlsAddress(in server: LiveShowServer) throws -> String? {
        let deadline = Date().addingTimeInterval(20)
        while let line = try? server.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) {
            if let start = line.range(of: "LL-HLS: http") {
                return line[start.lowerBound...].dropFirst("LL-HLS: ".count).split(separator: " ").first.map(String.init)
            }
        }
        return nil
    }
}
