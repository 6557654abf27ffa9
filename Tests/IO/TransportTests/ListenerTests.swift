import Testing
@testable import Transport

@Suite struct ListenerTests {
    @Test func maxConnectionsIsEnforced() async throws {
        try await withLoop { loop in
            let closes = CloseLog()
            let (port, listener) = try await startListener(on: loop, maxConnections: 2) {
                $0.handler = LoggedEchoHandler(log: closes)
            }
            func echoingClient() async throws -> AsyncConnection {
                let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                               loop: loop)
                try client.write([1])
                #expect(try await client.read() == [1])
                return client
            }
            let first = try await echoingClient()
            let second = try await echoingClient()
            #expect(try await loop.submit { listener.value.connectionCount } == 2)

            // The third is accepted by the kernel, then closed by the listener at once.
            let third = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                          loop: loop)
            #expect(try await third.read() == nil)

            // A closed slot can be used again.
            await first.close()
            // The refused third was never handed a handler: the one close logged is the first's, and the listener
            // counts a close before the handler hears of it.
            #expect(try await closes.wait(for: 1).count == 1)
            #expect(try await loop.submit { listener.value.connectionCount } == 1)
            let fourth = try await echoingClient()
            await fourth.close()
            await second.close()
        }
    }

    @Test func slowTLSHandshakeIsClosedByTheServer() async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let log = CloseLog()
            let (port, _) = try await startListener(on: loop, tls: certificates.serverConfiguration,
                                                    handshakeTimeout: .milliseconds(300)) {
                $0.handler = LoggingHandler(log: log)
            }
            // Plain TCP that never sends a ClientHello.
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           loop: loop)
            #expect(try await client.read() == nil)
            let closes = try await log.wait(for: 1)
            #expect(closes.first??.code == .timeout)
            #expect(closes.first??.description.contains("TLS handshake") == true)
        }
    }

    @Test func missingCertificateFileIsNamed() async throws {
        try await withLoop { loop in
            let configuration = TLSServerConfiguration(certificateFile: "/nonexistent/cert.pem",
                                                       privateKeyFile: "/nonexistent/key.pem")
            let error = await #expect(throws: TransportError.self) {
                _ = try await startListener(on: loop, tls: configuration) { $0.close() }
            }
            #expect(error?.code == .tlsFailure)
            #expect(error?.description.contains("/nonexistent/cert.pem") == true)
        }
    }

    @Test func portInUseIsAListenFailure() async throws {
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop) { $0.close() }
            let error = await #expect(throws: TransportError.self) {
                try await loop.submit {
                    _ = try Listener.listen(port: port, maxConnections: 1, on: loop) { $0.close() }
                }
            }
            #expect(error?.code == .listenFailed)
            #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        }
    }
}

/// Echoes like ``EchoHandler`` and logs its close.
private final class LoggedEchoHandler: ConnectionHandler {
    private let echo = EchoHandler()
    private let log: CloseLog
    init(log: CloseLog) { self.log = log }
    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        echo.connectionDidRead(connection, bytes: bytes)
    }
    func connectionDidDrain(_ connection: Connection) { echo.connectionDidDrain(connection) }
    func connectionDidClose(_ connection: Connection, error: TransportError?) { log.record(error) }
}
