import AMF

/// The client side of an RTMP publish, as a sans-I/O state machine.
///
/// Flow: handshake → Set Chunk Size → `connect` → `_result` → `releaseStream`, `FCPublish`, `createStream` →
/// `_result` (stream id) → `publish(key, "live")` → `onStatus NetStream.Publish.Start` → publishing. Then
/// metadata and media go out on their own chunk streams; Ping Requests are answered, Acknowledgements sent per
/// the server's window, the server's Set Chunk Size honoured. `stop()` sends `FCUnpublish` and `deleteStream`.
///
/// A driver: call `start()`, then for every read `bytesReceived(_:)`; run each returned action in order
/// (`.write` → send the bytes; `.published` → start feeding media; `.failed`/`.closed` → close the socket
/// after flushing the writes before it).
public struct PublisherSession: Sendable {
    /// What the publisher connects to and how.
    public struct Configuration: Sendable {
        /// The application name (the first path component of the URL, e.g. "live").
        public var app: String
        /// The URL without the stream key, e.g. "rtmp://host:1935/live".
        public var tcUrl: String
        /// The stream key. Never appears in errors or descriptions.
        public var streamKey: String
        /// The chunk size we announce first and send with (RTMP §5.4.1); 4096 keeps headers cheap.
        public var chunkSize: UInt32
        /// The flashVer sent in `connect`.
        public var flashVersion: String
        /// The chunk decoder limits for what the server sends.
        public var limits: ChunkDecoderLimits

        /// Creates a configuration.
        public init(app: String, tcUrl: String, streamKey: String, chunkSize: UInt32 = 4096,
                    flashVersion: String = "FMLE/3.0 (compatible; Stream)", limits: ChunkDecoderLimits = .default) {
            self.app = app
            self.tcUrl = tcUrl
            self.streamKey = streamKey
            self.chunkSize = chunkSize
            self.flashVersion = flashVersion
            self.limits = limits
        }
    }

    /// What the driver must do.
    public enum Action: Sendable, Equatable {
        /// Send these bytes to the server.
        case write([UInt8])
        /// The server accepted the publish on this message stream; media may flow.
        case published(streamID: UInt32)
        /// The session failed; close the connection (after the writes before this action).
        case failed(RTMPError)
        /// The session ended cleanly; close the connection after the writes before this action.
        case closed
    }

    private enum State: Sendable {
        case idle
        case handshaking(Handshaking)
        case connecting(Awaiting)
        case creatingStream(Awaiting)
        case startingPublish(Stream)
        case publishing(Stream)
        case closed
    }

    private struct Handshaking: Sendable {
        var handshake: ClientHandshake
    }

    private struct Awaiting: Sendable {
        var transactionID: Double
    }

    private struct Stream: Sendable {
        var streamID: UInt32
    }

    private static let connectTransaction: Double = 1

    /// The configuration.
    public let configuration: Configuration
    private var state: State = .idle
    private var connection: RTMPConnection
    private var nextTransactionID: Double = 2

    /// Creates a publisher.
    public init(configuration: Configuration) {
        self.configuration = configuration
        connection = RTMPConnection(limits: configuration.limits)
    }

    /// Whether the server accepted the publish and media can be sent.
    public var isPublishing: Bool {
        switch state {
        case .publishing: true
        case .idle, .handshaking, .connecting, .creatingStream, .startingPublish, .closed: false
        }
    }

    /// Starts the handshake.
    /// - Parameters:
    ///   - time: C1's time field (milliseconds of the driver's clock; 0 is fine).
    ///   - random: 1528 random bytes for C1.
    /// - Returns: `.write(C0+C1)`.
    public mutating func start(time: UInt32 = 0, random: [UInt8]) -> [Action] {
        switch state {
        case .idle:
            var handshake = ClientHandshake(time: time, random: random)
            let bytes = handshake.start()
            state = .handshaking(Handshaking(handshake: handshake))
            return [.write(bytes)]
        case .handshaking, .connecting, .creatingStream, .startingPublish, .publishing, .closed:
            return fail(.invalidState("start()"))
        }
    }

