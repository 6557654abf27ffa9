import HTTP
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import Transport
import WebSocket

/// The server over TLS with the Swift clients: HTTPS and wss, certificates verified against the test CA.
@Suite(.startsPeers) struct TLSTests {
    @Test func clientsTalkToTheServerOverTLS() async throws {
        let directory = try TemporaryDirectory("tls")
        let certificate = try TestCertificate.make(in: directory)
        let tls = TLSServerConfiguration(certificateFile: certificate.certificateFile,
                                         privateKeyFile: certificate.keyFile)
        let server = try await TestServer(configuration: .init(listen: nil, tlsListen: ("127.0.0.1", 0, tls)))
        let base = "127.0.0.1:\(server.port)"
        let http = try HTTPClient(options: .init(caFile: certificate.certificateFile))
        let hello = try await http.get("https://\(base)/hello")
        #expect(hello.status == .ok && hello.text == "hello")
        let echo = try await http.post("https://\(base)/echo", body: Array("over tls".utf8))
        #expect(echo.text == "over tls" && echo.headers["X-Body-Length"] == "8")
        await http.shutdown()

        let socket = try await WebSocketClient.connect(to: "wss://\(base)/ws", subprotocols: ["chat"],
                                                       options: .init(caFile: certificate.certificateFile))
        #expect(socket.subprotocol == "chat")
        let large = [UInt8](repeating: 0x5A, count: 300_000)
        try await socket.send(binary: large)
        #expect(await socket.receive() == .binary(large))
        #expect(await socket.close(code: .normalClosure).code == .normalClosure)

        let untrusted = await #expect(throws: HTTPClientError.self) {
            _ = try await WebSocketClient.connect(to: "wss://\(base)/ws")
        }
        #expect(untrusted?.code == .connectFailed)
        await server.stop()
    }
}
