import AMF
import FLV
import Foundation
import Publisher
import RTMP
import StreamCore
import Locking
import TestSupport
import Testing

/// Our RTMP client against a fake ingest that misbehaves: every case ends in a typed ``PublishError`` (or is
/// handled), in bounded time, without a crash and without a large allocation.
@Suite struct HostileServerTests {
    /// What the fake ingest does wrong.
    enum Misbehaviour: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case acceptsAndSendsNothing
        case garbageInsteadOfS0S1
        case closesDuringTheHandshake
        case garbageChunksAfterTheHandshake
        case hugeSetChunkSize
        case sixteenMegabyteMessageLength
        case deepAMFNestingInTheConnectResult
        case fourGigabyteStringInTheConnectResult
        case closesMidChunk

        var testDescription: String { rawValue }

        /// The error the client must report, and words one of which its description must contain.
        var expected: (code: PublishError.Code, words: [String]) {
            switch self {
            case .acceptsAndSendsNothing: (.timeout, ["did not send"])
            case .garbageInsteadOfS0S1: (.protocolError, ["version"])
            // Depending on timing the client sees end of stream or a reset (its write after our close).
            case .closesDuringTheHandshake: (.connectionLost, ["during the handshake", "reset"])
            case .garbageChunksAfterTheHandshake: (.protocolError, ["malformed"])
            case .hugeSetChunkSize: (.protocolError, ["chunk size"])
            case .sixteenMegabyteMessageLength: (.protocolError, ["16777215"])
            case .deepAMFNestingInTheConnectResult: (.protocolError, ["malformed"])
            case .fourGigabyteStringInTheConnectResult: (.protocolError, ["malformed"])
            case .closesMidChunk: (.connectionLost, ["after connect", "reset"])
            }
        }

