import AMF
import Testing
@testable import RTMP

/// The server machine driven by a scripted client (real client handshake, then hand-encoded commands), and by the
/// publisher machine in `PublisherSessionTests`.
struct ServerSessionTests {
    /// A scripted client: handshakes with the server, then sends encoded messages and decodes the answers.
    struct Client {
        var server = ServerSession(time: 0, random: pseudoRandomBytes(1528, seed: 31))
        var encoder = ChunkEncoder()
        var decoder = ChunkDecoder()
        var events: [ServerSession.Action] = []
        var received: [RTMPMessage] = []

        init() throws {
            var handshake = ClientHandshake(time: 0, random: pseudoRandomBytes(1528, seed: 30))
            var pending = handshake.start()
            while !pending.isEmpty {
                var reply: [UInt8] = []
                for action in server.bytesReceived(pending) {
                    guard case .write(let bytes) = action else { continue }
                    reply += try handshake.receive(bytes).reply
                }
                pending = reply
            }
            precondition(handshake.isComplete)
        }

        mutating func send(_ messages: RTMPMessage...) throws {
            var bytes: [UInt8] = []
            for message in messages { bytes += try encoder.encode(message) }
            try deliver(server.bytesReceived(bytes))
        }

        mutating func deliver(_ actions: [ServerSession.Action]) throws {
            for action in actions {
                if case .write(let bytes) = action {
                    received += try decodeAll([bytes], decoder: &decoder)
                } else {
                    events.append(action)
                }
            }
        }

        mutating func takeReceived() -> [RTMPMessage] {
            defer { received.removeAll() }
            return received
        }

        static func command(_ name: String, _ transactionID: Double, _ arguments: [AMF0Value] = [],
                            object: AMF0Value = .null, streamID: UInt32 = 0) -> RTMPMessage {
            CommandMessage(name: name, transactionID: transactionID, commandObject: object, arguments: arguments)
                .message(chunkStreamID: streamID == 0 ? 3 : 8, streamID: streamID)
        }

        /// A client connected to `live` and publishing `k` on message stream 1, its events so far cleared.
        static func publishing() throws -> Client {
            var client = try Client()
            try client.connect()
            try client.send(command("createStream", 2))
            try client.send(command("publish", 3, [.string("k"), .string("live")], streamID: 1))
            try client.deliver(client.server.authorization(allowed: true))
            client.events.removeAll()
            return client
        }

        mutating func connect(app: String = "live") throws {
            let object: AMF0Object = ["app": .string(app), "tcUrl": .string("rtmp://h/\(app)")]
            try send(Self.command("connect", 1, object: .object(object)))
        }
    }

