import Locking
import TestSupport
import Testing
@testable import Transport

@Suite struct ConnectionTests {
    /// Connects a loop-level client whose close is recorded in `log`.
    private func connect(to port: Int, tls: TLSClientConfiguration? = nil, timeout: Duration = .seconds(5),
                         log: CloseLog, on loop: EventLoop) async throws -> LoopBound<Connection> {
        try await loop.submit {
            let connection = Connection.connect(host: "127.0.0.1", port: port, tls: tls, timeout: timeout, on: loop,
                                                handler: LoggingHandler(log: log))
            return LoopBound(connection, loop: loop)
        }
    }

    @Test func writeBeyondTheLimitThrowsAndKeepsTheConnection() async throws {
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop) { $0.handler = SilentHandler() }
            let log = CloseLog()
            let (connection, first, second, queued) = try await loop.submit {
                let connection = Connection.connect(host: "127.0.0.1", port: port, tls: nil, timeout: .seconds(5),
                                                    on: loop, handler: LoggingHandler(log: log))
                connection.writeBufferLimit = 10
                // Written before the connection opens (it is still resolving): the bytes wait in the queue.
                let first = Result { () throws(TransportError) in try connection.write(Array(repeating: 1, count: 6)) }
                let second = Result { () throws(TransportError) in try connection.write(Array(repeating: 2, count: 5)) }
                return (LoopBound(connection, loop: loop), first, second, connection.queuedBytes)
            }
            #expect(throws: Never.self) { try first.get() }
            let error = #expect(throws: TransportError.self) { try second.get() }
            #expect(error?.code == .bufferLimitExceeded)
            #expect(queued == 6)
            try await loop.submit { connection.value.close() }
            #expect(try await log.wait(for: 1).count == 1)
        }
    }

    @Test func pausedReadingHoldsThePeerBackUntilResumed() async throws {
        try await withLoop { loop in
            let accepted = AcceptedConnections()
            let counter = ByteCounter()
            let (port, _) = try await startListener(on: loop) { connection in
                connection.handler = counter
                connection.pauseReading()
                accepted.add(LoopBound(connection, loop: loop))
            }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           writeBufferLimit: 64 << 20, loop: loop)
            let size = 32 << 20
            try client.write([UInt8](repeating: 5, count: size))
            // The write runs in a loop turn and flushes at its end, until the kernel takes no more; the server's
            // kernel then holds bytes, and a server that read them would do so in the next turn.
            try await eventually("the server's kernel to acknowledge bytes") {
                try await loop.submit {}
                return (await client.bytesAcknowledged() ?? 0) > 0
            }
            try await loop.submit {}
            try await loop.submit {}
            // The server reads nothing, so the kernel buffers fill and most of the 32 MB stays queued here.
            #expect(client.queuedBytes > size / 2)
            #expect(counter.total == 0)
            let server = try #require(accepted.first)
            try await loop.submit { server.value.resumeReading() }
            try await client.waitForDrain(below: 1)
            try await counter.wait(forTotal: size)
            #expect(counter.total == size)
            await client.close()
        }
    }

    /// Bytes the kernel takes from a client whose peer reads nothing, with the given SO_SNDBUF.
    private func bytesTheKernelTakes(sendBufferSize: Int?) async throws -> Int {
        try await withLoop { loop in
            let accepted = AcceptedConnections()
            let (port, _) = try await startListener(on: loop) { connection in
                connection.handler = ByteCounter()
                connection.pauseReading()
                accepted.add(LoopBound(connection, loop: loop))
            }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           writeBufferLimit: 64 << 20,
                                                           sendBufferSize: sendBufferSize, loop: loop)
            let size = 32 << 20
            try client.write([UInt8](repeating: 7, count: size))
            // The kernel fills its buffers at once; wait until the count stops moving.
            var taken = 0
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(40))
                let now = size - client.queuedBytes
                if now == taken && now > 0 { break }
                taken = now
            }
            await client.close(flushTimeout: .zero)
            return taken
        }
    }

    @Test func aFixedSendBufferBoundsWhatTheKernelTakesFromTheQueue() async throws {
        let fixed = try await bytesTheKernelTakes(sendBufferSize: 64 << 10)
        let automatic = try await bytesTheKernelTakes(sendBufferSize: nil)
        print("a peer that reads nothing: the kernel took \(fixed) bytes with SO_SNDBUF 64 KiB, \(automatic) with "
              + "auto-tuning")
        // 64 KiB (doubled by Linux) in the send buffer plus the peer's default receive buffer.
        #expect(fixed > 0)
        #expect(fixed < 1 << 20, "the kernel took \(fixed) bytes")
        #expect(fixed < automatic, "auto-tuned: \(automatic) bytes, fixed: \(fixed) bytes")
    }

    @Test func idleTimeoutClosesASilentConnection() async throws {
        try await withLoop { loop in
            let log = CloseLog()
            let (port, _) = try await startListener(on: loop) { connection in
                connection.idleTimeout = .milliseconds(300)
                connection.handler = LoggingHandler(log: log)
            }
            let start = ContinuousClock.now
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           loop: loop)
            // The server's close reaches us as an orderly end of stream.
            #expect(try await client.read() == nil)
            #expect(start.duration(to: .now) >= .milliseconds(300))
            let closes = try await log.wait(for: 1)
            #expect(closes.count == 1)
            #expect(closes.first??.code == .timeout)
            #expect(closes.first??.description.contains("idle timeout") == true)
        }
    }

    @Test func idleTimeoutSparesAConnectionThatTalks() async throws {
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop) { connection in
                connection.idleTimeout = .seconds(2)
                connection.handler = EchoHandler()
            }
            let client = try await AsyncConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5),
                                                           loop: loop)
            // 25 × 100 ms outlasts the 2 s idle timeout; the gaps stay far below it even on a loaded machine.
            for _ in 0..<25 {
                try await Task.sleep(for: .milliseconds(100))
                try client.write([42])
                #expect(try await client.read() == [42])
            }
            await client.close()
        }
    }

    @Test func tlsHandshakeWithASilentServerTimesOut() async throws {
        try await withLoop { loop in
            // Accepts TCP but never speaks TLS.
            let (port, _) = try await startListener(on: loop) { $0.handler = SilentHandler() }
            let start = ContinuousClock.now
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(host: "127.0.0.1", port: port,
                                                  tls: TLSClientConfiguration(serverName: "127.0.0.1"),
                                                  timeout: .seconds(2), loop: loop)
            }
            #expect(error?.code == .timeout)
            #expect(error?.description.contains("TLS handshake with 127.0.0.1:\(port)") == true,
                    "\(error?.description ?? "")")
            #expect(start.duration(to: .now) < .seconds(30), "the handshake timeout must end the attempt, not a hang")
        }
    }

    @Test func connectFailureReachesTheHandler() async throws {
        try await withLoop { loop in
            let port = try await freePort(on: loop)
            let log = CloseLog()
            _ = try await connect(to: port, log: log, on: loop)
            let closes = try await log.wait(for: 1)
            #expect(closes.first??.code == .connectionRefused)
        }
    }
}

/// Server-side connections handed out of `onAccept`, for a test to act on later through the loop.
private final class AcceptedConnections: Sendable {
    private let connections = Locked<[LoopBound<Connection>]>([])
    var first: LoopBound<Connection>? { connections.withLock { $0.first } }
    func add(_ connection: LoopBound<Connection>) { connections.withLock { $0.append(connection) } }
}
