import Foundation
import HTTP
import HTTPServer
import Locking
import TestSupport
import Transport
import WebSocket

/// An ``HTTPServer`` on a free loopback port with the routes the tests use:
/// - `GET /hello` (on the loop) and `GET /slow` (async, answers after 50 ms),
/// - `POST /echo` (async): the body back, with `X-Body-Length`,
/// - `GET /stream`: a chunked body written in three pieces,
/// - `/files/…`: static files from a temporary directory (`small.txt`, `big.bin` of 1 MiB, `index.html`),
/// - `/ws`: a WebSocket echo (also of fragmented messages), subprotocols "chat" and "superchat" offered → "chat",
/// - `/v1/streams/{name}`: a WebSocket that needs a token (`access_token` or `Authorization: Bearer`), and whose
///   sessions are collected for broadcasts.
final class TestServer: Sendable {
    let server: HTTPServer
    let port: Int
    let tlsPort: Int?
    let files: TemporaryDirectory
    let events = Locked<[HTTPServerEvent]>([])
    let sessions = Watched<[WebSocketSession]>([])
    let closes = Locked<[WebSocketClose]>([])

    static let token = "t0ken-secret"
    static let smallText = "hello, small file\n"

    init(configuration: HTTPServer.Configuration = .init(listen: ("127.0.0.1", 0)),
         webSocketOptions: WebSocketOptions = WebSocketOptions(),
         extraRoutes: (inout HTTPRouter) -> Void = { _ in }) async throws {
        let files = try TemporaryDirectory("http-files")
        try TestServer.smallText.write(toFile: files.file("small.txt"), atomically: true, encoding: .utf8)
        // 1 MiB: a 4 KiB pattern (with no period of 256) written 256 times.
        let block = Data((0..<4093).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
        _ = FileManager.default.createFile(atPath: files.file("big.bin"), contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: files.file("big.bin")))
        var written = 0
        while written < 1 << 20 {
            let piece = block.prefix((1 << 20) - written)
            try handle.write(contentsOf: piece)
            written += piece.count
        }
        try handle.close()
        try "<!doctype html><title>index</title>".write(toFile: files.file("index.html"), atomically: true,
                                                        encoding: .utf8)
        self.files = files
        var router = HTTPRouter()
        router.add(.get, "/hello", .immediate { _ in .text("hello") })
        router.get("/slow") { _ in
            try await Task.sleep(for: .milliseconds(50))
            return .text("slow")
        }
        router.post("/echo", bodyLimit: 4 << 20) { request in
            var response = HTTPResponse(status: .ok, headers: ["X-Body-Length": "\(request.body.count)"],
                                        body: .bytes(request.body))
            response.headers.add("Content-Type", "application/octet-stream")
            return response
        }
        router.add(.get, "/stream", .immediate { _ in
            HTTPResponse(body: .stream { writer in
                for piece in ["one,", "two,", "three"] {
                    try await writer.write(piece)
                    try await Task.sleep(for: .milliseconds(10))
                }
            })
        })
        router.files("/files", directory: files.path)
        let closes = self.closes
        router.webSocket("/ws", options: webSocketOptions) { _, offer in
            let chosen = offer.protocols.contains("chat") ? "chat" : nil
            return .accept(WebSocketHandlers(onMessage: { session, message in
                session.send(message)
            }, onClose: { _, close in
                closes.withLock { $0.append(close) }
            }), subprotocol: chosen)
        }
        let sessions = self.sessions
        router.webSocket("/v1/streams/{name}", options: webSocketOptions) { request, _ in
            guard (request.queryValue("access_token") ?? request.bearerToken) == TestServer.token else {
                return .reject(.status(.unauthorized))
            }
            return .accept(WebSocketHandlers(onOpen: { session in
                sessions.update { $0.append(session) }
            }, onMessage: { _, _ in }, onClose: { _, close in
                closes.withLock { $0.append(close) }
            }))
        }
        extraRoutes(&router)
        var configuration = configuration
        let events = self.events
        configuration.onEvent = { event in events.withLock { $0.append(event) } }
        server = try HTTPServer(configuration: configuration, router: router)
        let ports = try await server.start()
        port = try require(ports.http ?? ports.https)
        tlsPort = ports.https
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func stop() async {
        await server.stop()
    }
}

/// The `#require` of Swift Testing for use outside a test function.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw Subprocess.Failure(description: "missing value") }
    return value
}
