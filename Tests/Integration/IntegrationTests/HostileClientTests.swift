import AMF
import Foundation
import IngestServer
import Publisher
import RTMP
import StreamCore
import TestSupport
import Testing

/// Our ingest server against fake clients that misbehave: each gets a clear error event or is handled, the
/// server allocates little, and it keeps serving real publishers and players meanwhile.
@Suite(.serialized) struct HostileClientTests {
    /// What the fake client does wrong.
    enum Misbehaviour: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case hugeSetChunkSize
        case sixteenMegabyteMessageLength
        case deepAMFNestingInConnect
        case manyMessagesInProgress
        case createsStreamsWithoutEnd
        case unknownMessageTypesAroundConnect
        case playsAndNeverReads
        case closesMidChunkWhilePublishing
        case mediaTimestampsBackwardsAndWrapping

        var testDescription: String { rawValue }

        /// A word of the server's `connectionFailed` reason, or nil when the server must take it in its stride.
        var failureWord: String? {
            switch self {
            case .hugeSetChunkSize: "chunk size"
            case .sixteenMegabyteMessageLength: "16777215"
            case .deepAMFNestingInConnect: "malformed"
            case .manyMessagesInProgress: "in progress"
            case .createsStreamsWithoutEnd: "streams"
            case .unknownMessageTypesAroundConnect, .playsAndNeverReads, .closesMidChunkWhilePublishing,
                 .mediaTimestampsBackwardsAndWrapping: nil
            }
        }

        /// The stream a never-reading player asks for (the good publisher's, in the test that has one).
        static let playedKey = "the-good-publisher"

        /// The stream key a publishing case uses.
        var key: String { "hostile-client-\(rawValue)" }

