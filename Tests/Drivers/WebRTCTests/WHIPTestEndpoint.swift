import Foundation
import TestSupport

/// A WHIP endpoint for tests, written in Python around an independent WebRTC stack (aiortc, or Chromium driven by
/// Playwright): a small HTTP/1.1 server over asyncio that answers a POSTed offer (with the right bearer token) with
/// `201 Created`, the peer's answer and a `Location`, and on DELETE of that location writes `results.json`.
///
/// The peer part of the script defines `setup()`, `on_offer(sdp) -> answer` and `teardown()`, and fills `results`.
struct WHIPTestEndpoint {
    let directory: URL
    let process: BackgroundProcess
    let port: Int
    let token: String

    /// Starts `python3` with the shared HTTP part and `peer`, passing `arguments` after the output directory and
    /// the token (`sys.argv[3:]`).
    init(name: String, peer: String, arguments: [String], environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("whip_endpoint.py")
        try (Self.http + peer + "\nasyncio.run(main())\n").write(to: script, atomically: true, encoding: .utf8)
        token = UUID().uuidString
        usesTLS = environment["WHIP_TLS_CERT"] != nil
        process = try BackgroundProcess("python3", [script.path, directory.path, token] + arguments,
                                        environment: environment,
                                        errorLog: directory.appendingPathComponent("stderr.log").path)
        let line = try process.readLine(timeout: 60)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw Subprocess.Failure(description: "the \(name) endpoint said \"\(line)\"; see \(directory.path)")
        }
        self.port = port
    }

    /// Where to POST the offer (https when the endpoint was started with a certificate).
    var url: URL { URL(string: "\(usesTLS ? "https" : "http")://127.0.0.1:\(port)/whip")! }

    /// Whether the endpoint speaks TLS (`WHIP_TLS_CERT` and `WHIP_TLS_KEY` in its environment).
    var usesTLS: Bool

    /// The endpoint's standard error, for failure messages.
    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// Waits for the endpoint to write its results after DELETE, and reads them.
    func results() throws -> [String: Any] {
        _ = process.waitForExit(timeout: 30)
        let data = try Data(contentsOf: directory.appendingPathComponent("results.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// A file the endpoint wrote.
    func file(named name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The HTTP side: WHIP's POST, DELETE and a page for a browser at `/`; `POST /whip/overloaded` answers 503 and
    /// `POST /whip/broken` answers 201 with SDP that is not a usable answer.
    static let http = #"""
    import asyncio, json, os, random, sys, time

    OUT, TOKEN, ARGS = sys.argv[1], sys.argv[2], sys.argv[3:]
    # The endpoint ends after this many sessions were DELETEd (a publisher that reconnects makes several).
    SESSIONS = int(os.environ.get("WHIP_SESSIONS", "1"))
    results = {"deleted": False, "refused": 0, "offers": 0, "deletes": 0}
    finished = asyncio.Event()
    PAGE = b"<!doctype html><title>WHIP receiver</title><body></body>"

    def respond(writer, status, body=b"", headers=()):
        reason = {200: "OK", 201: "Created", 401: "Unauthorized", 404: "Not Found"}.get(status, "Error")
        head = "HTTP/1.1 %d %s\r\nContent-Length: %d\r\nConnection: close\r\n" % (status, reason, len(body))
        for name, value in headers:
            head += "%s: %s\r\n" % (name, value)
        writer.write(head.encode() + b"\r\n" + body)

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            method, path = lines[0].split(" ")[:2]
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if method == "GET" and path == "/":
                respond(writer, 200, PAGE, [("Content-Type", "text/html")])
            elif headers.get("authorization") != "Bearer " + TOKEN:
                results["refused"] += 1
                respond(writer, 401, b"bad token")
            elif method == "POST" and path == "/whip/overloaded":
                respond(writer, 503, b"overloaded, try later")
            elif method == "POST" and path == "/whip/broken":
                respond(writer, 201, b"v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\nm=video 9 RTP/AVP 96\r\n",
                        [("Content-Type", "application/sdp"), ("Location", "/whip/session")])
            elif method == "DELETE" and path.startswith("/whip/session"):
                results["deletes"] += 1
                respond(writer, 200)
                if results["deletes"] >= SESSIONS:
                    results["deleted"] = True
                    finished.set()
            elif method == "POST" and path == "/whip":
                results["offers"] += 1
                results.setdefault("offer", body.decode())
                answer = await on_offer(body.decode())
                location = "/whip/session" if results["offers"] == 1 else "/whip/session-%d" % results["offers"]
                respond(writer, 201, answer.encode(), [("Content-Type", "application/sdp"),
                                                       ("Location", location)])
            else:
                respond(writer, 404)
            await writer.drain()
        finally:
            writer.close()

    async def main():
        context = None
        if os.environ.get("WHIP_TLS_CERT"):
            import ssl
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(os.environ["WHIP_TLS_CERT"], os.environ["WHIP_TLS_KEY"])
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
        global PORT
        PORT = server.sockets[0].getsockname()[1]
        await setup()
        print("PORT %d" % PORT, flush=True)
        try:
            await asyncio.wait_for(finished.wait(), timeout=120)
        except asyncio.TimeoutError:
            pass
        await teardown()
        with open(os.path.join(OUT, "results.json"), "w") as f:
            json.dump(results, f)

    """#
}
