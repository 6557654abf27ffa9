import AMF
import Testing
@testable import RTMP

/// The publisher machine tested against the server machine (and, for rejections, against scripted servers).
struct PublisherSessionTests {
    @Test(arguments: [Int.max, 1, 7, 4096])
    func publishesAgainstTheServer(pieceSize: Int) throws {
        var pair = SessionPair(pieceSize: pieceSize)
        try pair.start()
        #expect(pair.publisherEvents == [.published(streamID: 1)])
        #expect(pair.publisher.isPublishing)
        #expect(pair.serverEvents == [
            .connected(app: "live"),
            .authorizePublish(app: "live", streamName: "secret-key-123"),
            .publishStarted(streamID: 1),
        ])
        // The publisher announced its chunk size first, then connect with the FMLE fields.
        let sent = pair.toServerTap
        #expect(sent.messages.first.flatMap { try? ProtocolControlMessage($0) } == .setChunkSize(4096))
        let connect = try #require(sent.commands.first)
        #expect(connect.name == "connect")
        #expect(connect.transactionID == 1)
        #expect(connect.commandObject["app"] == .string("live"))
        #expect(connect.commandObject["flashVer"] == .string("FMLE/3.0 (compatible; Stream)"))
        #expect(connect.commandObject["tcUrl"] == .string("rtmp://127.0.0.1/live"))
        #expect(connect.commandObject["swfUrl"] == .string("rtmp://127.0.0.1/live"))
        #expect(connect.commandObject["type"] == .string("nonprivate"))
        #expect(sent.commands.map(\.name) == ["connect", "releaseStream", "FCPublish", "createStream", "publish"])
        let publish = sent.commands[4]
        #expect(publish.arguments == [.string("secret-key-123"), .string("live")])
    }

    @Test(arguments: [Int.max, 1, 1000])
    func mediaArrivesWithTypesAndTimestamps(pieceSize: Int) throws {
        var pair = SessionPair(pieceSize: pieceSize)
        try pair.start()
        pair.serverEvents.removeAll()
        let metadata: AMF0Object = ["width": .number(1280), "height": .number(720)]
        try pair.run(pair.publisher.sendMetadata(metadata))
        let avcHeader: [UInt8] = [0x17, 0x00, 0, 0, 0, 0x01, 0x64, 0x00, 0x1F]
        let aacHeader: [UInt8] = [0xAF, 0x00, 0x11, 0x90]
        let keyframe = pseudoRandomBytes(100_000, seed: 21)
        try pair.run(pair.publisher.sendMedia(.video, timestamp: 0, body: avcHeader))
        try pair.run(pair.publisher.sendMedia(.audio, timestamp: 0, body: aacHeader))
        try pair.run(pair.publisher.sendMedia(.video, timestamp: 33, body: keyframe))
        try pair.run(pair.publisher.sendMedia(.audio, timestamp: 21, body: [0xAF, 0x01, 0x42]))
        try pair.run(pair.publisher.sendMedia(.video, timestamp: UInt32.max - 10, body: [0x27, 0x01]))
        try pair.run(pair.publisher.sendMedia(.video, timestamp: 23, body: [0x27, 0x01, 0x02]))  // wrapped
        #expect(pair.serverEvents == [
            .metadata(streamID: 1, metadata),
            .media(MediaMessage(kind: .video, timestamp: 0, streamID: 1, body: avcHeader)),
            .media(MediaMessage(kind: .audio, timestamp: 0, streamID: 1, body: aacHeader)),
            .media(MediaMessage(kind: .video, timestamp: 33, streamID: 1, body: keyframe)),
            .media(MediaMessage(kind: .audio, timestamp: 21, streamID: 1, body: [0xAF, 0x01, 0x42])),
            .media(MediaMessage(kind: .video, timestamp: UInt32.max - 10, streamID: 1, body: [0x27, 0x01])),
            .media(MediaMessage(kind: .video, timestamp: 23, streamID: 1, body: [0x27, 0x01, 0x02])),
        ])
        // Audio and video on their own chunk streams.
        let media = pair.toServerTap.messages.filter { $0.typeID == 8 || $0.typeID == 9 }
        #expect(media.allSatisfy { $0.chunkStreamID == ($0.typeID == 8 ? 4 : 6) })
    }

    @Test func anOversizedFrameFailsOnlyThatFrame() throws {
        var pair = SessionPair()
        try pair.start()
        let huge = [UInt8](repeating: 0x17, count: ChunkEncoder.maximumMessageLength + 1)
        #expect(throws: RTMPError.self) {
            try pair.publisher.sendMedia(.video, timestamp: 0, body: huge)
        }
        // The session goes on: the next frame reaches the server.
        try pair.run(pair.publisher.sendMedia(.video, timestamp: 33, body: [0x27, 0x01, 0, 0, 0, 0xAA]))
        #expect(pair.publisher.isPublishing)
    }

    @Test func stopSendsFCUnpublishAndDeleteStream() throws {
        var pair = SessionPair()
        try pair.start()
        pair.serverEvents.removeAll()
        try pair.run(pair.publisher.stop())
        #expect(pair.publisherEvents.last == .closed)
        #expect(pair.toServerTap.commands.suffix(2).map(\.name) == ["FCUnpublish", "deleteStream"])
        #expect(pair.toServerTap.commands.last?.arguments == [.number(1)])
        #expect(pair.serverEvents == [.publishStopped(streamID: 1)])
        #expect(try pair.publisher.sendMedia(.video, timestamp: 0, body: [1]) == [])
    }

    @Test func refusedKeyIsATypedRejectionWithoutTheKey() throws {
        var pair = SessionPair(autoAuthorize: false)
        try pair.start()
        let failure = try #require(pair.publisherEvents.first)
        guard case .failed(let error) = failure else {
            Issue.record("expected a failure, got \(failure)")
            return
        }
        #expect(error.code == .publishRejected)
        #expect(error.statusCode == "NetStream.Publish.BadName")
        #expect(error.description.hasPrefix("server refused publish: NetStream.Publish.BadName"))
        #expect(error.description.hasSuffix("— check the stream key"))
        #expect(!error.description.contains("secret-key-123"))
        #expect(pair.serverEvents.last == .close)
        #expect(!pair.publisher.isPublishing)
    }

    @Test func answersPingsAndAcknowledgesPerWindow() throws {
        var pair = SessionPair(server: ServerSession.Configuration(windowAcknowledgementSize: 1000,
                                                                   peerBandwidth: 2000))
        try pair.start()
        // Set Peer Bandwidth 2000 is answered with the publisher's Window Acknowledgement Size 2000.
        #expect(pair.toServerTap.controls.contains(.windowAcknowledgementSize(2000)))
        for timestamp in UInt32(1)...100 {
            try pair.run(pair.server.sendPing(timestamp: timestamp))
        }
        let publisherControls = pair.toServerTap.controls
        #expect(publisherControls.contains(.userControl(.pingResponse(timestamp: 1))))
        #expect(publisherControls.contains(.userControl(.pingResponse(timestamp: 100))))
        let acknowledgements = publisherControls.compactMap {
            if case .acknowledgement(let sequence) = $0 { sequence } else { nil }
        }
        #expect(acknowledgements.count >= 1)
        #expect(acknowledgements.allSatisfy { $0 >= 1000 })
        // The server acknowledges the publisher's media per the publisher's 2000-byte window.
        try pair.run(pair.publisher.sendMedia(.video, timestamp: 0, body: [UInt8](repeating: 0, count: 5000)))
        #expect(pair.toPublisherTap.controls.contains { if case .acknowledgement = $0 { true } else { false } })
    }

    // MARK: - Against scripted servers

    /// Runs the publisher against hand-written server messages (after a real server handshake).
    private func scripted(_ replies: (inout ChunkEncoder) throws -> [UInt8]) throws -> [PublisherSession.Action] {
        var publisher = PublisherSession(configuration: .init(app: "live", tcUrl: "rtmp://h/live",
                                                              streamKey: "secret-key-123"))
        var serverHandshake = ServerHandshake(time: 0, random: pseudoRandomBytes(1528, seed: 1))
        var actions: [PublisherSession.Action] = []
        for action in publisher.start(random: pseudoRandomBytes(1528, seed: 2)) {
            guard case .write(let bytes) = action else { continue }
            let reply = try serverHandshake.receive(bytes).reply
            actions += publisher.bytesReceived(reply)
        }
        var encoder = ChunkEncoder()
        return try actions + publisher.bytesReceived(replies(&encoder))
    }

    private func result(_ transactionID: Double, _ arguments: [AMF0Value], streamID: UInt32 = 0) -> RTMPMessage {
        CommandMessage(name: "_result", transactionID: transactionID, arguments: arguments)
            .message(streamID: streamID)
    }

    private func status(_ level: String, _ code: String, _ description: String, streamID: UInt32) -> RTMPMessage {
        CommandMessage(name: "onStatus", transactionID: 0,
                       arguments: [.object(StatusInfo(level: level, code: code, description: description).object)])
            .message(chunkStreamID: 5, streamID: streamID)
    }

    @Test func serverDescriptionEchoingTheKeyIsRedacted() throws {
        let actions = try scripted { encoder in
            let success = StatusInfo(level: "status", code: "NetConnection.Connect.Success", description: "").object
            return try encoder.encode(result(1, [.object(success)]))
                + encoder.encode(result(4, [.number(7)]))       // createStream (transaction 4) → stream 7
                + encoder.encode(status("error", "NetStream.Publish.Denied", "stream secret-key-123 is banned",
                                        streamID: 7))
        }
        guard case .failed(let error) = actions.last else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .publishRejected)
        #expect(error.statusCode == "NetStream.Publish.Denied")
        #expect(!error.description.contains("secret-key-123"))
        #expect(error.description.contains("••••"))
    }

    @Test func connectErrorIsAConnectRejection() throws {
        let actions = try scripted { encoder in
            let info = StatusInfo(level: "error", code: "NetConnection.Connect.Rejected",
                                  description: "[ AccessManager.Reject ] : [ code=403 need auth; authmod=adobe ]")
            return try encoder.encode(CommandMessage(name: "_error", transactionID: 1,
                                                     arguments: [.object(info.object)]).message())
        }
        guard case .failed(let error) = actions.last else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .connectRejected)
        #expect(error.statusCode == "NetConnection.Connect.Rejected")
    }

    @Test func resultForAnotherTransactionIsIgnored() throws {
        let actions = try scripted { encoder in
            try encoder.encode(result(9, [.null]))                  // not the connect transaction
        }
        #expect(!actions.contains { if case .failed = $0 { true } else { false } })
        #expect(!actions.contains { if case .published = $0 { true } else { false } })
    }

    @Test func garbageFromTheServerFails() {
        var publisher = PublisherSession(configuration: .init(app: "a", tcUrl: "rtmp://h/a", streamKey: "k"))
        _ = publisher.start(random: pseudoRandomBytes(1528, seed: 2))
        let actions = publisher.bytesReceived(Array("HTTP/1.1 400 Bad Request".utf8))
        guard case .failed(let error) = actions.last else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .unsupportedVersion)
        #expect(publisher.bytesReceived([1, 2, 3]) == [])
    }

    @Test func serverGoingAwayIsATypedFailureOnBothSides() throws {
        var pair = SessionPair()
        try pair.start()
        pair.serverEvents.removeAll()
        let failure = pair.publisher.connectionClosed()
        guard case .failed(let error) = failure.first else {
            Issue.record("expected a failure, got \(failure)")
            return
        }
        #expect(error.code == .closed)
        #expect(pair.publisher.connectionClosed() == [])
        #expect(pair.server.connectionClosed() == [.publishStopped(streamID: 1)])
        #expect(pair.server.connectionClosed() == [])
    }

    @Test func closeDuringConnectHintsAtTheApplication() {
        var publisher = PublisherSession(configuration: .init(app: "nope", tcUrl: "rtmp://h/nope", streamKey: "k"))
        _ = publisher.start(random: pseudoRandomBytes(1528, seed: 2))
        var handshake = ServerHandshake(time: 0, random: pseudoRandomBytes(1528, seed: 1))
        let reply = (try? handshake.receive([0x03] + [UInt8](repeating: 0, count: 1536)).reply) ?? []
        _ = publisher.bytesReceived(reply)
        guard case .failed(let error) = publisher.connectionClosed().first else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.description.contains("application name"))
    }
}
