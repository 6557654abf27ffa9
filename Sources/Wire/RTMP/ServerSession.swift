import AMF

/// The server side of one RTMP connection, as a sans-I/O state machine: handshake, `connect`, then publishers
/// (`releaseStream`, `FCPublish`, `createStream`, `publish`) and players (`createStream`, `play`).
///
/// Publishing asks the driver for a decision (`.authorizePublish`, answered with `authorization(allowed:)`);
/// received media comes out as `.media` and `.metadata`. Playing announces `.play`, and the driver answers with
/// `sendMetadata`/`sendMedia`. Unknown commands are ignored, like nginx-rtmp does.
///
/// A driver: for every read call `bytesReceived(_:)` and run each returned action in order (`.write` → send;
/// `.close`/`.failed` → close after flushing the writes before it).
public struct ServerSession: Sendable {
    /// How the server answers.
    public struct Configuration: Sendable {
        /// The chunk size we announce after `connect` and send with.
        public var chunkSize: UInt32
        /// The Window Acknowledgement Size we announce (RTMP §5.4.4).
        public var windowAcknowledgementSize: UInt32
        /// The Set Peer Bandwidth we announce (RTMP §5.4.5).
        public var peerBandwidth: UInt32
        /// The chunk decoder limits for what a client sends once it is allowed to publish.
        public var limits: ChunkDecoderLimits
        /// The chunk decoder limits until then: from the handshake on, through `connect`, for every player.
        public var limitsBeforePublish: ChunkDecoderLimits

        /// Creates a configuration with nginx-rtmp's customary values.
        public init(chunkSize: UInt32 = 4096, windowAcknowledgementSize: UInt32 = 5_000_000,
                    peerBandwidth: UInt32 = 5_000_000, limits: ChunkDecoderLimits = .default,
                    limitsBeforePublish: ChunkDecoderLimits = .commands) {
            self.chunkSize = chunkSize
            self.windowAcknowledgementSize = windowAcknowledgementSize
            self.peerBandwidth = peerBandwidth
            self.limits = limits
            self.limitsBeforePublish = limitsBeforePublish
        }
    }

    /// What the driver must do.
    public enum Action: Sendable, Equatable {
        /// Send these bytes to the client.
        case write([UInt8])
        /// The client connected to this application.
        case connected(app: String)
        /// Decide whether this client may publish under this name; answer with `authorization(allowed:)`.
        /// The stream name is the stream key: never log it.
        case authorizePublish(app: String, streamName: String)
        /// The publish was accepted; `.media`/`.metadata` with this stream id follow.
        case publishStarted(streamID: UInt32)
        /// The publisher stopped (FCUnpublish, deleteStream or closeStream).
        case publishStopped(streamID: UInt32)
        /// The client wants to play this stream; answer with `sendMetadata`/`sendMedia` on `streamID`.
        case play(app: String, streamName: String, streamID: UInt32)
        /// The player stopped.
        case playStopped(streamID: UInt32)
        /// Audio, video or (non-metadata) data from a publisher.
        case media(MediaMessage)
        /// `@setDataFrame onMetaData` from a publisher.
        case metadata(streamID: UInt32, AMF0Object)
        /// Close the connection after the writes before this action.
        case close
        /// The session failed; close the connection.
        case failed(RTMPError)
    }

    private enum State: Sendable {
        case handshaking(Handshaking)
        case awaitingConnect
        case connected(Connected)
        case closed
    }

    private struct Handshaking: Sendable {
        var handshake: ServerHandshake
    }

    private enum StreamRole: Sendable, Equatable {
        case created
        case authorizing(name: String)
        case publishing
        case playing
    }

    private struct Connected: Sendable {
        var app: String
        var nextStreamID: UInt32 = 1
        var streams: [UInt32: StreamRole] = [:]
        /// The stream waiting for `authorization(allowed:)`.
        var pendingPublish: UInt32?
    }

    /// The most message streams one connection may create (a publisher needs one, a player one).
    public static let maximumStreams = 16