    @Test func connectIsAnsweredLikeNginx() throws {
        var client = try Client()
        try client.connect()
        #expect(client.events == [.connected(app: "live")])
        let received = client.takeReceived()
        let controls = received.compactMap { try? ProtocolControlMessage($0) }
        #expect(controls == [
            .windowAcknowledgementSize(5_000_000),
            .setPeerBandwidth(windowSize: 5_000_000, limitType: .dynamic),
            .setChunkSize(4096),
        ])
        let result = try CommandMessage(payload: try #require(received.last).payload)
        #expect(result.name == "_result")
        #expect(result.transactionID == 1)
        #expect(result.commandObject["fmsVer"]?.stringValue != nil)
        #expect(result.commandObject["capabilities"] == .number(31))
        #expect(result.info?.code == "NetConnection.Connect.Success")
        #expect(result.info?.level == "status")
        #expect(result.arguments.first?["objectEncoding"] == .number(0))
    }

    @Test func playFlow() throws {
        var client = try Client()
        try client.connect(app: "app")
        try client.send(Client.command("createStream", 2))
        let created = try CommandMessage(payload: try #require(client.takeReceived().last).payload)
        #expect(created.name == "_result")
        #expect(created.transactionID == 2)
        let streamID = try #require(created.arguments.first?.numberValue.map(UInt32.init))
        try client.send(Client.command("getStreamLength", 3, [.string("show")]),    // unknown: ignored like nginx
                        Client.command("play", 0, [.string("show"), .number(-2000)], streamID: streamID))
        #expect(client.events.last == .play(app: "app", streamName: "show", streamID: streamID))
        let received = client.takeReceived()
        let controls = received.compactMap { try? ProtocolControlMessage($0) }
        #expect(controls == [.userControl(.streamBegin(streamID: streamID))])
        let statuses = received.filter { $0.type == .amf0Command }
            .compactMap { try? CommandMessage(payload: $0.payload) }
        #expect(statuses.map(\.name) == ["onStatus", "onStatus"])
        #expect(statuses.map { $0.info?.code } == ["NetStream.Play.Reset", "NetStream.Play.Start"])
        #expect(received.allSatisfy { $0.type != .amf0Command || $0.streamID == streamID })
        let sampleAccess = try #require(received.first { $0.type == .amf0Data })
        #expect(try DataMessage(payload: sampleAccess.payload).values.first == .string("|RtmpSampleAccess"))

        // The driver answers with metadata and media.
        try client.deliver(client.server.sendMetadata(["width": .number(640)], streamID: streamID))
        try client.deliver(client.server.sendMedia(MediaMessage(kind: .video, timestamp: 0, streamID: streamID,
                                                                body: [0x17, 0x00, 0, 0, 0])))
        let frame = pseudoRandomBytes(10_000, seed: 3)
        try client.deliver(client.server.sendMedia(MediaMessage(kind: .video, timestamp: 40, streamID: streamID,
                                                                body: frame)))
        try client.deliver(client.server.sendMedia(MediaMessage(kind: .audio, timestamp: 23, streamID: streamID,
                                                                body: [0xAF, 0x01])))
        let media = client.takeReceived()
        #expect(try DataMessage(payload: media[0].payload).metadata == ["width": .number(640)])
        #expect(media.dropFirst().map { MediaMessage(kind: MediaMessage.Kind(rawValue: $0.typeID)!,
                                                      timestamp: $0.timestamp, streamID: $0.streamID,
                                                      body: $0.payload) } == [
            MediaMessage(kind: .video, timestamp: 0, streamID: streamID, body: [0x17, 0x00, 0, 0, 0]),
            MediaMessage(kind: .video, timestamp: 40, streamID: streamID, body: frame),
            MediaMessage(kind: .audio, timestamp: 23, streamID: streamID, body: [0xAF, 0x01]),
        ])

        // Media for a stream that is not playing is not sent.
        #expect(client.server.sendMedia(MediaMessage(kind: .audio, timestamp: 0, streamID: 99, body: [1])) == [])

        // The publisher goes away: Stream EOF and Play.Stop; then the player deletes its stream.
        try client.deliver(client.server.endPlay(streamID: streamID))
        let ended = client.takeReceived()
        #expect(ended.compactMap { try? ProtocolControlMessage($0) } == [.userControl(.streamEOF(streamID: streamID))])
        #expect(try CommandMessage(payload: try #require(ended.last).payload).info?.code == "NetStream.Play.Stop")
        try client.send(Client.command("play", 0, [.string("show")], streamID: streamID))
        try client.send(Client.command("deleteStream", 4, [.number(Double(streamID))]))
        #expect(client.events.last == .playStopped(streamID: streamID))
    }

    @Test func sharedMediaInterleavesWithPerPlayerMedia() throws {
        var client = try Client()
        try client.connect(app: "app")
        try client.send(Client.command("createStream", 2))
        let created = try CommandMessage(payload: try #require(client.takeReceived().last).payload)
        let streamID = try #require(created.arguments.first?.numberValue.map(UInt32.init))
        try client.send(Client.command("play", 0, [.string("show")], streamID: streamID))
        _ = client.takeReceived()

        // A relay's shared bytes (type-0 headers, encoded once for every player) between this player's own
        // messages on the same chunk stream (a late joiner's replay): the decoder must see every one intact.
        let frame = pseudoRandomBytes(10_000, seed: 4)
        let sent = [
            MediaMessage(kind: .video, timestamp: 0, streamID: 0, body: [0x17, 0x00, 0, 0, 0]),
            MediaMessage(kind: .video, timestamp: 33, streamID: 0, body: frame),
            MediaMessage(kind: .video, timestamp: 66, streamID: 0, body: [0x27, 0x01, 0, 0, 0, 9]),
            MediaMessage(kind: .video, timestamp: 100, streamID: 0, body: frame),
            MediaMessage(kind: .audio, timestamp: 101, streamID: 0, body: [0xAF, 0x01]),
        ]
        var shared = sent.map { SharedMediaChunks($0) }
        for index in sent.indices {
            if index.isMultiple(of: 2) {
                var own = sent[index]
                own.streamID = streamID
                try client.deliver(client.server.sendMedia(own))
            } else {
                try client.deliver(client.server.sendMedia(sharing: &shared[index], streamID: streamID))
            }
        }
        let received = client.takeReceived().map {
            MediaMessage(kind: MediaMessage.Kind(rawValue: $0.typeID)!, timestamp: $0.timestamp,
                         streamID: $0.streamID, body: $0.payload)
        }
        #expect(received == sent.map { var message = $0; message.streamID = streamID; return message })

        // Shared media for a stream that is not playing is not sent.
        var other = SharedMediaChunks(sent[4])
        #expect(client.server.sendMedia(sharing: &other, streamID: 99) == [])
    }

    @Test func mediaBeforeAuthorizationIsDropped() throws {
        var client = try Client()
        try client.connect()
        try client.send(Client.command("createStream", 2))
        try client.send(Client.command("publish", 3, [.string("k"), .string("live")], streamID: 1))
        #expect(client.events.last == .authorizePublish(app: "live", streamName: "k"))
        try client.send(RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1, payload: [0x17]))
        #expect(client.events.count == 2)
        try client.deliver(client.server.authorization(allowed: true))
        #expect(client.events.last == .publishStarted(streamID: 1))
        try client.send(RTMPMessage(chunkStreamID: 6, timestamp: 5, type: .video, streamID: 1, payload: [0x17]))
        #expect(client.events.last == .media(MediaMessage(kind: .video, timestamp: 5, streamID: 1, body: [0x17])))
        try client.send(Client.command("closeStream", 0, streamID: 1))
        #expect(client.events.last == .publishStopped(streamID: 1))
    }

    @Test func mediaFedThroughAReusedReadBufferKeepsItsBytes() throws {
        var client = try Client.publishing()

        // Two video messages of several 128-byte chunks, interleaved with audio, read in 50-byte pieces through one
        // buffer that is scribbled over after every read, as a transport's reused read buffer is by the next read.
        let frames = [pseudoRandomBytes(1000, seed: 5), pseudoRandomBytes(700, seed: 6)]
        var wire: [UInt8] = []
        wire += try client.encoder.encode(RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1,
                                                      payload: frames[0]))
        wire += try client.encoder.encode(RTMPMessage(chunkStreamID: 4, timestamp: 10, type: .audio, streamID: 1,
                                                      payload: [0xAF, 0x01, 7]))
        wire += try client.encoder.encode(RTMPMessage(chunkStreamID: 6, timestamp: 33, type: .video, streamID: 1,
                                                      payload: frames[1]))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 50, alignment: 1)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < wire.count {
            let piece = wire[offset..<min(offset + 50, wire.count)]
            buffer.copyBytes(from: piece)
            try client.deliver(client.server.bytesReceived(UnsafeRawBufferPointer(rebasing: buffer[..<piece.count])))
            buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)
            offset += piece.count
        }
        #expect(client.events == [
            .media(MediaMessage(kind: .video, timestamp: 0, streamID: 1, body: frames[0])),
            .media(MediaMessage(kind: .audio, timestamp: 10, streamID: 1, body: [0xAF, 0x01, 7])),
            .media(MediaMessage(kind: .video, timestamp: 33, streamID: 1, body: frames[1])),
        ])
    }

    /// The relay's fast path: media before any action come out in `media`, in order; from the first action on
    /// (here metadata, then a command) everything is an action, so running `media` first keeps the wire's order.
    @Test(arguments: [1, 7, 4096])
    func mediaOfAReadComeOutBeforeItsActions(pieceSize: Int) throws {
        var client = try Client.publishing()

        let frame = pseudoRandomBytes(300, seed: 8)
        let metadata = DataMessage.setDataFrame(["width": .number(1280)])
        var wire: [UInt8] = []
        for message in [
            RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1, payload: frame),
            RTMPMessage(chunkStreamID: 4, timestamp: 10, type: .audio, streamID: 1, payload: [0xAF, 0x01, 7]),
            RTMPMessage(chunkStreamID: 5, timestamp: 20, type: .amf0Data, streamID: 1, payload: metadata.payload),
            RTMPMessage(chunkStreamID: 4, timestamp: 30, type: .audio, streamID: 1, payload: [0xAF, 0x01, 9]),
            Client.command("closeStream", 0, streamID: 1),
            RTMPMessage(chunkStreamID: 4, timestamp: 40, type: .audio, streamID: 1, payload: [0xAF, 0x01, 11]),
        ] {
            wire += try client.encoder.encode(message)
        }
        // The order the driver runs them in: each read's media, then its actions.
        var ran: [ServerSession.Action] = []
        var media: [MediaMessage] = []
        var offset = 0
        while offset < wire.count {
            let piece = Array(wire[offset..<min(offset + pieceSize, wire.count)])
            let actions = piece.withUnsafeBytes { client.server.bytesReceived($0, media: &media) }
            ran += media.map { .media($0) }
            media.removeAll()
            ran += actions.filter { if case .write = $0 { false } else { true } }
            offset += piece.count
        }
        #expect(ran == [
            .media(MediaMessage(kind: .video, timestamp: 0, streamID: 1, body: frame)),
            .media(MediaMessage(kind: .audio, timestamp: 10, streamID: 1, body: [0xAF, 0x01, 7])),
            .metadata(streamID: 1, ["width": .number(1280)]),
            .media(MediaMessage(kind: .audio, timestamp: 30, streamID: 1, body: [0xAF, 0x01, 9])),
            .publishStopped(streamID: 1),
        ])
    }

    @Test func mediaOfAStreamNotPublishedStayOutOfTheFastPath() throws {
        var client = try Client()
        try client.connect()
        try client.send(Client.command("createStream", 2))
        try client.send(Client.command("play", 3, [.string("k")], streamID: 1))
        client.events.removeAll()
        let wire = try client.encoder.encode(RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1,
                                                         payload: [0x17, 0x01]))
        var media: [MediaMessage] = []
        let actions = wire.withUnsafeBytes { client.server.bytesReceived($0, media: &media) }
        #expect(media.isEmpty)
        #expect(actions.isEmpty)
    }

    @Test func theHandshakeWorksThroughTheBufferEntryToo() throws {
        var server = ServerSession(time: 0, random: pseudoRandomBytes(1528, seed: 31))
        var handshake = ClientHandshake(time: 0, random: pseudoRandomBytes(1528, seed: 30))
        var pending = handshake.start()
        while !pending.isEmpty {
            var reply: [UInt8] = []
            let actions = pending.withUnsafeBytes { server.bytesReceived($0) }
            for action in actions {
                guard case .write(let bytes) = action else { continue }
                reply += try handshake.receive(bytes).reply
            }
            pending = reply
        }
        #expect(handshake.isComplete)
    }

    @Test func aQueryIsNotPartOfTheAppOrTheStreamName() throws {
        var client = try Client()
        try client.connect(app: "live?token=t1")
        #expect(client.events == [.connected(app: "live")])
        try client.send(Client.command("createStream", 2))
        try client.send(Client.command("publish", 3, [.string("key?s_bl=1"), .string("live")], streamID: 1))
        #expect(client.events.last == .authorizePublish(app: "live", streamName: "key"))
        try client.send(Client.command("createStream", 4))
        try client.send(Client.command("play", 0, [.string("other?start=-2")], streamID: 2))
        #expect(client.events.last == .play(app: "live", streamName: "other", streamID: 2))
    }

    /// A message of `length` bytes on chunk stream 6, in 4096-byte chunks, as the server's decoder then expects.
    private static func bigVideo(length: Int, encoder: inout ChunkEncoder) throws -> [UInt8] {
        try encoder.encode(RTMPMessage(chunkStreamID: 6, timestamp: 0, type: .video, streamID: 1,
                                   payload: [0x17] + [UInt8](repeating: 0x65, count: length - 1)))
    }

    @Test(arguments: [false, true])
    func limitsFollowThePhase(publishAllowed: Bool) throws {
        var client = try Client()
        try client.connect()
        try client.send(ProtocolControlMessage.setChunkSize(4096).message())
        client.encoder.setChunkSize(4096)
        try client.send(Client.command("createStream", 2))
        try client.send(Client.command("publish", 3, [.string("k"), .string("live")], streamID: 1))
        try client.deliver(client.server.authorization(allowed: publishAllowed))
        guard publishAllowed else {
            // Refused: the server closes; nothing more is read.
            #expect(client.events.last == .close)
            return
        }
        // A 1 MB keyframe: a publisher's media, fine once the publish was allowed.
        try client.deliver(client.server.bytesReceived(Self.bigVideo(length: 1 << 20, encoder: &client.encoder)))
        guard case .media(let frame) = client.events.last else {
            Issue.record("expected the frame, got \(String(describing: client.events.last))")
            return
        }
        #expect(frame.body.count == 1 << 20)
    }

    @Test(arguments: [70_000, 1 << 20])
    func beforePublishAPeerMaySendOnlyCommandSizedMessages(length: Int) throws {
        var client = try Client()
        try client.connect()
        try client.send(Client.command("createStream", 2))
        var encoder = ChunkEncoder()
        try client.deliver(client.server.bytesReceived(Self.bigVideo(length: length, encoder: &encoder)))
        guard case .failed(let error) = client.events.last else {
            Issue.record("expected a failure, got \(String(describing: client.events.last))")
            return
        }
        #expect(error.code == .messageTooLarge)
        #expect(error.description.contains("limits before publish"), "\(error)")
        #expect(client.server.bufferedByteCount < 70_000)
    }

    @Test func beforeConnectAChunkSizeOver64KiBIsRefused() throws {
        var client = try Client()
        try client.send(ProtocolControlMessage.setChunkSize(0x1_0001).message())
        guard case .failed(let error) = client.events.last else {
            Issue.record("expected a failure, got \(client.events)")
            return
        }
        #expect(error.code == .chunkSizeOutOfRange)
        #expect(error.description.contains("limits before publish"), "\(error)")
    }

    @Test func secondPublishWhileAuthorizingIsRefused() throws {
        var client = try Client()
        try client.connect()
        _ = client.takeReceived()
        try client.send(Client.command("publish", 3, [.string("a")], streamID: 1),
                        Client.command("publish", 4, [.string("b")], streamID: 2))
        #expect(client.events.filter { if case .authorizePublish = $0 { true } else { false } }.count == 1)
        let refused = try CommandMessage(payload: try #require(client.takeReceived().last).payload)
        #expect(refused.info?.isError == true)
    }

    @Test func amf3ConnectIsUnderstood() throws {
        var client = try Client()
        let connect = CommandMessage(name: "connect", transactionID: 1, commandObject: .object(["app": .string("x")]))
        try client.send(RTMPMessage(chunkStreamID: 3, timestamp: 0, type: .amf3Command, streamID: 0,
                                    payload: [0x00] + connect.payload))
        #expect(client.events == [.connected(app: "x")])
    }

    @Test func commandBeforeConnectFails() throws {
        var client = try Client()
        try client.send(Client.command("createStream", 2))
        guard case .failed(let error) = client.events.last else {
            Issue.record("expected a failure, got \(client.events)")
            return
        }
        #expect(error.code == .unexpectedMessage)
    }

    @Test func tooManyStreamsFails() throws {
        var client = try Client()
        try client.connect()
        for transaction in 0..<ServerSession.maximumStreams {
            try client.send(Client.command("createStream", Double(transaction + 2)))
        }
        #expect(!client.events.contains { if case .failed = $0 { true } else { false } })
        try client.send(Client.command("createStream", 99))
        guard case .failed(let error) = client.events.last else {
            Issue.record("expected a failure, got \(client.events)")
            return
        }
        #expect(error.code == .resourceLimitExceeded)
    }

    @Test func httpRequestIsATypedError() {
        var server = ServerSession(random: pseudoRandomBytes(1528, seed: 1))
        let actions = server.bytesReceived(Array("GET / HTTP/1.1\r\n".utf8))
        guard case .failed(let error) = actions.last else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .unsupportedVersion)
        #expect(server.bytesReceived([3]) == [])
    }

    @Test func malformedChunkFromAClientFails() throws {
        var client = try Client()
        let actions = client.server.bytesReceived([0x43, 0, 0, 0, 0, 0, 1, 0x14, 0x00])  // fmt 1 with no fmt 0 before
        guard case .failed(let error) = actions.last else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .malformedChunk)
    }
}
