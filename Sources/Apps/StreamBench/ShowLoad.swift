#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Identity
import Locking
import Transport
import WebSocket

/// The clients of item 13, all on one event loop thread of their own (no task per message, so the load generator
/// stays light beside the server): watchers that count stamped messages and their latency, writers that send
/// stamped messages at a fixed rate and time each acknowledgement, reactors.
final class ShowLoad: Sendable {
    /// What the clients saw in the window.
    struct Seen: Sendable {
        var delivered = 0
        var latencies: [Int64] = []
        /// Send-to-acknowledgement microseconds of the writers' messages stamped in the window.
        var acknowledged: [Int64] = []
        var reactions = 0
        var failures: [String] = []
    }

    private let loop: EventLoop
    private let port: Int
    private let path: String
    private let secret: TokenSecret
    private let state: Locked<LoopBound<LoadState>?> = Locked(nil)

    init(port: Int, path: String, secret: TokenSecret) throws {
        loop = try EventLoop(name: "stream-bench-shows")
        self.port = port
        self.path = path
        self.secret = secret
    }

    func shutdown() {
        loop.shutdown()
    }

    /// Connects and joins every client; returns once all have their welcome.
    func connect(watchers: Int, writers: Int, reactors: Int) throws {
        let port = self.port
        let path = self.path
        let secret = self.secret
        let loop = self.loop
        let joined = DispatchSemaphore(value: 0)
        let total = watchers + writers + reactors
        let bound = try runBlocking {
            try await loop.submit { () -> LoopBound<LoadState> in
                let state = LoadState(expected: total) { joined.signal() }
                let expires = Int64(Date().timeIntervalSince1970) + 3600
                var roles: [(String, LoadSocket.Role)] = (0..<watchers).map { ("watcher\($0)", .watcher) }
                roles += (0..<writers).map { ("writer\($0)", .writer) }
                roles += (0..<reactors).map { ("reactor\($0)", .reactor) }
                for (user, role) in roles {
                    let token = AccessToken(subject: user, expiresAt: expires).signed(with: secret)
                    let socket = LoadSocket(role: role, target: path + "?access_token=" + token,
                                            host: "127.0.0.1:\(port)", state: state)
                    socket.connection = Connection.connect(host: "127.0.0.1", port: port, tls: nil,
                                                           timeout: .seconds(30), on: loop, handler: socket)
                    state.sockets.append(socket)
                }
                return LoopBound(state, loop: loop)
            }
        }
        state.withLock { $0 = bound }
        guard joined.wait(timeout: .now() + 120) == .success else {
            let failures = try runBlocking { try await loop.submit { bound.value.failures.prefix(3).joined() } }
            throw BenchError("not every client joined within 2 minutes: \(failures)")
        }
    }

    /// Starts the writers and reactors.
    func start(messagesPerSecond: Double, reactionsPerSecond: Double, window: Range<Int64>) {
        guard let bound = state.withLock({ $0 }) else { return }
        loop.execute {
            let state = bound.value
            state.window = window
            let writers = state.sockets.filter { $0.role == .writer }
            let reactors = state.sockets.filter { $0.role == .reactor }
            for (index, writer) in writers.enumerated() {
                writer.startSending(every: Double(writers.count) / messagesPerSecond,
                                    after: Double(index) / messagesPerSecond, until: window.upperBound)
            }
            for (index, reactor) in reactors.enumerated() {
                reactor.startSending(every: Double(reactors.count) / reactionsPerSecond,
                                     after: Double(index) / reactionsPerSecond, until: window.upperBound)
            }
        }
    }

    func results() throws -> Seen {
        guard let bound = state.withLock({ $0 }) else { return Seen() }
        return try runBlocking { try await self.loop.submit { bound.value.seen } }
    }
}

/// The loop-thread state of the load.
final class LoadState {
    var sockets: [LoadSocket] = []
    var window: Range<Int64> = 0..<0
    var seen = ShowLoad.Seen()
    var failures: [String] { seen.failures }
    private var joined = 0
    private let expected: Int
    private let allJoined: () -> Void

    init(expected: Int, allJoined: @escaping () -> Void) {
        self.expected = expected
        self.allJoined = allJoined
    }

    func didJoin() {
        joined += 1
        if joined == expected { allJoined() }
    }
}

/// One client connection: the upgrade, then frames. Outgoing frames come from a ``WebSocketMachine`` (clients
/// mask); incoming server frames are read here without copying or UTF-8 checks, to keep the generator light.
final class LoadSocket: ConnectionHandler {
    enum Role {
        case watcher, writer, reactor
    }

    let role: Role
    var connection: Connection?
    private let request: [UInt8]
    private unowned let state: LoadState
    private var machine = WebSocketMachine(role: .client, maximumMessageSize: 1 << 21)
    private var head: [UInt8]? = []
    private var inbound: [UInt8] = []
    private var nextID: Int64 = 1
    private var pending: [Int64: Int64] = [:]
    private var timer: Scheduled?

