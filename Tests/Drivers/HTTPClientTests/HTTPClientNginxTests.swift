import Foundation
import HTTP
import HTTPClient
import TestSupport
import Testing

/// nginx (Debian's, HTTP and HTTPS) as the server of ``HTTPClient``: GET, POST with `Location`, DELETE, headers,
/// keep-alive reuse (seen in nginx's access log), certificate verification exactly as RTMPS does it.
final class NginxHTTP: Sendable {
    let directory: TemporaryDirectory
    let port: Int
    let tlsPort: Int
    /// The self-signed certificate (and so the CA file) nginx presents.
    let certificateFile: String
    private let process: BackgroundProcess

    init(certificateName: String = "IP:127.0.0.1") throws {
        directory = try TemporaryDirectory("nginx-http")
        port = try FreePort.next()
        tlsPort = try FreePort.next()
        let certificate = try TestCertificate.make(in: directory, subjectAltName: certificateName)
        certificateFile = certificate.certificateFile
        try FileManager.default.createDirectory(atPath: directory.file("www"), withIntermediateDirectories: true)
        try "static file\n".write(toFile: directory.file("www/file.txt"), atomically: true, encoding: .utf8)
        let config = """
            \(getuid() == 0 ? "user root;" : "")
            daemon off;
            worker_processes 1;
            pid \(directory.file("nginx.pid"));
            error_log \(directory.file("error.log")) info;
            events { worker_connections 64; }
            http {
                log_format connections "$connection $connection_requests $request_method $uri $status";
                access_log \(directory.file("access.log")) connections;
                client_body_temp_path \(directory.file("body"));
                proxy_temp_path \(directory.file("proxy"));
                fastcgi_temp_path \(directory.file("fastcgi"));
                uwsgi_temp_path \(directory.file("uwsgi"));
                scgi_temp_path \(directory.file("scgi"));
                server {
                    listen 127.0.0.1:\(port);
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(certificate.certificateFile);
                    ssl_certificate_key \(certificate.keyFile);
                    root \(directory.file("www"));
                    location = /whip {
                        add_header Location /whip/resource/1 always;
                        return 201 "created\\n";
                    }
                    location /whip/resource/ { return 204; }
                    location = /authorization { return 200 "$http_authorization"; }
                }
            }
            """
        try config.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
        process = try BackgroundProcess("nginx", ["-p", directory.path, "-e", directory.file("error.log"),
                                                  "-c", directory.file("nginx.conf")])
        try FreePort.waitUntilListening(port)
        try FreePort.waitUntilListening(tlsPort)
    }

