import RTMP
import TestSupport

/// A fake ingest that answers with our own ``ServerSession`` (so the parts a test wants right are right) and
/// also decodes everything the client sends, so a test can see messages the session handles silently (pongs).
struct HostileIngest {
    let socket: RawSocket
    private var session = ServerSession(random: HostileBytes.random(1528))
    private var observer = ChunkDecoder()
    /// C0 + C1 + C2: what the session's handshake takes before the chunk stream starts.
    private var handshakeBytesLeft = 1 + 1536 + 1536
    /// The message stream id of the accepted publish.
    private(set) var publishedStreamID: UInt32?

    init(socket: RawSocket) {
        self.socket = socket
    }

    /// Feeds bytes from the client: sends the session's answers (accepting any publish) and returns the
    /// client's messages.
    mutating func feed(_ bytes: [UInt8]) throws -> [RTMPMessage] {
        var actions = session.bytesReceived(bytes)
        while !actions.isEmpty {
            var next: [ServerSession.Action] = []
            for action in actions {
                switch action {
                case .write(let bytes): try socket.write(bytes)
                case .authorizePublish: next += session.authorization(allowed: true)
                case .publishStarted(let streamID): publishedStreamID = streamID
                case .failed(let error): throw error
                case .close: throw RawSocket.Failure(description: "session closed")
                case .connected, .publishStopped, .play, .playStopped, .media, .metadata: break
                }
            }
            actions = next
        }
        let skipped = min(handshakeBytesLeft, bytes.count)
        handshakeBytesLeft -= skipped
        observer.append(bytes[skipped...])
        var messages: [RTMPMessage] = []
        while let message = try observer.next() { messages.append(message) }
        return messages
    }

    /// Reads and feeds until the client's publish is accepted.
    mutating func acceptPublish() throws {
        while publishedStreamID == nil {
            guard let bytes = try socket.read(timeout: HostilePeer.timeout) else {
                throw RawSocket.Failure(description: "client closed before publishing")
            }
            _ = try feed(bytes)
        }
    }

    /// Reads and feeds until the client closes, handing each message to `observe`.
    mutating func serveUntilClosed(timeout: Double = 20, observe: (RTMPMessage) throws -> Void = { _ in }) throws {
        while let bytes = try socket.read(timeout: timeout) {
            for message in try feed(bytes) { try observe(message) }
        }
    }
}