    /// The configuration.
    public let configuration: Configuration
    private var state: State
    private var connection: RTMPConnection

    /// Creates the machine for one accepted connection.
    /// - Parameters:
    ///   - configuration: how to answer.
    ///   - time: S1's time field (milliseconds of the driver's clock; 0 is fine).
    ///   - random: 1528 random bytes for S1 (and S2 of a digest handshake).
    public init(configuration: Configuration = Configuration(), time: UInt32 = 0, random: [UInt8]) {
        self.configuration = configuration
        state = .handshaking(Handshaking(handshake: ServerHandshake(time: time, random: random)))
        connection = RTMPConnection(limits: configuration.limitsBeforePublish)
    }

    /// Bytes held for the peer by the chunk decoder (unconsumed input and messages in progress): what a driver
    /// counts against a budget shared by all connections.
    public var bufferedByteCount: Int { connection.decoder.bufferedByteCount }

    /// Feeds bytes read from the client.
    /// - Returns: the actions to run in order.
    public mutating func bytesReceived(_ bytes: [UInt8]) -> [Action] {
        var actions: [Action] = []
        do throws(RTMPError) {
            switch state {
            case .closed:
                return []
            case .handshaking(var handshaking):
                let step = try handshaking.handshake.receive(bytes)
                if !step.reply.isEmpty { actions.append(.write(step.reply)) }
                guard step.isComplete else {
                    state = .handshaking(handshaking)
                    return actions
                }
                state = .awaitingConnect
                connection.receive(step.remaining)
            case .awaitingConnect, .connected:
                connection.receive(bytes)
            }
        } catch {
            return failed(error, actions: actions)
        }
        return decodeMessages(actions)
    }

    /// Feeds bytes read from the client, lent for the length of the call (a read buffer the driver reuses): the
    /// chunk decoder copies what it keeps, so no array is made per read once the handshake is done.
    /// - Returns: the actions to run in order.
    public mutating func bytesReceived(_ buffer: UnsafeRawBufferPointer) -> [Action] {
        var unused: [MediaMessage] = []
        return bytesReceived(buffer, media: &unused, collectsMedia: false)
    }

    /// Feeds bytes read from the client, lent for the length of the call, with a relay's fast path for media: the
    /// publisher's audio and video messages that come before any other action are appended to `media` instead of
    /// becoming `.media` actions, so that a read of media makes no action array. Run `media` first, then the
    /// returned actions: that is the order the messages came in.
    /// - Returns: the actions to run in order, after `media`.
    public mutating func bytesReceived(_ buffer: UnsafeRawBufferPointer, media: inout [MediaMessage]) -> [Action] {
        bytesReceived(buffer, media: &media, collectsMedia: true)
    }

    private mutating func bytesReceived(_ buffer: UnsafeRawBufferPointer, media: inout [MediaMessage],
                                        collectsMedia: Bool) -> [Action] {
        switch state {
        case .closed:
            return []
        case .handshaking:
            return bytesReceived([UInt8](buffer))
        case .awaitingConnect, .connected:
            connection.receive(buffer)
            return decodeMessages([], media: &media, collectsMedia: collectsMedia)
        }
    }

    /// Handles every complete message the decoder holds.
    private mutating func decodeMessages(_ actionsBefore: [Action]) -> [Action] {
        var unused: [MediaMessage] = []
        return decodeMessages(actionsBefore, media: &unused, collectsMedia: false)
    }

    /// Handles every complete message the decoder holds; with `collectsMedia`, media before any action go to
    /// `media`.
    private mutating func decodeMessages(_ actionsBefore: [Action], media: inout [MediaMessage],
                                         collectsMedia: Bool) -> [Action] {
        var actions = actionsBefore
        do throws(RTMPError) {
            while let message = try connection.decoder.next() {
                if collectsMedia && actions.isEmpty, let published = publishedMedia(message) {
                    media.append(published)
                    continue
                }
                try handle(message, actions: &actions)
                if case .closed = state { break }
            }
        } catch {
            return failed(error, actions: actions)
        }
        return flush(actions)
    }