    /// Feeds bytes read from the server (handshake or chunk stream).
    /// - Returns: the actions to run in order.
    public mutating func bytesReceived(_ bytes: [UInt8]) -> [Action] {
        var actions: [Action] = []
        do throws(RTMPError) {
            switch state {
            case .idle:
                throw RTMPError.invalidState("receiving bytes before start()")
            case .closed:
                return []
            case .handshaking(var handshaking):
                let step = try handshaking.handshake.receive(bytes)
                if !step.reply.isEmpty { actions.append(.write(step.reply)) }
                guard step.isComplete else {
                    state = .handshaking(handshaking)
                    return actions
                }
                connection.setOutgoingChunkSize(configuration.chunkSize)
                sendConnect()
                state = .connecting(Awaiting(transactionID: PublisherSession.connectTransaction))
                connection.receive(step.remaining)
            case .connecting, .creatingStream, .startingPublish, .publishing:
                connection.receive(bytes)
            }
            while let message = try connection.decoder.next() {
                try handle(message, actions: &actions)
                if case .closed = state { break }
            }
        } catch {
            return flush(into: actions) + fail(error)
        }
        return flush(into: actions)
    }

    /// Sends stream metadata as `@setDataFrame onMetaData {…}` (a type 18 data message).
    /// - Returns: `.write`, or nothing when not publishing.
    /// - Throws: ``RTMPError`` `.messageTooLarge` when the encoded metadata passes 16 MiB; the session goes on.
    public mutating func sendMetadata(_ metadata: AMF0Object) throws(RTMPError) -> [Action] {
        guard case .publishing(let stream) = state else { return [] }
        try connection.sendPayload(RTMPMessage(chunkStreamID: ChunkStreamID.data, timestamp: 0, type: .amf0Data,
                                               streamID: stream.streamID,
                                               payload: DataMessage.setDataFrame(metadata).payload))
        return flush(into: [])
    }

    /// Sends one audio, video or data message (an FLV tag body: AVC/AAC sequence headers, frames).
    /// - Parameters:
    ///   - kind: audio (8), video (9) or data (18).
    ///   - timestamp: milliseconds; wraps at 2^32.
    ///   - body: the FLV tag body.
    /// - Returns: `.write`, or nothing when not publishing (the media is dropped).
    /// - Throws: ``RTMPError`` `.messageTooLarge` when the body passes RTMP's 16 MiB message limit (an oversized
    ///   keyframe): that message is not sent, the session goes on.
    public mutating func sendMedia(_ kind: MediaMessage.Kind, timestamp: UInt32,
                                   body: [UInt8]) throws(RTMPError) -> [Action] {
        guard case .publishing(let stream) = state else { return [] }
        try connection.sendPayload(MediaMessage(kind: kind, timestamp: timestamp, streamID: stream.streamID,
                                                body: body).message)
        return flush(into: [])
    }

    /// Ends the session: `FCUnpublish` and `deleteStream` when publishing, then `.closed`.
    public mutating func stop() -> [Action] {
        switch state {
        case .publishing(let stream), .startingPublish(let stream):
            sendCommand("FCUnpublish", arguments: [.string(configuration.streamKey)])
            sendCommand("deleteStream", arguments: [.number(Double(stream.streamID))])
        case .idle, .handshaking, .connecting, .creatingStream, .closed:
            break
        }
        let alreadyClosed = if case .closed = state { true } else { false }
        state = .closed
        return alreadyClosed ? [] : flush(into: []) + [.closed]
    }

    /// The transport reported end of stream or an error: the server went away.
    /// - Returns: `.failed` with a hint for the phase it happened in, or nothing after `stop()` or a failure.
    public mutating func connectionClosed() -> [Action] {
        let why: String
        switch state {
        case .closed:
            return []
        case .idle, .handshaking:
            why = "the server closed the connection during the handshake — is this an RTMP server"
                + " (rtmps:// needs TLS)?"
        case .connecting:
            why = "the server closed the connection after connect — check the application name in the URL"
        case .creatingStream, .startingPublish:
            why = "the server closed the connection before the publish started — check the stream key"
        case .publishing:
            why = "the server closed the connection while publishing"
        }
        return fail(.closed(why))
    }

    // MARK: - Messages

    private mutating func handle(_ message: RTMPMessage, actions: inout [Action]) throws(RTMPError) {
        if try connection.handleControl(message) != nil { return }
        switch message.type {
        case .amf0Command, .amf3Command:
            let command = try CommandMessage(payload: message.payload, isAMF3: message.type == .amf3Command)
            try handle(command, actions: &actions)
        default:
            break  // data, media and unknown types from a server are not for a publisher
        }
    }