        /// The fake ingest's script, after it accepted the client.
        func play(on socket: RawSocket) throws {
            switch self {
            case .acceptsAndSendsNothing:
                break
            case .garbageInsteadOfS0S1:
                _ = try socket.read(exactly: 1537, timeout: HostilePeer.timeout)
                try socket.write(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
                                     + HostileBytes.random(2000))
            case .closesDuringTheHandshake:
                _ = try socket.read(exactly: 1537, timeout: HostilePeer.timeout)
                try socket.write([3] + HostileBytes.random(700))  // S0 and half of S1
                socket.close()
                return
            case .garbageChunksAfterTheHandshake:
                _ = try HostilePeer.serverHandshake(socket)
                // fmt 3 on chunk stream 5, which never had a header, then noise.
                try socket.write([0xC5] + HostileBytes.random(300))
            case .hugeSetChunkSize:
                _ = try HostilePeer.serverHandshake(socket)
                try socket.write(HostileBytes.setChunkSize(0x7FFF_FFFF))
            case .sixteenMegabyteMessageLength:
                _ = try HostilePeer.serverHandshake(socket)
                try socket.write(HostileBytes.hugeMessageHeader(typeID: 20))
                // Stream part of the body; the client may close before taking it all.
                for _ in 0..<16 {
                    guard (try? socket.write([UInt8](repeating: 0x41, count: 64 * 1024), timeout: 2)) != nil else {
                        break
                    }
                }
            case .deepAMFNestingInTheConnectResult:
                var decoder = ChunkDecoder()
                decoder.append(try HostilePeer.serverHandshake(socket))
                let connect = try HostilePeer.readMessage(socket, decoder: &decoder) {
                    HostilePeer.isCommand($0, "connect")
                }
                var encoder = ChunkEncoder()
                let payload = HostileBytes.deeplyNestedCommand(name: "_result", transactionID: 1, depth: 100_000)
                try socket.write(encoder.encode(RTMPMessage(chunkStreamID: connect.chunkStreamID, timestamp: 0,
                                                            type: .amf0Command, streamID: 0, payload: payload)))
            case .fourGigabyteStringInTheConnectResult:
                var decoder = ChunkDecoder()
                decoder.append(try HostilePeer.serverHandshake(socket))
                _ = try HostilePeer.readMessage(socket, decoder: &decoder) { HostilePeer.isCommand($0, "connect") }
                var encoder = ChunkEncoder()
                let payload = AMF0.encode([.string("_result"), .number(1)])
                    + [0x0C, 0xFF, 0xFF, 0xFF, 0xFF]  // AMF0 long string marker, length 4 GiB - 1
                    + [UInt8](repeating: 0x61, count: 64)
                try socket.write(encoder.encode(RTMPMessage(chunkStreamID: 3, timestamp: 0, type: .amf0Command,
                                                            streamID: 0, payload: payload)))
            case .closesMidChunk:
                _ = try HostilePeer.serverHandshake(socket)
                try socket.write(HostileBytes.truncatedCommand(length: 300, sent: 60))
                socket.close()
                return
            }
            // Wait for the client to give up and close.
            try socket.drainUntilClosed(timeout: 20)
        }
    }

    static let key = "hostile-server-secret-key"

    @Test(arguments: Misbehaviour.allCases)
    func theClientReportsATypedErrorInBoundedTime(_ misbehaviour: Misbehaviour) async throws {
        let listener = try LoopbackListener()
        let peer = PeerThread("fake-ingest-\(misbehaviour)") {
            let socket = try listener.accept(timeout: 10)
            try misbehaviour.play(on: socket)
        }
        let residentBefore = ProcessMemory.residentBytes
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(2)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(listener.port)/live"))
        let start = ContinuousClock.now
        let error = await #expect(throws: PublishError.self) {
            try await client.publish(streamKey: Self.key)
        }
        let elapsed = start.duration(to: .now)
        await client.close()
        try await peer.finish()
        let residentGrowth = ProcessMemory.residentBytes - residentBefore
        #expect(residentBefore > 0, "cannot read VmRSS")

        let (code, words) = misbehaviour.expected
        let description = error?.description ?? ""
        #expect(error?.code == code, "\(description)")
        #expect(words.contains { description.localizedCaseInsensitiveContains($0) }, "\(description)")
        #expect(error?.description.contains(Self.key) == false)
        #expect(await client.state == .failed(try #require(error)))
        #expect(elapsed < .seconds(15), "took \(elapsed)")
        #expect(residentGrowth < 64 << 20, "RSS grew by \(residentGrowth >> 20) MB")
        print("hostile server \(misbehaviour): \(code) after \(elapsed), RSS +\(residentGrowth >> 10) kB, "
              + "\(error?.description ?? ""), "
              + "peak RSS \(ProcessMemory.peakResidentBytes >> 20) MB")
    }

    @Test func anRTMPServerAnsweringAnRTMPSClientIsATLSFailure() async throws {
        let listener = try LoopbackListener()
        let peer = PeerThread("plain-ingest") {
            let socket = try listener.accept(timeout: 10)
            _ = try socket.read(timeout: HostilePeer.timeout)  // the TLS ClientHello
            try socket.write([3] + HostileBytes.random(1536))  // S0 S1, as a plain RTMP server answers
            try socket.drainUntilClosed(timeout: 20)
        }
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        let error = await #expect(throws: PublishError.self) {
            try await client.connect(to: try IngestURL(parsing: "rtmps://127.0.0.1:\(listener.port)/live"))
        }
        #expect(error?.code == .tlsFailure, "\(String(describing: error))")
        await client.close()
        try await peer.finish()
    }

    @Test func unknownMessageTypesAreIgnoredBeforeAndAfterThePublish() async throws {
        let listener = try LoopbackListener()
        let peer = PeerThread("fake-ingest-unknown-types") {
            let socket = try listener.accept(timeout: 10)
            var encoder = ChunkEncoder()
            var ingest = HostileIngest(socket: socket)
            // Right after S0 S1 S2, before the client has even sent C2, it gets messages of unknown types.
            _ = try ingest.feed(try socket.read(exactly: 1537, timeout: HostilePeer.timeout))
            var unknown: [UInt8] = []
            for message in HostileBytes.unknownTypeMessages(chunkStreamID: 8) { unknown += try encoder.encode(message) }
            try socket.write(unknown)
            try ingest.acceptPublish()
            // While publishing: more unknown types, on the publish's message stream too (each under 128 bytes,
            // so the chunk size in force does not matter).
            unknown = []
            guard let streamID = ingest.publishedStreamID else { return }
            for message in HostileBytes.unknownTypeMessages(chunkStreamID: 9, streamID: streamID) {
                unknown += try encoder.encode(message)
            }
            try socket.write(unknown)
            try ingest.serveUntilClosed()
        }
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(listener.port)/live"))
        try await client.publish(streamKey: Self.key)
        try await client.send(FLVTag(type: .video, timestamp: 0, body: [0x17, 0x01, 0, 0, 0, 0xAB]))
        try await Task.sleep(for: .milliseconds(300))
        #expect(await client.state == .publishing)
        try await client.send(FLVTag(type: .video, timestamp: 33, body: [0x27, 0x01, 0, 0, 0, 0xCD]))
        await client.close()
        try await peer.finish()
    }

    @Test func timestampsThatJumpBackwardsOrWrapPast32BitsAreHandled() async throws {
        let listener = try LoopbackListener()
        let pongs = PongLog()
        let peer = PeerThread("fake-ingest-timestamps") {
            let socket = try listener.accept(timeout: 10)
            var ingest = HostileIngest(socket: socket)
            try ingest.acceptPublish()
            var encoder = ChunkEncoder()
            var bytes: [UInt8] = []
            // Pings on chunk stream 9 whose header timestamps go 1000, 500 (backwards), 0xFFFFFF00 (extended),
            // then +0x200 (wraps past 2^32 to 0x100), then 0 on another chunk stream. The ping payloads carry
            // 1...5 so the answers can be matched.
            bytes += try encoder.encode(HostileBytes.ping(id: 1, timestamp: 1000, chunkStreamID: 9))
            bytes += try encoder.encode(HostileBytes.ping(id: 2, timestamp: 500, chunkStreamID: 9))
            bytes += try encoder.encode(HostileBytes.ping(id: 3, timestamp: 0xFFFF_FF00, chunkStreamID: 9))
            bytes += HostileBytes.fmt2Chunk(chunkStreamID: 9, delta: 0x200,
                                            payload: UserControlEvent.pingRequest(timestamp: 4).payload)
            bytes += try encoder.encode(HostileBytes.ping(id: 5, timestamp: 0, chunkStreamID: 10))
            try socket.write(bytes)
            try ingest.serveUntilClosed { message in
                if message.type == .userControl,
                   case .pingResponse(let id) = try UserControlEvent(payload: message.payload) {
                    pongs.append(id)
                }
            }
        }
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5)))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(listener.port)/live"))
        try await client.publish(streamKey: Self.key)
        let deadline = ContinuousClock.now + .seconds(10)
        while pongs.all.count < 5 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await client.state == .publishing)
        #expect(pongs.all == [1, 2, 3, 4, 5])
        await client.close()
        try await peer.finish()
    }
}

/// Ping Response ids seen by a fake ingest.
final class PongLog: Sendable {
    private let ids = Locked<[UInt32]>([])
    func append(_ id: UInt32) { ids.withLock { $0.append(id) } }
    var all: [UInt32] { ids.withLock { $0 } }
}