    /// nginx's access log lines: "connection requests-on-it method uri status".
    var accessLog: [String] {
        ((try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
    }

    func stop() {
        process.stop()
    }
}

@Suite(.serialized, .startsPeers)
struct HTTPClientNginxTests {
    @Test func getPostDeleteAndKeepAlive() async throws {
        let nginx = try NginxHTTP()
        defer { nginx.stop() }
        let client = try HTTPClient()
        let base = "http://127.0.0.1:\(nginx.port)"
        let file = try await client.get(base + "/file.txt")
        #expect(file.status == .ok && file.text == "static file\n")
        let again = try await client.get(base + "/file.txt")
        #expect(again.status == .ok)
        let missing = try await client.get(base + "/missing")
        #expect(missing.status == .notFound)
        let created = try await client.post(base + "/whip", headers: ["Content-Type": "application/sdp"],
                                            body: Array("v=0\r\n".utf8))
        #expect(created.status == .created)
        #expect(created.location == "/whip/resource/1")
        #expect(created.text == "created\n")
        let deleted = try await client.delete(base + "/whip/resource/1")
        #expect(deleted.status == .noContent && deleted.body.isEmpty)
        let authorization = try await client.get(base + "/authorization", headers: ["Authorization": "Bearer abc"])
        #expect(authorization.text == "Bearer abc")
        let head = try await client.send(HTTPClientRequest(method: .head, url: base + "/file.txt"))
        #expect(head.status == .ok && head.body.isEmpty && head.headers["Content-Length"] == "12")
        await client.shutdown()
        // The GETs shared one connection (its request counter goes 1, 2, 3); the POST had one of its own.
        try await Task.sleep(for: .milliseconds(200))
        let log = nginx.accessLog.map { $0.split(separator: " ") }
        let connectionOf = { (index: Int) in log[index][0] }
        #expect(log.count == 7)
        #expect(connectionOf(0) == connectionOf(1) && connectionOf(1) == connectionOf(2))
        #expect(log[2][1] == "3")
        #expect(connectionOf(3) != connectionOf(2))
    }

    /// POSTs that may not repeat each get a connection, and the pool keeps only a few of the idle ones they leave
    /// (it used to keep every one: a webhook client held a socket per event); POSTs marked `mayRepeat` share one.
    @Test func postsThatMayRepeatShareAConnectionAndIdleOnesAreBounded() async throws {
        let nginx = try NginxHTTP()
        defer { nginx.stop() }
        let client = try HTTPClient()
        let url = "http://127.0.0.1:\(nginx.port)/whip"
        for _ in 0..<12 {
            let created = try await client.post(url, body: Array("v=0\r\n".utf8))
            #expect(created.status == .created)
        }
        #expect(client.idleConnections == HTTPClient.maximumIdleConnectionsPerOrigin)
        for _ in 0..<12 {
            let created = try await client.post(url, body: Array("v=0\r\n".utf8), mayRepeat: true)
            #expect(created.status == .created)
        }
        #expect(client.idleConnections <= HTTPClient.maximumIdleConnectionsPerOrigin)
        await client.shutdown()
        #expect(client.idleConnections == 0)
        try await eventually("24 requests in nginx's log", within: .seconds(5), seen: { "\(nginx.accessLog)" }) {
            nginx.accessLog.count == 24
        }
        let log = nginx.accessLog.map { $0.split(separator: " ") }
        let first = Set(log.prefix(12).map { $0[0] })
        #expect(first.count == 12, "one connection per plain POST: \(log)")
        // The repeatable ones went on one of the idle connections, its request counter climbing.
        let repeatable = Set(log.suffix(12).map { $0[0] })
        #expect(repeatable.count == 1 && first.isSuperset(of: repeatable), "\(log)")
        #expect(log.last?[1] == "13", "\(log)")
    }

    @Test func verifiesCertificatesLikeRTMPS() async throws {
        let nginx = try NginxHTTP()
        defer { nginx.stop() }
        let url = "https://127.0.0.1:\(nginx.tlsPort)/file.txt"
        let trusting = try HTTPClient(options: .init(caFile: nginx.certificateFile))
        #expect(try await trusting.get(url).text == "static file\n")
        let strict = try HTTPClient()
        let untrusted = await #expect(throws: HTTPClientError.self) { _ = try await strict.get(url) }
        #expect(untrusted?.code == .connectFailed)
        #expect(untrusted?.description.contains("certificate") == true)
        await trusting.shutdown()
    }

    @Test func refusesACertificateForAnotherName() async throws {
        let nginx = try NginxHTTP(certificateName: "DNS:other.example")
        defer { nginx.stop() }
        let client = try HTTPClient(options: .init(caFile: nginx.certificateFile))
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.get("https://127.0.0.1:\(nginx.tlsPort)/file.txt")
        }
    }
}

/// Python's standard library as a server: chunked responses, a server that never answers, a body too large.
@Suite(.startsPeers) struct HTTPClientPythonTests {
    static let script = """
        import http.server, socketserver, sys, threading

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args):
                pass
            def do_GET(self):
                if self.path == "/chunked":
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for piece in [b"alpha,", b"beta,", b"gamma"]:
                        self.wfile.write(b"%x\\r\\n%s\\r\\n" % (len(piece), piece))
                    self.wfile.write(b"0\\r\\n\\r\\n")
                elif self.path == "/huge":
                    self.send_response(200)
                    self.send_header("Content-Length", str(3 << 20))
                    self.end_headers()
                    self.wfile.write(b"h" * (3 << 20))
                elif self.path == "/silent":
                    threading.Event().wait(10)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    @Test func readsChunkedBodiesAndEnforcesLimits() async throws {
        let peer = try PythonPeer(Self.script)
        defer { peer.stop() }
        let base = "http://127.0.0.1:\(try await peer.readLine())"
        let client = try HTTPClient(options: .init(requestTimeout: .milliseconds(500),
                                                   maximumResponseBodySize: 1 << 20))
        #expect(try await client.get(base + "/chunked").text == "alpha,beta,gamma")
        let tooLarge = await #expect(throws: HTTPClientError.self) { _ = try await client.get(base + "/huge") }
        #expect(tooLarge?.code == .responseTooLarge)
        let started = ContinuousClock.now
        let silent = await #expect(throws: HTTPClientError.self) { _ = try await client.get(base + "/silent") }
        #expect(silent?.code == .timeout)
        #expect(ContinuousClock.now - started < .seconds(3))
        await #expect(throws: HTTPClientError.self) { _ = try await client.get("not a url") }
        await client.shutdown()
    }
}
