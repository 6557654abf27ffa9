import Testing
@testable import Transport

@Suite struct AsyncConnectionTests {
    @Test(arguments: [false, true])
    func echoesEightMegabytesThroughOwnListener(tls: Bool) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop, tls: tls ? certificates.serverConfiguration : nil) {
                $0.handler = EchoHandler()
            }
            let client = try await AsyncConnection.connect(
                host: "127.0.0.1", port: port,
                tls: tls ? TLSClientConfiguration(serverName: "127.0.0.1", caFile: certificates.serverCertificate)
                    : nil,
                timeout: .seconds(5), loop: loop)
            let data = payload(count: 8 * 1024 * 1024)
            try client.write(data)
            // The write is reserved at once; what the loop has not yet handed to the kernel is counted, never more
            // than was written (loopback buffers may already hold all of it, so zero is allowed).
            #expect(client.queuedBytes <= data.count)
            async let echoed = readExactly(data.count, from: client)
            try await client.waitForDrain(below: 1)
            #expect(client.queuedBytes == 0)
            let received = try await echoed
            #expect(received.count == data.count)
            #expect(sameBytes(received, data))
            await client.close()
            #expect(try await client.read() == nil)
        }
    }

    @Test(arguments: [false, true])
    func closeSendsEverythingQueuedFirst(tls: Bool) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let log = CloseLog()
            let counter = ByteCounter(log: log)
            let (port, _) = try await startListener(on: loop, tls: tls ? certificates.serverConfiguration : nil) {
                $0.handler = counter
            }
            let client = try await AsyncConnection.connect(
                host: "127.0.0.1", port: port,
                tls: tls ? TLSClientConfiguration(serverName: "127.0.0.1", caFile: certificates.serverCertificate)
                    : nil,
                timeout: .seconds(5), loop: loop)
            let size = 8 << 20
            try client.write([UInt8](repeating: 9, count: size))
            await client.close(flushTimeout: .seconds(5))
            #expect(client.queuedBytes == 0)
            let closes = try await log.wait(for: 1)
            #expect(counter.total == size)
            // The server saw an orderly end: a FIN, or with TLS a close_notify.
            #expect(closes.count == 1)
            #expect(closes.first == .some(nil))
        }
    }

    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("localhost", "127.0.0.1")])
    func connectsOverIPv4AndIPv6Loopback(connectHost: String, listenHost: String) async throws {
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop, host: listenHost) { $0.handler = EchoHandler() }
            let client = try await AsyncConnection.connect(host: connectHost, port: port, timeout: .seconds(5),
                                                           loop: loop)
            try client.write(Array("ping".utf8))
            #expect(try await readExactly(4, from: client) == Array("ping".utf8))
            await client.close()
        }
    }

    @Test func writeBeyondTheLimitThrowsAndQueuesNothing() async throws {
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop) { $0.handler = SilentHandler() }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           writeBufferLimit: 1000, loop: loop)
            let error = #expect(throws: TransportError.self) { try client.write([UInt8](repeating: 0, count: 1001)) }
            #expect(error?.code == .bufferLimitExceeded)
            #expect(error?.description.contains("1000-byte limit") == true)
            #expect(client.queuedBytes == 0)
            await client.close()
        }
    }

    @Test func refusedConnectionNamesHostAndPort() async throws {
        try await withLoop { loop in
            let port = try await freePort(on: loop)
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5), loop: loop)
            }
            #expect(error?.code == .connectionRefused)
            #expect(error?.description.contains("127.0.0.1:\(port)") == true)
        }
    }

    @Test func unknownHostIsADNSFailureAndFailsFast() async throws {
        try await withLoop { loop in
            let start = ContinuousClock.now
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(host: "nonexistent.invalid", port: 1935, timeout: .seconds(20),
                                                  loop: loop)
            }
            // The resolver's own answer, not the connect timeout, ends the attempt.
            #expect(error?.code == .dnsFailure)
            #expect(error?.description.contains("nonexistent.invalid") == true)
            #expect(start.duration(to: .now) < .seconds(20))
        }
    }

    @Test func peerClosingMidStreamIsReported() async throws {
        try await withLoop { loop in
            // Reads one chunk, then closes with the rest unread: the kernel resets the connection.
            final class CloseAfterFirstRead: ConnectionHandler {
                func connectionDidRead(_ connection: Connection, bytes: [UInt8]) { connection.close() }
                func connectionDidClose(_ connection: Connection, error: TransportError?) {}
            }
            let (port, _) = try await startListener(on: loop) { $0.handler = CloseAfterFirstRead() }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           writeBufferLimit: 64 << 20, loop: loop)
            try client.write([UInt8](repeating: 7, count: 32 << 20))
            let error = await #expect(throws: TransportError.self) { try await client.waitForDrain(below: 1) }
            #expect(error?.code == .peerClosed)
            #expect(error?.description.contains("127.0.0.1:\(port)") == true)
            #expect(throws: TransportError.self) { try client.write([1]) }
        }
    }
}