    init(role: Role, target: String, host: String, state: LoadState) {
        self.role = role
        self.state = state
        var random = SystemRandomNumberGenerator()
        let handshake = WebSocketClientHandshake(nonce: (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
        request = handshake.request(target: target, host: host).encoded()
    }

    func connectionDidOpen(_ connection: Connection) {
        try? connection.write(request)
    }

    func connectionDidRead(_ connection: Connection, bytes: [UInt8]) {
        var input = bytes
        if var buffered = head {
            buffered += bytes
            guard let end = Self.endOfHead(buffered) else {
                head = buffered
                return
            }
            guard buffered.starts(with: Array("HTTP/1.1 101".utf8)) else {
                state.seen.failures.append(String(decoding: buffered.prefix(200), as: UTF8.self))
                connection.close()
                return
            }
            head = nil
            input = Array(buffered[end...])
            send(#"{"op":"join","id":0}"#)
        }
        inbound += input
        var offset = 0
        while let payload = Self.payload(in: inbound, at: offset) {
            switch inbound[offset] & 0x0F {
            case 0x1: handle(inbound[payload])
            case 0x9: try? connection.write([0x8A, 0x80, 0, 0, 0, 0])  // a pong (empty, zero mask)
            default: break
            }
            offset = payload.upperBound
        }
        inbound.removeFirst(offset)
    }

    /// A whole unmasked server frame at `offset`: where its payload is (nil when more bytes are needed).
    private static func payload(in bytes: [UInt8], at offset: Int) -> Range<Int>? {
        guard bytes.count - offset >= 2 else { return nil }
        var length = Int(bytes[offset + 1] & 0x7F)
        var start = offset + 2
        if length == 126 {
            guard bytes.count - offset >= 4 else { return nil }
            length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            start = offset + 4
        } else if length == 127 {
            guard bytes.count - offset >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            start = offset + 10
        }
        guard bytes.count >= start + length else { return nil }
        return start..<start + length
    }

    func connectionDidClose(_ connection: Connection, error: TransportError?) {
        timer?.cancel()
    }

    private func send(_ text: String) {
        if let bytes = machine.send(.text(text)) { try? connection?.write(bytes) }
    }

    private static let messagePrefix = Array(#"{"event":"message""#.utf8)
    private static let replyPrefix = Array(#"{"reply":"#.utf8)
    private static let okMarker = Array(#""ok":true"#.utf8)

    private func handle(_ text: ArraySlice<UInt8>) {
        let now = ShowsBench.microseconds()
        if text.starts(with: Self.messagePrefix) {
            guard role == .watcher, let stamp = ShowLoad.stamp(text), state.window.contains(stamp) else { return }
            state.seen.delivered += 1
            state.seen.latencies.append(now - stamp)
        } else if text.starts(with: Self.replyPrefix) {
            let id = text.dropFirst(Self.replyPrefix.count).prefix { $0 >= 0x30 && $0 <= 0x39 }.reduce(Int64(0)) {
                $0 * 10 + Int64($1 - 0x30)
            }
            let ok = text.dropFirst(Self.replyPrefix.count).prefix(24).firstRange(of: Self.okMarker) != nil
            if id == 0 {
                if ok { state.didJoin() } else { state.seen.failures.append(String(decoding: text, as: UTF8.self)) }
            } else if let stamp = pending.removeValue(forKey: id), ok {
                if role == .reactor {
                    if state.window.contains(stamp) { state.seen.reactions += 1 }
                } else if state.window.contains(stamp) {
                    state.seen.acknowledged.append(now - stamp)
                }
            }
        }
    }

    /// Sends a stamped message (or a reaction) every `every` seconds, first after `after`.
    func startSending(every: Double, after: Double, until end: Int64) {
        guard let loop = connection?.loop else { return }
        timer = loop.scheduleOnLoop(after: .microseconds(Int64(after * 1e6))) { [weak self] in
            self?.tick(every: every, next: ShowsBench.microseconds(), until: end)
        }
    }

    private func tick(every: Double, next: Int64, until end: Int64) {
        let now = ShowsBench.microseconds()
        guard now < end, let loop = connection?.loop else { return }
        let id = nextID
        nextID += 1
        pending[id] = now
        if role == .reactor {
            let kinds = ["heart", "like", "laugh", "wow", "clap", "fire"]
            send(#"{"op":"react","id":\#(id),"reaction":"\#(kinds[Int(id) % kinds.count])"}"#)
        } else {
            send(#"{"op":"send","id":\#(id),"text":"b \#(now)"}"#)
        }
        let following = next + Int64(every * 1e6)
        timer = loop.scheduleOnLoop(after: .microseconds(max(0, following - ShowsBench.microseconds()))) {
            [weak self] in
            self?.tick(every: every, next: following, until: end)
        }
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D
            && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }
}

extension ShowLoad {
    private static let stampMarker = Array(#""text":"b "#.utf8)

    /// The writer's stamp in a `message` event (`"text":"b <microseconds>"`), without decoding the JSON.
    static func stamp(_ text: ArraySlice<UInt8>) -> Int64? {
        let marker = stampMarker
        var utf8 = text
        while let first = utf8.firstIndex(of: marker[0]) {
            utf8 = utf8[first...]
            if utf8.starts(with: marker) {
                return utf8.dropFirst(marker.count).prefix { $0 >= 0x30 && $0 <= 0x39 }.reduce(Int64(0)) {
                    $0 * 10 + Int64($1 - 0x30)
                }
            }
            utf8 = utf8.dropFirst()
        }
        return nil
    }
}
