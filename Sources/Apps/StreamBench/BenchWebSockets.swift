#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Locking
import Transport
import WebSocket

/// Many WebSocket clients on one event loop, without a task each (items 10 and 11): every client is a
/// ``Connection`` running the opening handshake and a client ``WebSocketMachine``. They count the messages they
/// receive and, for fan-out messages that carry their send time (`"t":<monotonic ns>`), the delivery latency.
final class BenchWebSockets: Sendable {
    let loop: EventLoop
    private let state = Locked(State())

    private struct State {
        var opened = 0
        var failed: [String] = []
        var latencies: [Double] = []
        /// Messages sent at or after this monotonic time are measured (nil: none).
        var recordingSince: UInt64?
        var clients: [LoopBound<BenchWebSocket>] = []
    }

    init() throws {
        loop = try EventLoop(name: "bench-ws-clients")
    }

    /// Opens `count` WebSockets to 127.0.0.1:`port``path`, `batch` handshakes at a time (the listen backlog is
    /// 128), and returns once all are open.
    func open(count: Int, port: Int, path: String, batch: Int = 100) throws {
        var started = 0
        while started < count {
            let size = min(batch, count - started)
            let target = state.withLock { $0.opened + $0.failed.count } + size
            for _ in 0..<size {
                loop.execute { [self] in
                    let client = BenchWebSocket(owner: self, path: path)
                    client.connection = Connection.connect(host: "127.0.0.1", port: port, tls: nil,
                                                           timeout: .seconds(20), on: loop, handler: client)
                    state.withLock { $0.clients.append(LoopBound(client, loop: loop)) }
                }
            }
            started += size
            let deadline = Date().addingTimeInterval(30)
            while state.withLock({ $0.opened + $0.failed.count }) < target {
                guard Date() < deadline else { throw BenchError("WebSocket handshakes did not finish in time") }
                usleep(2000)
            }
            if let failure = state.withLock({ $0.failed.first }) { throw BenchError("WebSocket client: \(failure)") }
        }
    }

    /// Measures the messages sent from now on: their deliveries and latencies (messages in flight from before are
    /// left out).
    func startRecording() {
        let now = Self.monotonicNanoseconds()
        state.withLock {
            $0.recordingSince = now
            $0.latencies.removeAll(keepingCapacity: true)
        }
    }

    /// Stops measuring; returns the latencies measured, in milliseconds (one per delivery).
    func stopRecording() -> [Double] {
        state.withLock {
            $0.recordingSince = nil
            return $0.latencies
        }
    }

    /// Closes every client and stops the loop.
    func shutdown() {
        let clients = state.withLock { $0.clients }
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            for client in clients { client.value.connection?.close() }
            done.signal()
        }
        done.wait()
        loop.shutdown()
    }

    func didOpen() { state.withLock { $0.opened += 1 } }
    func didFail(_ reason: String) { state.withLock { $0.failed.append(reason) } }

    /// A message arrived: counts it and, for a timed one, records its latency.
    func didReceive(_ text: String, at now: UInt64) {
        guard let sent = Self.sendTime(in: text) else { return }
        let milliseconds = Double(now &- sent) / 1e6
        state.withLock { state in
            if let since = state.recordingSince, sent >= since { state.latencies.append(milliseconds) }
        }
    }

    /// The monotonic nanoseconds after `"t":` in a fan-out message.
    static func sendTime(in text: String) -> UInt64? {
        guard let range = text.range(of: "\"t\":") else { return nil }
        return UInt64(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the machine.
    static func monotonicNanoseconds() -> UInt64 {
        UInt64(MonotonicClock.nanoseconds)
    }
}

/// One benchmark WebSocket client (loop thread).
final class BenchWebSocket: ConnectionHandler {
    private unowned let owner: BenchWebSockets
    private let handshake = WebSocketClientHandshake(nonce: Array("bench nonce 16 b".utf8))
    private let path: String
    private var response = HTTPResponseDecoder()
    private var machine: WebSocketMachine?
    var connection: Connection?

    init(owner: BenchWebSockets, path: String) {
        self.owner = owner
        self.path = path
        response.expectResponse(to: .get)
    }

    func connectionDidOpen(_ connection: Connection) {
        try? connection.write(handshake.request(target: path, host: "127.0.0.1").encoded())
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        guard var machine else {
            response.append(bytes)
            let part: HTTPResponseDecoder.Part?
            do {
                part = try response.next()
            } catch {
                owner.didFail("a malformed answer to the upgrade: \(error)")
                connection.close()
                return
            }
            guard let part else { return }  // the head is still arriving
            do {
                guard case .head(let head) = part else { throw WebSocketError(.protocolError, "no head") }
                _ = try handshake.validate(head)
            } catch {
                owner.didFail("the upgrade failed: \(error)")
                connection.close()
                return
            }
            var opened = WebSocketMachine(role: .client, maximumMessageSize: 1 << 20)
            let leftover = response.takeBufferedBytes()
            self.machine = opened
            owner.didOpen()
            if !leftover.isEmpty {
                receive(leftover, into: &opened)
                self.machine = opened
            }
            return
        }
        receive(bytes, into: &machine)
        self.machine = machine
    }

    private func receive(_ bytes: [UInt8], into machine: inout WebSocketMachine) {
        let now = BenchWebSockets.monotonicNanoseconds()
        for action in machine.received(bytes) {
            switch action {
            case .message(.text(let text)): owner.didReceive(text, at: now)
            case .write(let reply): try? connection?.write(reply)
            case .message, .pong, .closeConnection, .closed: break
            }
        }
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        if machine == nil { owner.didFail("closed before the handshake: \(error?.description ?? "")") }
        self.connection = nil
    }
}