    private mutating func handle(_ command: CommandMessage, actions: inout [Action]) throws(RTMPError) {
        switch state {
        case .idle, .handshaking, .closed:
            return
        case .connecting(let awaiting):
            guard command.transactionID == awaiting.transactionID else { return }
            if command.name == "_error" || command.info?.isError == true {
                throw rejection(command, as: RTMPError.connectRejected, fallbackCode: "NetConnection.Connect.Rejected")
            }
            guard command.name == "_result" else { return }
            sendCommand("releaseStream", transactionID: takeTransactionID(),
                        arguments: [.string(configuration.streamKey)])
            sendCommand("FCPublish", transactionID: takeTransactionID(), arguments: [.string(configuration.streamKey)])
            let transactionID = takeTransactionID()
            sendCommand("createStream", transactionID: transactionID)
            state = .creatingStream(Awaiting(transactionID: transactionID))
        case .creatingStream(let awaiting):
            guard command.transactionID == awaiting.transactionID else { return }
            if command.name == "_error" {
                throw rejection(command, as: RTMPError.publishRejected, fallbackCode: "NetStream.Publish.Failed")
            }
            guard command.name == "_result" else { return }
            guard let number = command.arguments.first?.numberValue, number >= 0, number <= Double(UInt32.max) else {
                throw RTMPError.malformedMessage("createStream result carries no stream id")
            }
            let streamID = UInt32(number)
            sendCommand("publish", transactionID: takeTransactionID(),
                        arguments: [.string(configuration.streamKey), .string("live")],
                        chunkStreamID: ChunkStreamID.data, streamID: streamID)
            state = .startingPublish(Stream(streamID: streamID))
        case .startingPublish(let stream):
            guard command.name == "onStatus" || command.name == "_error", let info = command.info else { return }
            if info.code == "NetStream.Publish.Start" {
                state = .publishing(stream)
                actions.append(contentsOf: flush(into: []))
                actions.append(.published(streamID: stream.streamID))
            } else if info.isError || command.name == "_error" || PublisherSession.rejectionCodes.contains(info.code) {
                throw rejection(command, as: RTMPError.publishRejected, fallbackCode: "NetStream.Publish.Failed")
            }
        case .publishing:
            guard command.name == "onStatus" || command.name == "_error", let info = command.info else { return }
            if info.isError || PublisherSession.rejectionCodes.contains(info.code) {
                throw rejection(command, as: RTMPError.publishRejected, fallbackCode: "NetStream.Publish.Failed")
            }
        }
    }

    /// Status codes that end a publish attempt even if a server forgets to mark them as level "error".
    private static let rejectionCodes: Set<String> = [
        "NetStream.Publish.BadName", "NetStream.Publish.Denied", "NetStream.Publish.Unauthorized",
        "NetStream.Publish.Failed", "NetConnection.Connect.Rejected", "NetConnection.Connect.Failed",
        "NetConnection.Connect.Closed", "NetStream.Unpublish.Success",
    ]

    /// A typed rejection with the server's code and its description stripped of the stream key.
    private func rejection(_ command: CommandMessage, as make: (String, String) -> RTMPError,
                           fallbackCode: String) -> RTMPError {
        let info = command.info
        let code = redact(info?.code ?? "")
        return make(code.isEmpty ? fallbackCode : code, redact(info?.description ?? ""))
    }

    /// Removes the stream key from text the server sent (some servers echo the name they refused).
    private func redact(_ text: String) -> String {
        let key = configuration.streamKey
        guard !key.isEmpty else { return text }
        return text.replacing(key, with: "••••")
    }

    // MARK: - Output

    private mutating func sendConnect() {
        let object: AMF0Object = [
            "app": .string(configuration.app),
            "type": .string("nonprivate"),
            "flashVer": .string(configuration.flashVersion),
            "swfUrl": .string(configuration.tcUrl),
            "tcUrl": .string(configuration.tcUrl),
        ]
        connection.send(CommandMessage(name: "connect", transactionID: PublisherSession.connectTransaction,
                                       commandObject: .object(object)).message())
    }

    private mutating func sendCommand(_ name: String, transactionID: Double = 0, arguments: [AMF0Value] = [],
                                      chunkStreamID: UInt32 = ChunkStreamID.command, streamID: UInt32 = 0) {
        let command = CommandMessage(name: name, transactionID: transactionID, arguments: arguments)
        connection.send(command.message(chunkStreamID: chunkStreamID, streamID: streamID))
    }

    private mutating func takeTransactionID() -> Double {
        defer { nextTransactionID += 1 }
        return nextTransactionID
    }

    /// Appends the pending output as one `.write` after `actions`.
    private mutating func flush(into actions: [Action]) -> [Action] {
        let bytes = connection.takeOutput()
        return bytes.isEmpty ? actions : actions + [.write(bytes)]
    }

    private mutating func fail(_ error: RTMPError) -> [Action] {
        state = .closed
        return [.failed(error)]
    }
}