    /// `message` as media of a stream this client publishes: audio or video (data messages may be metadata, and go
    /// through ``handle(_:actions:)``); nil for anything else.
    private func publishedMedia(_ message: RTMPMessage) -> MediaMessage? {
        let kind: MediaMessage.Kind
        switch message.typeID {
        case RTMPMessageType.audio.rawValue: kind = .audio
        case RTMPMessageType.video.rawValue: kind = .video
        default: return nil
        }
        guard isPublishing(message.streamID) else { return nil }
        return MediaMessage(kind: kind, timestamp: message.timestamp, streamID: message.streamID,
                            body: message.payload)
    }

    /// Ends the session on a decoding or protocol error.
    private mutating func failed(_ error: RTMPError, actions: [Action]) -> [Action] {
        let publishing = isPublishingAny
        state = .closed
        // Nothing more is read on a failed session: free what the decoder held at once.
        connection.decoder = ChunkDecoder(limits: connection.decoder.limits)
        let overLimit: Set<RTMPError.Code> = [.chunkSizeOutOfRange, .messageTooLarge, .resourceLimitExceeded]
        guard !publishing, overLimit.contains(error.code) else { return flush(actions) + [.failed(error)] }
        return flush(actions) + [.failed(error.adding(" (limits before publish: a peer that has not been "
                                                        + "allowed to publish may send only commands)"))]
    }

    /// Whether a publish was accepted on any stream (the decoder then has its publishing limits).
    private var isPublishingAny: Bool {
        guard case .connected(let connected) = state else { return false }
        return connected.streams.values.contains(.publishing)
    }

    /// Answers `.authorizePublish`.
    /// - Parameters:
    ///   - allowed: whether the client may publish.
    ///   - rejectionCode: the status code sent when refused.
    /// - Returns: Stream Begin and `onStatus NetStream.Publish.Start` then `.publishStarted`, or the error
    ///   status then `.close`.
    public mutating func authorization(allowed: Bool,
                                       rejectionCode: String = "NetStream.Publish.BadName") -> [Action] {
        guard case .connected(var connected) = state, let streamID = connected.pendingPublish else { return [] }
        connected.pendingPublish = nil
        if allowed {
            connected.streams[streamID] = .publishing
            state = .connected(connected)
            // A publisher sends media: from now on it gets the limits for that (large messages and chunks).
            connection.decoder.limits = configuration.limits
            connection.send(.userControl(.streamBegin(streamID: streamID)))
            sendStatus(StatusInfo(level: "status", code: "NetStream.Publish.Start", description: "Start publishing"),
                       streamID: streamID)
            return flush([]) + [.publishStarted(streamID: streamID)]
        }
        connected.streams[streamID] = .created
        state = .closed
        sendStatus(StatusInfo(level: "error", code: rejectionCode, description: "Publishing refused"),
                   streamID: streamID)
        return flush([]) + [.close]
    }

    /// Sends metadata to a player as `onMetaData {…}`.
    /// - Returns: `.write`, or nothing when `streamID` is not playing or the encoded metadata would pass RTMP's
    ///   16 MiB message limit (the publisher's message was within it; re-encoding may add a few bytes).
    public mutating func sendMetadata(_ metadata: AMF0Object, streamID: UInt32) -> [Action] {
        guard isPlaying(streamID) else { return [] }
        let message = RTMPMessage(chunkStreamID: ChunkStreamID.data, timestamp: 0, type: .amf0Data,
                                  streamID: streamID, payload: DataMessage.onMetaData(metadata).payload)
        guard (try? connection.sendPayload(message)) != nil else { return [] }
        return flush([])
    }

    /// Sends audio, video or data to a player.
    /// - Returns: `.write`, or nothing when `media.streamID` is not playing or the body passes RTMP's 16 MiB
    ///   message limit (a relayed message never does: the decoder reads at most a 24-bit length).
    public mutating func sendMedia(_ media: MediaMessage) -> [Action] {
        guard isPlaying(media.streamID), (try? connection.sendPayload(media.message)) != nil else { return [] }
        return flush([])
    }

