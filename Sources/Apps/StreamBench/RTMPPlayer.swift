#if canImport(Glibc)
import Glibc
#endif
import AMF
import Foundation
import RTMP
import Locking
import Synchronization

/// A light RTMP player for the ingest benchmark: our sans-I/O handshake and chunk machines over one blocking
/// socket on its own thread. It plays `rtmp://127.0.0.1:PORT/APP/KEY`, acknowledges as the server asks, counts
/// bytes and tracks how far the media timestamps trail the wall clock (a player that falls behind shows a growing
/// lag). Far cheaper than an ffmpeg per player, so 80 players fit beside the server on a small machine.
final class RTMPPlayer: Sendable {
    struct Statistics: Sendable {
        var bytesReceived = 0
        var mediaBytes = 0
        var mediaMessages = 0
        var firstMediaWall: Double?
        var lastMediaWall = 0.0
        var firstTimestamp: UInt32 = 0
        var lastTimestamp: UInt32 = 0
        /// Wall-clock elapsed minus media elapsed, the smallest seen.
        var minimumLag = Double.infinity
        /// The lag at the last media message.
        var lastLag = 0.0
        /// The largest lag growth over the minimum seen so far (a stall shows here even if the player caught up).
        var worstBehind = 0.0
        var error: String?

        /// Seconds the player ended behind the best it was (0 when it kept up).
        var behindAtEnd: Double { minimumLag.isFinite ? lastLag - minimumLag : 0 }
    }

    let port: Int
    let app: String
    let key: String
    private let state = Locked(Statistics())
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(port: Int, app: String = "live", key: String) {
        self.port = port
        self.app = app
        self.key = key
    }

    var statistics: Statistics { state.withLock { $0 } }

    func start() {
        Thread.detachNewThread { [self] in
            do {
                try self.play()
            } catch {
                let text = "\(error)"
                self.state.withLock { $0.error = text }
            }
            self.finished.store(true, ordering: .releasing)
        }
    }

    /// Asks the thread to stop and waits for it (bounded).
    func stop() {
        stopping.store(true, ordering: .releasing)
        let deadline = Measure.now() + 3
        while !finished.load(ordering: .acquiring) && Measure.now() < deadline { usleep(10_000) }
    }

    private func play() throws {
        let fd = try Loopback.connect(port: port)
        defer { close(fd) }
        Loopback.setReceiveTimeout(fd, milliseconds: 200)
        var random = [UInt8](repeating: 0, count: ClientHandshake.randomSize)
        for index in random.indices { random[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        var handshake = ClientHandshake(time: 0, random: random)
        try Loopback.writeAll(fd, handshake.start())
        var decoder = ChunkDecoder()
        var encoder = ChunkEncoder()
        var acknowledgements = AcknowledgementCounter()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var handshaking = true
        let createStreamTransaction = 2.0

        func send(_ message: RTMPMessage) throws {
            try Loopback.writeAll(fd, encoder.encode(message))
        }

        while !stopping.load(ordering: .acquiring) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            guard count > 0 else {
                if count == 0 { throw BenchError("the server closed the connection") }
                throw BenchError("recv failed: errno \(errno)")
            }
            let bytes = Array(buffer[0..<count])
            state.withLock { $0.bytesReceived += count }
            if handshaking {
                let step = try handshake.receive(bytes)
                if !step.reply.isEmpty { try Loopback.writeAll(fd, step.reply) }
                guard step.isComplete else { continue }
                handshaking = false
                let object: AMF0Object = [
                    "app": .string(app), "flashVer": .string("LNX 9,0,124,2"),
                    "tcUrl": .string("rtmp://127.0.0.1:\(port)/\(app)"), "fpad": .boolean(false),
                    "capabilities": .number(15), "audioCodecs": .number(3191), "videoCodecs": .number(252),
                    "videoFunction": .number(1),
                ]
                try send(CommandMessage(name: "connect", transactionID: 1, commandObject: .object(object)).message())
                try send(ProtocolControlMessage.windowAcknowledgementSize(5_000_000).message())
                try send(CommandMessage(name: "createStream", transactionID: createStreamTransaction).message())
                decoder.append(step.remaining)
            } else {
                decoder.append(bytes)
                if let sequence = acknowledgements.received(count) {
                    try send(ProtocolControlMessage.acknowledgement(sequenceNumber: sequence).message())
                }
            }
            while let message = try decoder.next() {
                switch message.type {
                case .audio, .video:
                    if message.type == .video { noteMedia(message) }
                    state.withLock {
                        $0.mediaBytes += message.payload.count
                        $0.mediaMessages += 1
                    }
                case .windowAcknowledgementSize:
                    if case .windowAcknowledgementSize(let size) = try ProtocolControlMessage(message) {
                        acknowledgements.windowSize = size
                    }
                case .userControl:
                    if case .userControl(.pingRequest(let timestamp)) = try ProtocolControlMessage(message) {
                        try send(ProtocolControlMessage.userControl(.pingResponse(timestamp: timestamp)).message())
                    }
                case .amf0Command:
                    let command = try CommandMessage(payload: message.payload)
                    if command.name == "_result", command.transactionID == createStreamTransaction,
                       let number = command.arguments.first?.numberValue {
                        let play = CommandMessage(name: "play", transactionID: 0,
                                                  arguments: [.string(key), .number(-1000)])
                        try send(play.message(chunkStreamID: 8, streamID: UInt32(number)))
                        try send(ProtocolControlMessage.userControl(
                            .setBufferLength(streamID: UInt32(number), milliseconds: 1000)).message())
                    } else if command.name == "_error" || command.info?.isError == true {
                        throw BenchError("the server refused: \(command.info?.code ?? command.name)")
                    }
                default:
                    break
                }
            }
        }
    }

    private func noteMedia(_ message: RTMPMessage) {
        let now = Measure.now()
        state.withLock { stats in
            if stats.firstMediaWall == nil {
                stats.firstMediaWall = now
                stats.firstTimestamp = message.timestamp
            }
            stats.lastMediaWall = now
            stats.lastTimestamp = message.timestamp
            let media = Double(message.timestamp &- stats.firstTimestamp) / 1000
            let lag = (now - (stats.firstMediaWall ?? now)) - media
            stats.lastLag = lag
            stats.minimumLag = min(stats.minimumLag, lag)
            stats.worstBehind = max(stats.worstBehind, lag - stats.minimumLag)
        }
    }
}
