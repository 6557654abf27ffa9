import RTMP
import TestSupport

/// Blocking RTMP steps for fake peers on a ``PeerThread``: handshakes, reading messages, and driving our own
/// session machines for the parts that a test wants right.
enum HostilePeer {
    static let timeout: Double = 10

    /// Plays the server's side of the handshake. Returns the bytes that came after C2.
    static func serverHandshake(_ socket: RawSocket) throws -> [UInt8] {
        var handshake = ServerHandshake(time: 0, random: HostileBytes.random(1528))
        var remaining: [UInt8] = []
        while !handshake.isComplete {
            guard let bytes = try socket.read(timeout: timeout) else {
                throw RawSocket.Failure(description: "client closed during the handshake")
            }
            let step = try handshake.receive(bytes)
            if !step.reply.isEmpty { try socket.write(step.reply) }
            remaining = step.remaining
        }
        return remaining
    }

    /// Plays the client's side of the handshake. Returns the bytes that came after S2.
    static func clientHandshake(_ socket: RawSocket) throws -> [UInt8] {
        var handshake = ClientHandshake(time: 0, random: HostileBytes.random(1528))
        try socket.write(handshake.start())
        var remaining: [UInt8] = []
        while !handshake.isComplete {
            guard let bytes = try socket.read(timeout: timeout) else {
                throw RawSocket.Failure(description: "server closed during the handshake")
            }
            let step = try handshake.receive(bytes)
            if !step.reply.isEmpty { try socket.write(step.reply) }
            remaining = step.remaining
        }
        return remaining
    }

    /// Reads messages until one matches, feeding `decoder` (which may hold bytes already).
    static func readMessage(_ socket: RawSocket, decoder: inout ChunkDecoder,
                            where matches: (RTMPMessage) -> Bool) throws -> RTMPMessage {
        while true {
            while let message = try decoder.next() {
                if matches(message) { return message }
            }
            guard let bytes = try socket.read(timeout: timeout) else {
                throw RawSocket.Failure(description: "peer closed while we waited for a message")
            }
            decoder.append(bytes)
        }
    }

    /// Whether `message` is the AMF0 command `name`.
    static func isCommand(_ message: RTMPMessage, _ name: String) -> Bool {
        message.type == .amf0Command && (try? CommandMessage(payload: message.payload))?.name == name
    }

    /// Client side: runs our ``PublisherSession`` over `socket` until the server accepts the publish.
    static func publish(_ socket: RawSocket, key: String, app: String = "live", port: Int) throws -> PublisherSession {
        var session = PublisherSession(configuration: .init(app: app, tcUrl: "rtmp://127.0.0.1:\(port)/\(app)",
                                                            streamKey: key))
        var actions = session.start(random: HostileBytes.random(1528))
        while true {
            for action in actions {
                switch action {
                case .write(let bytes): try socket.write(bytes)
                case .published: return session
                case .failed(let error): throw error
                case .closed: throw RawSocket.Failure(description: "session closed")
                }
            }
            guard let bytes = try socket.read(timeout: timeout) else {
                throw RawSocket.Failure(description: "server closed before accepting the publish")
            }
            actions = session.bytesReceived(bytes)
        }
    }

    /// Client side: connects, creates a stream and plays `key` on it, then returns without reading anything
    /// more (a player that stops reading).
    static func play(_ socket: RawSocket, key: String, app: String = "live", port: Int) throws {
        try play(socket, keys: [key], app: app, port: port)
    }

    /// Like ``play(_:key:app:port:)``, playing each of `keys` in turn on the same message stream.
    static func play(_ socket: RawSocket, keys: [String], app: String = "live", port: Int) throws {
        var decoder = ChunkDecoder()
        decoder.append(try clientHandshake(socket))
        var encoder = ChunkEncoder()
        let connect = CommandMessage(name: "connect", transactionID: 1, commandObject: .object([
            "app": .string(app), "tcUrl": .string("rtmp://127.0.0.1:\(port)/\(app)"),
        ]))
        try socket.write(encoder.encode(connect.message())
                            + encoder.encode(CommandMessage(name: "createStream", transactionID: 2).message()))
        let created = try readMessage(socket, decoder: &decoder) {
            isCommand($0, "_result") && (try? CommandMessage(payload: $0.payload))?.transactionID == 2
        }
        let streamID = try CommandMessage(payload: created.payload).arguments.first?.numberValue ?? 1
        for key in keys {
            let play = CommandMessage(name: "play", transactionID: 0, commandObject: .null, arguments: [.string(key)])
            try socket.write(encoder.encode(play.message(chunkStreamID: 8, streamID: UInt32(streamID))))
        }
    }

    /// Sends the writes of `actions`.
    static func run(_ actions: [PublisherSession.Action], on socket: RawSocket) throws {
        for case .write(let bytes) in actions { try socket.write(bytes) }
    }
}
