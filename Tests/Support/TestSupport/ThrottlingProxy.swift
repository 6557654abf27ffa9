import Foundation
import Locking
import Synchronization

/// A loopback TCP proxy that makes a slow or stalled link: it forwards client ↔ server, limiting the client →
/// server direction to a byte rate, and on ``setStalled(_:)`` stops reading from the client altogether (its
/// socket buffers fill, as when a server stops reading).
///
/// Bounded: at most `maxConnections` proxied connections, a fixed read size, small socket buffers on the client
/// side so a stall shows within tens of kilobytes. Each connection runs two pump threads; ``stop()`` ends them.
public final class ThrottlingProxy: Sendable {
    /// The port clients connect to (127.0.0.1).
    public let port: Int
    /// Where connections are forwarded (127.0.0.1).
    public let targetPort: Int

    private struct Settings {
        var bytesPerSecond: Int?
        var stalled = false
        var clientToServerBytes = 0
        var serverToClientBytes = 0
        var connections = 0
        var accepted = 0
    }

    private let listener: LoopbackListener
    private let settings: Locked<Settings>
    private let stopping = Atomic<Bool>(false)
    private let runningThreads = Atomic<Int>(0)
    private let maxConnections: Int
    private let openSockets = Locked<[RawSocket]>([])

    /// Starts listening and forwarding.
    /// - Parameters:
    ///   - targetPort: the server's port on 127.0.0.1.
    ///   - bytesPerSecond: the client → server rate limit; nil for none.
    ///   - maxConnections: connections beyond this are closed at once.
    ///   - clientReceiveBuffer: SO_RCVBUF of the client-side sockets, so a stall backs up quickly.
    ///   - clientSegmentSize: the TCP segment size announced to clients; Ethernet's 1460 by default, so that the
    ///     client's kernel sizes its send buffer as on a real link (with loopback's 64 kB segments it takes
    ///     megabytes at once, and a slow or stalled link shows only after those).
    public init(targetPort: Int, bytesPerSecond: Int? = nil, maxConnections: Int = 8,
                clientReceiveBuffer: Int = 32 * 1024, clientSegmentSize: Int = 1460) throws {
        precondition(bytesPerSecond.map { $0 > 0 } ?? true, "the rate must be positive")
        listener = try LoopbackListener(receiveBufferSize: clientReceiveBuffer, maximumSegmentSize: clientSegmentSize)
        port = listener.port
        self.targetPort = targetPort
        self.maxConnections = maxConnections
        settings = Locked(Settings(bytesPerSecond: bytesPerSecond))
        spawn("proxy-accept") { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// Changes the client → server rate limit (nil: unlimited).
    public func setRate(bytesPerSecond: Int?) {
        precondition(bytesPerSecond.map { $0 > 0 } ?? true, "the rate must be positive")
        settings.withLock { $0.bytesPerSecond = bytesPerSecond }
    }

    /// Stops (true) or resumes (false) reading from clients.
    public func setStalled(_ stalled: Bool) {
        settings.withLock { $0.stalled = stalled }
    }

    /// Bytes forwarded from clients to the server so far.
    public var clientToServerBytes: Int { settings.withLock { $0.clientToServerBytes } }
    /// Bytes forwarded from the server to clients so far.
    public var serverToClientBytes: Int { settings.withLock { $0.serverToClientBytes } }
    /// Connections being proxied now.
    public var activeConnections: Int { settings.withLock { $0.connections } }
    /// Connections accepted so far (including refused ones beyond the limit).
    public var acceptedConnections: Int { settings.withLock { $0.accepted } }

    /// Closes the listener and every proxied connection, and waits (up to 2 s) for the threads to end.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        listener.close()
        for socket in openSockets.withLock({ $0 }) { socket.close() }
        let deadline = Date().addingTimeInterval(2)
        while runningThreads.load(ordering: .acquiring) > 0 && Date() < deadline { usleep(5_000) }
    }

    // MARK: - Threads

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        runningThreads.add(1, ordering: .acquiringAndReleasing)
        let thread = Thread { [self] in
            body()
            runningThreads.subtract(1, ordering: .acquiringAndReleasing)
        }
        thread.name = name
        thread.start()
    }

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func acceptLoop() {
        while !isStopping {
            let client: RawSocket
            do {
                client = try listener.accept(timeout: 0.1)
            } catch let failure as RawSocket.Failure where failure.isTimeout {
                continue
            } catch {
                return
            }
            let admitted = settings.withLock { state -> Bool in
                state.accepted += 1
                guard state.connections < maxConnections else { return false }
                state.connections += 1
                return true
            }
            guard admitted, let server = try? RawSocket.connect(port: targetPort) else {
                if admitted { settings.withLock { $0.connections -= 1 } }
                client.close()
                continue
            }
            openSockets.withLock { $0 += [client, server] }
            let finished = PumpCount()
            let done: @Sendable () -> Void = { [self] in
                guard finished.count.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
                client.close()
                server.close()
                openSockets.withLock { sockets in sockets.removeAll { $0 === client || $0 === server } }
                settings.withLock { $0.connections -= 1 }
            }
            spawn("proxy-up") { [self] in
                pump(from: client, to: server, throttled: true)
                done()
            }
            spawn("proxy-down") { [self] in
                pump(from: server, to: client, throttled: false)
                done()
            }
        }
    }