        /// The fake client's script, on a socket connected to the server.
        func play(on socket: RawSocket, port: Int) throws {
            switch self {
            case .hugeSetChunkSize:
                _ = try HostilePeer.clientHandshake(socket)
                try socket.write(HostileBytes.setChunkSize(0x7FFF_FFFF))
            case .sixteenMegabyteMessageLength:
                _ = try HostilePeer.clientHandshake(socket)
                try socket.write(HostileBytes.hugeMessageHeader(typeID: 9))
                for _ in 0..<16 {
                    guard (try? socket.write([UInt8](repeating: 0x41, count: 64 * 1024), timeout: 2)) != nil else {
                        break
                    }
                }
            case .deepAMFNestingInConnect:
                _ = try HostilePeer.clientHandshake(socket)
                var encoder = ChunkEncoder()
                // 9000 levels: far past the AMF0 decoder's depth limit, and still within the 64 KiB a peer may
                // send before it is allowed to publish (a larger connect is refused before it is decoded).
                let payload = HostileBytes.deeplyNestedCommand(name: "connect", transactionID: 1, depth: 9_000)
                try socket.write(encoder.encode(RTMPMessage(chunkStreamID: 3, timestamp: 0, type: .amf0Command,
                                                            streamID: 0, payload: payload)))
            case .manyMessagesInProgress:
                _ = try HostilePeer.clientHandshake(socket)
                try socket.write(HostileBytes.partialMessages(chunkStreams: 10..<60))
            case .createsStreamsWithoutEnd:
                _ = try HostilePeer.clientHandshake(socket)
                var encoder = ChunkEncoder()
                let connect = CommandMessage(name: "connect", transactionID: 1, commandObject: .object([
                    "app": .string("live"), "tcUrl": .string("rtmp://127.0.0.1:\(port)/live"),
                ]))
                var bytes = try encoder.encode(connect.message())
                for transaction in 2..<1000 {
                    bytes += try encoder.encode(CommandMessage(name: "createStream",
                                                           transactionID: Double(transaction)).message())
                }
                _ = try? socket.write(bytes, timeout: 5)  // the server may close before taking it all
            case .playsAndNeverReads:
                try HostilePeer.play(socket, key: Self.playedKey, port: port)
                // Then it reads nothing for two seconds while the server has media for it.
                Thread.sleep(forTimeInterval: 2)
                socket.close()
                return
            case .unknownMessageTypesAroundConnect:
                var decoder = ChunkDecoder()
                decoder.append(try HostilePeer.clientHandshake(socket))
                var encoder = ChunkEncoder()
                var bytes: [UInt8] = []
                for message in HostileBytes.unknownTypeMessages(chunkStreamID: 8) {
                    bytes += try encoder.encode(message)
                }
                let connect = CommandMessage(name: "connect", transactionID: 1, commandObject: .object([
                    "app": .string("live"), "tcUrl": .string("rtmp://127.0.0.1:\(port)/live"),
                ]))
                bytes += try encoder.encode(connect.message())
                for message in HostileBytes.unknownTypeMessages(chunkStreamID: 8) {
                    bytes += try encoder.encode(message)
                }
                try socket.write(bytes)
                let result = try HostilePeer.readMessage(socket, decoder: &decoder) {
                    HostilePeer.isCommand($0, "_result")
                }
                guard try CommandMessage(payload: result.payload).info?.code == "NetConnection.Connect.Success" else {
                    throw RawSocket.Failure(description: "connect was not accepted after unknown messages")
                }
                socket.shutdownWrite()
            case .closesMidChunkWhilePublishing:
                var session = try HostilePeer.publish(socket, key: key, port: port)
                try HostilePeer.run(session.sendMedia(.video, timestamp: 0, body: Self.keyframe(size: 2000)),
                                    on: socket)
                // Half of a 20 kB frame, then gone.
                let frame = try session.sendMedia(.video, timestamp: 33, body: Self.keyframe(size: 20_000))
                guard case .write(let bytes) = frame.first else { throw RawSocket.Failure(description: "no bytes") }
                try socket.write(Array(bytes.prefix(bytes.count / 2)))
                socket.close()
                return
            case .mediaTimestampsBackwardsAndWrapping:
                var session = try HostilePeer.publish(socket, key: key, port: port)
                var encoder = ChunkEncoder()
                // From 4.5 s before the 32-bit wrap, 30 frames a second across it, then jumps backwards.
                var timestamps = (0..<200).map { UInt32(0xFFFF_EE6C) &+ UInt32($0) &* 33 }
                timestamps += [1000, 500, 0, 0xFFFF_FFFF, 7]
                for (index, timestamp) in timestamps.enumerated() {
                    let body = index % 30 == 0 ? Self.keyframe(size: 600) : [0x27, 0x01, 0, 0, 0] + [UInt8](
                        repeating: UInt8(truncatingIfNeeded: index), count: 300)
                    try HostilePeer.run(session.sendMedia(.video, timestamp: timestamp, body: body), on: socket)
                    try HostilePeer.run(session.sendMedia(.audio, timestamp: timestamp &- 5, body: [0xAF, 0x01, 0x21]),
                                        on: socket)
                    if index % 50 == 0 {
                        var unknown: [UInt8] = []
                        for message in HostileBytes.unknownTypeMessages(chunkStreamID: 8, streamID: 1) {
                            unknown += try encoder.encode(message)
                        }
                        try socket.write(unknown)
                    }
                }
                try HostilePeer.run(session.stop(), on: socket)
                socket.shutdownWrite()
            }
            // The server closes: on its own after an error, after our end of stream otherwise.
            try socket.drainUntilClosed(timeout: 15)
        }