    /// Sends audio, video or data to a player, as bytes shared with every other player of the same chunk size and
    /// message stream id: a relay encodes each message once per stream instead of once per player.
    /// - Parameters:
    ///   - chunks: the message's shared encodings; `streamID` replaces the message's own stream id.
    ///   - streamID: the player's message stream id.
    /// - Returns: `.write` with the shared bytes, or nothing when `streamID` is not playing or the body passes
    ///   RTMP's 16 MiB message limit.
    public mutating func sendMedia(sharing chunks: inout SharedMediaChunks, streamID: UInt32) -> [Action] {
        guard let (pending, bytes) = mediaWrites(sharing: &chunks, streamID: streamID) else { return [] }
        return pending.isEmpty ? [.write(bytes)] : [.write(pending), .write(bytes)]
    }

    /// ``sendMedia(sharing:streamID:)`` for a relay's fast path, with no action array: the bytes to write in order.
    /// - Returns: `pending`, output of this session not sent yet (usually empty), then `shared`, the message's
    ///   shared chunk bytes; nil when `streamID` is not playing or the body passes RTMP's 16 MiB message limit.
    public mutating func mediaWrites(sharing chunks: inout SharedMediaChunks,
                                     streamID: UInt32) -> (pending: [UInt8], shared: [UInt8])? {
        guard isPlaying(streamID) else { return nil }
        let chunkSize = connection.encoder.chunkSize
        guard let bytes = try? chunks.bytes(chunkSize: chunkSize, streamID: streamID) else { return nil }
        connection.encoder.noteStandalone(chunkStreamID: chunks.kind.chunkStreamID, timestamp: chunks.timestamp,
                                          length: chunks.bodyCount, typeID: chunks.kind.rawValue, streamID: streamID)
        return (connection.takeOutput(), bytes)
    }

    /// Sends a Ping Request (RTMP §7.1.7); the driver's keepalive timer calls it.
    public mutating func sendPing(timestamp: UInt32) -> [Action] {
        guard case .connected = state else { return [] }
        connection.send(.userControl(.pingRequest(timestamp: timestamp)))
        return flush([])
    }

    /// Ends a player's stream with Stream EOF and `onStatus NetStream.Play.Stop` (the publisher went away).
    public mutating func endPlay(streamID: UInt32) -> [Action] {
        guard isPlaying(streamID), case .connected(var connected) = state else { return [] }
        connected.streams[streamID] = .created
        state = .connected(connected)
        connection.send(.userControl(.streamEOF(streamID: streamID)))
        sendStatus(StatusInfo(level: "status", code: "NetStream.Play.Stop", description: "Stopped playing"),
                   streamID: streamID)
        return flush([])
    }

    /// The transport reported end of stream or an error: the client went away.
    /// - Returns: `.publishStopped`/`.playStopped` for the streams that were active, so the driver can clean up.
    public mutating func connectionClosed() -> [Action] {
        defer { state = .closed }
        switch state {
        case .connected(let connected):
            return connected.streams.sorted { $0.key < $1.key }.compactMap { id, role in
                switch role {
                case .publishing: .publishStopped(streamID: id)
                case .playing: .playStopped(streamID: id)
                case .created, .authorizing: nil
                }
            }
        case .handshaking, .awaitingConnect, .closed:
            return []
        }
    }

    private func isPlaying(_ streamID: UInt32) -> Bool {
        switch state {
        case .connected(let connected): connected.streams[streamID] == .playing
        case .handshaking, .awaitingConnect, .closed: false
        }
    }

    private func isPublishing(_ streamID: UInt32) -> Bool {
        switch state {
        case .connected(let connected): connected.streams[streamID] == .publishing
        case .handshaking, .awaitingConnect, .closed: false
        }
    }

    // MARK: - Messages