    /// Copies `source` to `destination` until end of stream, an error or ``stop()``. The throttled direction
    /// honours the rate (a token bucket with a burst of a tenth of a second) and the stall switch.
    private func pump(from source: RawSocket, to destination: RawSocket, throttled: Bool) {
        var tokens = 0.0
        var last = Date()
        while !isStopping {
            var allowance = ProxyLimits.readSize
            if throttled {
                let (rate, stalled) = settings.withLock { ($0.bytesPerSecond, $0.stalled) }
                if stalled {
                    usleep(10_000)
                    last = Date()
                    continue
                }
                if let rate {
                    let now = Date()
                    let burst = max(Double(rate) / 10, 1024)
                    tokens = min(burst, tokens + Double(rate) * now.timeIntervalSince(last))
                    last = now
                    guard tokens >= min(1024, burst) else {
                        usleep(UInt32(max(1_000, min(50_000, (1024 - tokens) / Double(rate) * 1_000_000))))
                        continue
                    }
                    allowance = min(allowance, Int(tokens))
                }
            }
            let bytes: [UInt8]?
            do {
                bytes = try source.read(maximum: allowance, timeout: 0.05)
            } catch let failure as RawSocket.Failure where failure.isTimeout {
                continue
            } catch {
                break
            }
            guard let bytes else {
                destination.shutdownWrite()
                return
            }
            if throttled { tokens -= Double(bytes.count) }
            guard writeAll(bytes, to: destination) else { break }
            settings.withLock { state in
                if throttled {
                    state.clientToServerBytes += bytes.count
                } else {
                    state.serverToClientBytes += bytes.count
                }
            }
        }
        source.close()
        destination.close()
    }

    /// Writes in short waits so that ``stop()`` is noticed; false when the destination failed or we stop.
    private func writeAll(_ bytes: [UInt8], to destination: RawSocket) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            if isStopping { return false }
            do {
                let sent = try destination.writeAvailable(Array(remaining))
                if sent == 0 {
                    var poller = pollfd(fd: destination.fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 50)
                }
                remaining = remaining.dropFirst(sent)
            } catch {
                return false
            }
        }
        return true
    }
}

/// How many of a connection's two pumps have ended.
private final class PumpCount: Sendable {
    let count = Atomic<Int>(0)
}

/// Fixed sizes of the proxy.
enum ProxyLimits {
    /// The largest read per step.
    static let readSize = 16 * 1024
}
