@testable import RTMP

/// A publisher and a server machine wired back to back with no I/O: bytes each one writes are fed to the other,
/// in pieces of `pieceSize` bytes, until both are quiet. Post-handshake bytes in each direction are also decoded
/// by a tap `ChunkDecoder`, so tests can look at the messages on the wire.
struct SessionPair {
    /// RTMP §5.2: C0+C1+C2 and S0+S1+S2 are both 1 + 2 × 1536 bytes.
    static let handshakeLength = 1 + 2 * 1536

    var publisher: PublisherSession
    var server: ServerSession
    var pieceSize: Int
    /// The answer given automatically to `.authorizePublish` (nil: leave it pending).
    var autoAuthorize: Bool?

    var publisherEvents: [PublisherSession.Action] = []
    var serverEvents: [ServerSession.Action] = []
    var toServerTap = Tap()
    var toPublisherTap = Tap()
    private var toServer: [UInt8] = []
    private var toPublisher: [UInt8] = []

    /// Decodes the chunk stream of one direction, skipping the handshake.
    struct Tap {
        var skipped = 0
        var decoder = ChunkDecoder()
        var messages: [RTMPMessage] = []

        mutating func feed(_ bytes: [UInt8]) throws {
            let skip = min(bytes.count, SessionPair.handshakeLength - skipped)
            skipped += skip
            messages += try decodeAll([Array(bytes[skip...])], decoder: &decoder)
        }

        /// The typed control messages seen so far.
        var controls: [ProtocolControlMessage] { messages.compactMap { try? ProtocolControlMessage($0) } }

        /// The commands seen so far.
        var commands: [CommandMessage] {
            messages.filter { $0.type == .amf0Command }.compactMap { try? CommandMessage(payload: $0.payload) }
        }
    }

    init(publisher: PublisherSession.Configuration = .init(app: "live", tcUrl: "rtmp://127.0.0.1/live",
                                                           streamKey: "secret-key-123"),
         server: ServerSession.Configuration = .init(), pieceSize: Int = .max, autoAuthorize: Bool? = true) {
        self.publisher = PublisherSession(configuration: publisher)
        self.server = ServerSession(configuration: server, time: 1, random: pseudoRandomBytes(1528, seed: 11))
        self.pieceSize = pieceSize
        self.autoAuthorize = autoAuthorize
    }

    /// Starts the publisher and pumps until both sides are quiet.
    mutating func start() throws {
        try run(publisher.start(time: 0, random: pseudoRandomBytes(1528, seed: 10)))
    }

    /// Runs publisher actions, then pumps.
    mutating func run(_ actions: [PublisherSession.Action]) throws {
        try collect(actions)
        try pump()
    }

    /// Runs server actions, then pumps.
    mutating func run(_ actions: [ServerSession.Action]) throws {
        try collect(actions)
        try pump()
    }

    private mutating func collect(_ actions: [PublisherSession.Action]) throws {
        for action in actions {
            if case .write(let bytes) = action {
                toServer += bytes
                try toServerTap.feed(bytes)
            } else {
                publisherEvents.append(action)
            }
        }
    }

    private mutating func collect(_ actions: [ServerSession.Action]) throws {
        for action in actions {
            switch action {
            case .write(let bytes):
                toPublisher += bytes
                try toPublisherTap.feed(bytes)
            case .authorizePublish:
                serverEvents.append(action)
                if let allowed = autoAuthorize {
                    try collect(server.authorization(allowed: allowed))
                }
            default:
                serverEvents.append(action)
            }
        }
    }

    private mutating func pump() throws {
        while !toServer.isEmpty || !toPublisher.isEmpty {
            if !toServer.isEmpty {
                let piece = Array(toServer.prefix(pieceSize))
                toServer.removeFirst(piece.count)
                try collect(server.bytesReceived(piece))
            }
            if !toPublisher.isEmpty {
                let piece = Array(toPublisher.prefix(pieceSize))
                toPublisher.removeFirst(piece.count)
                try collect(publisher.bytesReceived(piece))
            }
        }
    }
}