    private mutating func handle(_ message: RTMPMessage, actions: inout [Action]) throws(RTMPError) {
        if try connection.handleControl(message) != nil { return }
        switch message.type {
        case .amf0Command, .amf3Command:
            let command = try CommandMessage(payload: message.payload, isAMF3: message.type == .amf3Command)
            try handle(command, streamID: message.streamID, actions: &actions)
        case .audio, .video, .amf0Data:
            guard case .connected(let connected) = state, connected.streams[message.streamID] == .publishing else {
                return  // media before the publish was accepted is dropped
            }
            if message.type == .amf0Data, let metadata = try DataMessage(payload: message.payload).metadata {
                actions.append(.metadata(streamID: message.streamID, metadata))
                return
            }
            let kind: MediaMessage.Kind = message.type == .audio ? .audio : message.type == .video ? .video : .data
            actions.append(.media(MediaMessage(kind: kind, timestamp: message.timestamp, streamID: message.streamID,
                                               body: message.payload)))
        default:
            break  // shared objects, aggregates and unknown types are not supported; ignore like nginx-rtmp
        }
    }

    private mutating func handle(_ command: CommandMessage, streamID: UInt32,
                                 actions: inout [Action]) throws(RTMPError) {
        switch state {
        case .handshaking, .closed:
            return
        case .awaitingConnect:
            guard command.name == "connect" else {
                throw RTMPError.unexpectedMessage("'\(command.name)' before connect")
            }
            // `live?token=t1` is app `live`: the query is for the ingest's checks (it stays in tcUrl), as
            // nginx-rtmp files it.
            let app = Self.withoutQuery(command.commandObject["app"]?.stringValue ?? "")
            connection.announceWindowSize(configuration.windowAcknowledgementSize)
            connection.send(.setPeerBandwidth(windowSize: configuration.peerBandwidth, limitType: .dynamic))
            connection.setOutgoingChunkSize(configuration.chunkSize)
            let properties: AMF0Object = ["fmsVer": .string("FMS/3,0,1,123"), "capabilities": .number(31)]
            var info = StatusInfo(level: "status", code: "NetConnection.Connect.Success",
                                  description: "Connection succeeded.").object
            info["objectEncoding"] = .number(0)
            sendCommand(CommandMessage(name: "_result", transactionID: command.transactionID,
                                       commandObject: .object(properties), arguments: [.object(info)]))
            state = .connected(Connected(app: app))
            actions.append(contentsOf: flush([]))
            actions.append(.connected(app: app))
        case .connected(var connected):
            try handle(command, streamID: streamID, connected: &connected, actions: &actions)
            if case .connected = state { state = .connected(connected) }
        }
    }