        static func keyframe(size: Int) -> [UInt8] {
            [0x17, 0x01, 0x00, 0x00, 0x00] + [UInt8](repeating: 0x65, count: size)  // AVC keyframe, NALU
        }
    }

    @Test(arguments: Misbehaviour.allCases)
    func eachGetsAClearErrorOrIsHandledAndTheServerKeepsServing(_ misbehaviour: Misbehaviour) async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let residentBefore = ProcessMemory.residentBytes
        let socket = try RawSocket.connect(port: port)
        let peer = "127.0.0.1:\(socket.localPort)"
        let script = PeerThread("fake-client-\(misbehaviour)") { try misbehaviour.play(on: socket, port: port) }
        try await script.finish()
        let residentGrowth = ProcessMemory.residentBytes - residentBefore
        #expect(residentBefore > 0, "cannot read VmRSS")

        let deadline = ContinuousClock.now + .seconds(10)
        while running.server.statistics.connections > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(running.server.statistics.connections == 0, "the server still holds the connection")
        let failures = running.log.all.compactMap { event -> String? in
            if case .connectionFailed(peer, let reason) = event { reason } else { nil }
        }
        if let word = misbehaviour.failureWord {
            #expect(failures.count == 1 && failures[0].localizedCaseInsensitiveContains(word), "\(running.log.text)")
        } else {
            #expect(failures.isEmpty, "\(running.log.text)")
        }
        if misbehaviour == .closesMidChunkWhilePublishing || misbehaviour == .mediaTimestampsBackwardsAndWrapping {
            let tag = StreamKeyTag.tag(misbehaviour.key)
            #expect(running.log.all.contains(.publishStopped(app: "live", keyTag: tag, peer: peer)),
                    "\(running.log.text)")
            #expect(running.log.all.contains { if case .recordingFinished(let path, let bytes, _) = $0 {
                path.contains(tag.dropFirst()) && bytes > 0 } else { false } }, "\(running.log.text)")
        }
        #expect(residentGrowth < 64 << 20, "RSS grew by \(residentGrowth >> 20) MB")
        print("hostile client \(misbehaviour): RSS +\(residentGrowth >> 10) kB, "
              + "peak RSS \(ProcessMemory.peakResidentBytes >> 20) MB")

        // The server still serves a real publisher.
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "after-\(misbehaviour.rawValue)")
        await client.close()
    }

    @Test func misbehavingClientsDoNotDisturbARealPublisherAndPlayer() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 4, size: "320x240", fps: 30, gop: 30)
        let goodKey = Misbehaviour.playedKey
        let url = "rtmp://127.0.0.1:\(port)/live/\(goodKey)"
        let played = running.work.file("played.flv")

        async let publisher = offPool {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", url],
                               timeout: 40)
        }
        let goodTag = StreamKeyTag.tag(goodKey)
        let deadline = ContinuousClock.now + .seconds(15)
        while !running.log.all.contains(where: {
            if case .publishStarted(_, goodTag, _) = $0 { true } else { false }
        }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        async let player = offPool {
            try Subprocess.run("ffmpeg", ["-v", "error", "-y", "-i", url, "-t", "2", "-c", "copy", played],
                               timeout: 30)
        }
        // Every misbehaviour at once, while the good pair runs.
        let scripts = try Misbehaviour.allCases.map { misbehaviour in
            let socket = try RawSocket.connect(port: port)
            return PeerThread("fake-client-\(misbehaviour)") { try misbehaviour.play(on: socket, port: port) }
        }
        for script in scripts { try await script.finish() }
        let push = try await publisher
        let play = try await player
        running.server.stop()

        #expect(push.status == 0, "ffmpeg publish failed: \(push.stderr)")
        #expect(play.status == 0, "ffmpeg play failed: \(play.stderr)")
        #expect((try ProbeReport.probe(played).video?.frameCount ?? 0) >= 45)
        let recording = try #require(try running.recordingFiles().first { $0.contains(goodTag.dropFirst()) },
                                     "\(running.log.text)")
        #expect(try ProbeReport.probe(recording).video?.frameCount == 120)
        #expect(try ProbeReport.decodeErrors(recording) == "")
    }

    @Test func mixedUpSchemesAreToldApartAndTheServerKeepsServing() async throws {
        let running = try await IngestServerTests.start(tls: true)
        defer { running.server.stop() }
        let plain = try #require(running.ports.rtmp)
        let secure = try #require(running.ports.rtmps)

        // rtmps:// to the plain port: the server sees a TLS hello, the client a TLS failure.
        let tlsToPlain = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        let tlsError = await #expect(throws: PublishError.self) {
            try await tlsToPlain.connect(to: try IngestURL(parsing: "rtmps://127.0.0.1:\(plain)/live"))
        }
        // A server closing during the TLS handshake may also be a busy one (transient), so the code is not
        // .tlsFailure; the message says what is likely wrong.
        #expect(tlsError?.code == .connectionLost, "\(String(describing: tlsError))")
        #expect(tlsError?.description.contains("is it a TLS server on that port?") == true,
                "\(String(describing: tlsError))")
        await tlsToPlain.close()

        // rtmp:// to the TLS port: the server's TLS handshake fails, the client's RTMP handshake ends.
        let plainToTLS = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(3)))
        try await plainToTLS.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(secure)/live"))
        let plainError = await #expect(throws: PublishError.self) { try await plainToTLS.publish(streamKey: "x") }
        #expect(plainError?.code != nil)
        await plainToTLS.close()

        let deadline = ContinuousClock.now + .seconds(10)
        while running.log.all.filter({ if case .connectionFailed = $0 { true } else { false } }).count < 2
                && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let reasons = running.log.all.compactMap { event -> String? in
            if case .connectionFailed(_, let reason) = event { reason } else { nil }
        }
        #expect(reasons.contains { $0.contains("TLS hello") }, "\(running.log.text)")
        #expect(reasons.contains { $0.contains("TLS") && !$0.contains("TLS hello") }, "\(running.log.text)")

        let client = try RTMPClient(options: .init(caFile: running.certificate?.certificateFile,
                                                   connectTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmps://127.0.0.1:\(secure)/live"))
        try await client.publish(streamKey: "after-the-mix-up")
        await client.close()
    }

    /// Waits (up to 10 s) for the server to count no connection, and expects that.
    static func expectAllConnectionsGone(_ running: IngestServerTests.Running) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while running.server.statistics.connections > 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(running.server.statistics.connections == 0)
    }

    @Test func aPlayerThatPlaysTwiceOnOneStreamAndLeavesIsForgottenByBothStreams() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 2, size: "320x240", fps: 30, gop: 30)
        // One player plays "first", then "second" on the same message stream, then leaves.
        let log = running.log
        let player = PeerThread("plays-twice") {
            let socket = try RawSocket.connect(port: port)
            try HostilePeer.play(socket, keys: ["first", "second"], port: port)
            let deadline = ContinuousClock.now + .seconds(10)
            while log.all.filter({ if case .playStarted = $0 { true } else { false } }).count < 2
                    && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            socket.close()
        }
        try await player.finish()
        try await Self.expectAllConnectionsGone(running)
        #expect(running.server.statistics.players == 0, "\(running.log.text)")
        // Media published on the first stream must find no player left over from the connection that went away
        // (the relay would reach a freed connection).
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "rtmp://127.0.0.1:\(port)/live/first"], timeout: 30)
        #expect(push.status == 0, "ffmpeg publish failed: \(push.stderr)")
    }

    @Test func connectionChurnLeavesNothingBehind() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let residentBefore = ProcessMemory.residentBytes
        let churn = PeerThread("churn") {
            for index in 0..<300 {
                let socket = try RawSocket.connect(port: port)
                switch index % 3 {
                case 0: break                                                   // connect, close
                case 1: try socket.write([3] + HostileBytes.random(700))       // half a C1
                default: _ = try HostilePeer.clientHandshake(socket)            // a whole handshake
                }
                socket.close()
            }
        }
        try await churn.finish()
        try await Self.expectAllConnectionsGone(running)
        let residentGrowth = ProcessMemory.residentBytes - residentBefore
        #expect(residentGrowth < 64 << 20, "RSS grew by \(residentGrowth >> 20) MB")
        print("connection churn: 300 connections, RSS +\(residentGrowth >> 10) kB")

        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "after-the-churn")
        await client.close()
    }

    @Test func manySilentConnectionsAreDroppedAndARealClientStillGetsThrough() async throws {
        let running = try await IngestServerTests.start { $0.handshakeTimeout = .milliseconds(800) }
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        let silent = try (0..<200).map { _ in try RawSocket.connect(port: port) }
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "through-the-crowd")
        let drained = PeerThread("silent-crowd") {
            for socket in silent { try socket.drainUntilClosed(timeout: 15) }
        }
        try await drained.finish()
        #expect(await client.state == .publishing)
        await client.close()
        let dropped = running.log.all.filter {
            if case .connectionFailed(_, let reason) = $0 { reason.contains("no RTMP connect within") } else { false }
        }
        #expect(dropped.count == 200)
    }

    @Test func maxConnectionsHoldsAndFreesUpWhenPeersLeave() async throws {
        let running = try await IngestServerTests.start { $0.maxConnections = 20 }
        defer { running.server.stop() }
        let port = try #require(running.ports.rtmp)
        var silent = try (0..<20).map { _ in try RawSocket.connect(port: port) }
        let deadline = ContinuousClock.now + .seconds(10)
        while running.server.statistics.connections < 20 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(running.server.statistics.connections == 20)
        // One more is accepted and closed at once.
        let extra = try RawSocket.connect(port: port)
        let refused = PeerThread("extra-peer") { try extra.drainUntilClosed(timeout: 10) }
        try await refused.finish()
        let busy = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(3)))
        try await busy.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        await #expect(throws: PublishError.self) { try await busy.publish(streamKey: "no-room") }
        await busy.close()

        for socket in silent.prefix(5) { socket.close() }
        silent.removeFirst(5)
        while running.server.statistics.connections > 15 && ContinuousClock.now < deadline + .seconds(10) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(port)/live"))
        try await client.publish(streamKey: "room-again")
        await client.close()
        for socket in silent { socket.close() }
    }
}