    private mutating func handle(_ command: CommandMessage, streamID: UInt32, connected: inout Connected,
                                 actions: inout [Action]) throws(RTMPError) {
        switch command.name {
        case "releaseStream":
            if command.transactionID != 0 { sendResult(command.transactionID) }
        case "FCPublish":
            sendCommand(CommandMessage(name: "onFCPublish", transactionID: 0, arguments: [
                .object(StatusInfo(level: "status", code: "NetStream.Publish.Start", description: "FCPublish").object),
            ]))
            if command.transactionID != 0 { sendResult(command.transactionID) }
        case "createStream":
            guard connected.streams.count < ServerSession.maximumStreams else {
                throw RTMPError.resourceLimitExceeded("more than \(ServerSession.maximumStreams) streams")
            }
            let newID = connected.nextStreamID
            connected.nextStreamID &+= 1
            connected.streams[newID] = .created
            sendResult(command.transactionID, .number(Double(newID)))
        case "publish":
            let name = Self.withoutQuery(command.arguments.first?.stringValue ?? "")
            let role = connected.streams[streamID]
            let hasRoom = connected.streams.count < ServerSession.maximumStreams
            let roomForStream = role == .created || (role == nil && hasRoom)
            guard streamID != 0, connected.pendingPublish == nil, roomForStream else {
                sendStatus(StatusInfo(level: "error", code: "NetStream.Publish.BadConnection",
                                      description: "Already publishing or stream not created"), streamID: streamID)
                return
            }
            connected.streams[streamID] = .authorizing(name: name)
            connected.pendingPublish = streamID
            actions.append(contentsOf: flush([]))
            actions.append(.authorizePublish(app: connected.app, streamName: name))
        case "play":
            let name = Self.withoutQuery(command.arguments.first?.stringValue ?? "")
            guard streamID != 0 else { return }
            guard connected.streams[streamID] != nil || connected.streams.count < ServerSession.maximumStreams else {
                throw RTMPError.resourceLimitExceeded("more than \(ServerSession.maximumStreams) streams")
            }
            connected.streams[streamID] = .playing
            connection.send(.userControl(.streamBegin(streamID: streamID)))
            sendStatus(StatusInfo(level: "status", code: "NetStream.Play.Reset", description: "Playing and resetting"),
                       streamID: streamID)
            sendStatus(StatusInfo(level: "status", code: "NetStream.Play.Start", description: "Started playing"),
                       streamID: streamID)
            let sampleAccess = DataMessage(values: [.string("|RtmpSampleAccess"), .boolean(true), .boolean(true)])
            connection.send(RTMPMessage(chunkStreamID: ChunkStreamID.data, timestamp: 0, type: .amf0Data,
                                        streamID: streamID, payload: sampleAccess.payload))
            actions.append(contentsOf: flush([]))
            actions.append(.play(app: connected.app, streamName: name, streamID: streamID))
        case "FCUnpublish":
            // The name is the stream key; FCUnpublish is on stream 0, so stop whichever stream publishes.
            for (id, role) in connected.streams where role == .publishing {
                connected.streams[id] = .created
                actions.append(.publishStopped(streamID: id))
            }
            if command.transactionID != 0 { sendResult(command.transactionID) }
        case "deleteStream", "closeStream":
            let target = command.name == "deleteStream"
                ? command.arguments.first?.numberValue.flatMap { UInt32(exactly: $0) } ?? streamID
                : streamID
            switch connected.streams[target] {
            case .publishing:
                actions.append(.publishStopped(streamID: target))
            case .playing:
                actions.append(.playStopped(streamID: target))
            case .authorizing:
                connected.pendingPublish = nil
            case .created, nil:
                break
            }
            if command.name == "deleteStream" {
                connected.streams[target] = nil
            } else if connected.streams[target] != nil {
                connected.streams[target] = .created
            }
        case "connect":
            throw RTMPError.unexpectedMessage("a second connect")
        default:
            break  // getStreamLength, _checkbw, ...: nginx-rtmp ignores unknown commands, and clients cope
        }
    }

    /// An application or stream name without its query (`key?token=t1` → `key`), as nginx-rtmp splits names
    /// into the name and its arguments: a query holds tokens and options for the ingest, not a different stream.
    public static func withoutQuery(_ name: String) -> String {
        String(name.prefix { $0 != "?" })
    }

    // MARK: - Output

    private mutating func sendCommand(_ command: CommandMessage, streamID: UInt32 = 0) {
        let chunkStream = streamID == 0 ? ChunkStreamID.command : ChunkStreamID.data
        connection.send(command.message(chunkStreamID: chunkStream, streamID: streamID))
    }

    private mutating func sendResult(_ transactionID: Double, _ value: AMF0Value = .undefined) {
        sendCommand(CommandMessage(name: "_result", transactionID: transactionID, arguments: [value]))
    }

    private mutating func sendStatus(_ info: StatusInfo, streamID: UInt32) {
        sendCommand(CommandMessage(name: "onStatus", transactionID: 0, arguments: [.object(info.object)]),
                    streamID: streamID)
    }

    private mutating func flush(_ actions: [Action]) -> [Action] {
        let bytes = connection.takeOutput()
        return bytes.isEmpty ? actions : actions + [.write(bytes)]
    }
}
