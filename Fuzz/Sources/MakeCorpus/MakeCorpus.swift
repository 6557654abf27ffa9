import AMF
import FLV
import Foundation
import HTTP
import ICE
import LiveProtocol
import RTMP
import RTP
import SDP
import StreamCore
import WebSocket

/// Writes the seed inputs of every fuzz target into `Corpus/<target>/`, made with the project's own encoders so
/// that the fuzzers start from valid protocol bytes. Run from the Fuzz directory: `swift run MakeCorpus`.
@main
struct MakeCorpus {
    static func main() throws {
        let root = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Corpus")
        let seeds: [(target: String, name: String, bytes: [UInt8])] =
            try amf0Seeds().map { ("FuzzAMF0", $0.0, $0.1) }
            + chunkSeeds().map { ("FuzzChunkDecoder", $0.0, $0.1) }
            + flvSeeds().map { ("FuzzFLV", $0.0, $0.1) }
            + handshakeSeeds().map { ("FuzzServerHandshake", $0.0, $0.1) }
            + sessionSeeds().map { ("FuzzServerSession", $0.0, $0.1) }
            + settingsSeeds().map { ("FuzzSettings", $0.0, $0.1) }
            + urlSeeds().map { ("FuzzIngestURL", $0.0, $0.1) }
            + sdpSeeds().map { ("FuzzSDP", $0.0, $0.1) }
            + stunSeeds().map { ("FuzzSTUN", $0.0, $0.1) }
            + rtcpSeeds().map { ("FuzzRTCP", $0.0, $0.1) }
            + httpSeeds().map { ("FuzzHTTPRequestHead", $0.0, $0.1) }
            + chunkedSeeds().map { ("FuzzChunkedDecoder", $0.0, $0.1) }
            + webSocketSeeds().map { ("FuzzWebSocketFrameDecoder", $0.0, $0.1) }
            + liveRequestSeeds().map { ("FuzzLiveRequest", $0.0, $0.1) }
            + showsFileSeeds().map { ("FuzzShowsFile", $0.0, $0.1) }
        for seed in seeds {
            let directory = root.appendingPathComponent(seed.target)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(seed.bytes).write(to: directory.appendingPathComponent(seed.name))
        }
        print("wrote \(seeds.count) seeds under \(root.path)")
    }

    static let metadata: AMF0Object = [
        "duration": .number(0), "width": .number(1280), "height": .number(720), "framerate": .number(30),
        "videocodecid": .number(7), "audiocodecid": .number(10), "stereo": .boolean(true),
        "encoder": .string("Stream"),
    ]

    static func amf0Seeds() -> [(String, [UInt8])] {
        let connect = CommandMessage(
            name: "connect", transactionID: 1,
            commandObject: .object(["app": .string("live"), "tcUrl": .string("rtmp://127.0.0.1/live"),
                                    "fpad": .boolean(false), "capabilities": .number(15)]))
        // An object (reference slot 0), then a reference to it (marker 0x07, index 0), then the end.
        let reference: [UInt8] = [0x03, 0x00, 0x01, 0x61, 0x05, 0x00, 0x00, 0x09, 0x07, 0x00, 0x00]
        return [
            ("connect", connect.payload),
            ("metadata", DataMessage.setDataFrame(metadata).payload),
            ("scalars", AMF0.encode([.number(-0.5), .boolean(true), .string("é"), .null, .undefined,
                                     .date(millisecondsSince1970: 1.7e12, timeZoneMinutes: -60)])),
            ("arrays", AMF0.encode([.strictArray([.number(1), .strictArray([.string("x")])]),
                                    .ecmaArray(["k": .object(["n": .null])])])),
            ("reference", reference),
        ]
    }

    /// A publisher's side of a session after the handshake, answered by a real server machine.
    static func publisherStream() throws -> [UInt8] {
        let random = [UInt8](repeating: 0x5A, count: ClientHandshake.randomSize)
        var client = PublisherSession(configuration: .init(app: "live", tcUrl: "rtmp://127.0.0.1/live",
                                                           streamKey: "seed"))
        var server = ServerSession(random: random)
        var sent: [UInt8] = []
        var toServer = writes(client.start(random: random))
        for _ in 0..<8 {
            sent += toServer
            var toClient: [UInt8] = []
            var pending = server.bytesReceived(toServer)[...]
            while let action = pending.popFirst() {
                if case .write(let bytes) = action { toClient += bytes }
                if case .authorizePublish = action { pending.append(contentsOf: server.authorization(allowed: true)) }
            }
            toServer = writes(client.bytesReceived(toClient))
        }
        sent += toServer
        sent += try writes(client.sendMetadata(metadata))
        let config = AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 2)
        sent += try writes(client.sendMedia(.audio, timestamp: 0,
                                            body: FLVAudioTagBody.sequenceHeader(config).encode()))
        sent += try writes(client.sendMedia(.video, timestamp: 0, body: videoSequenceHeader().encode()))
        let frame = FLVVideoTagBody.frame([0, 0, 0, 3, 0x65, 0x88, 0x84], isKeyFrame: true, compositionTime: 33)
        sent += try writes(client.sendMedia(.video, timestamp: 0x00FF_FFFF, body: frame.encode()))
        sent += writes(client.stop())
        // Drop C0+C1+C2: the session target supplies its own handshake.
        return Array(sent.dropFirst(1 + 2 * 1536))
    }

    static func writes(_ actions: [PublisherSession.Action]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in
            if case .write(let bytes) = action { return bytes }
            return []
        }
    }

    static func videoSequenceHeader() -> FLVVideoTagBody {
        // A 1280x720 High profile SPS and a PPS, as x264 writes them.
        let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00, 0x00, 0x03,
                            0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60]
        let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0]
        // Both are well within the avcC limits, so the record always builds.
        let record = (try? AVCDecoderConfigurationRecord(sps: sps, pps: pps))
        return FLVVideoTagBody(frameType: .keyFrame, packetType: .sequenceHeader, data: record?.encode() ?? [])
    }

    static func chunkSeeds() throws -> [(String, [UInt8])] {
        let stream = try publisherStream()
        var encoder = ChunkEncoder()
        let extended = try encoder.encode(RTMPMessage(chunkStreamID: 70, timestamp: 0xFFFF_FFF0, typeID: 9, streamID: 1,
                                                  payload: [UInt8](repeating: 7, count: 300)))
        // Steering: [0] limits, [1] piece sizes, [2...3] announced chunk size (0: none).
        return [
            ("publisher", [0, 0, 0, 0] + stream),
            ("publisher-small-limits-chunk-64", [1, 3, 0, 64] + stream),
            ("extended-timestamp-csid-70", [0, 1, 0, 0] + extended),
        ]
    }

    static func flvSeeds() -> [(String, [UInt8])] {
        var writer = FLVWriter()
        var file = writer.encodeHeader()
        let config = AudioSpecificConfig(sampleRate: 44_100, channelConfiguration: 1)
        let tags = [
            FLVTag(metadata: FLVMetadata(duration: 1, width: 640, height: 360, frameRate: 25, videoCodecID: 7,
                                         audioCodecID: 10, encoder: "Stream")),
            FLVTag(video: videoSequenceHeader(), timestamp: 0),
            FLVTag(audio: .sequenceHeader(config), timestamp: 0),
            FLVTag(video: .frame([0, 0, 0, 2, 0x65, 0x88], isKeyFrame: true), timestamp: 40),
            FLVTag(audio: .frame([0x21, 0x10, 0x04]), timestamp: 23),
            FLVTag(video: .endOfSequence, timestamp: 80),
        ]
        for tag in tags {
            file += (try? writer.encode(tag)) ?? []
        }
        // Steering: [0] bit 0 file header, bit 1 small tag limit; [1] piece sizes.
        return [
            ("file", [1, 0] + file),
            ("file-pieces", [3, 5] + file),
            ("avcC", [0, 0] + videoSequenceHeader().data),
            ("asc", [0, 0] + config.encode()),
        ]
    }

    static func handshakeSeeds() -> [(String, [UInt8])] {
        var client = ClientHandshake(time: 1, random: [UInt8](repeating: 0x33, count: ClientHandshake.randomSize))
        let c0c1 = client.start()
        // Steering: [0] piece sizes. C2 here is just C1 again; the server accepts any C2.
        return [
            ("digest-c0c1c2-connect", [7] + c0c1 + c0c1.dropFirst() + [0x03, 0, 0, 0]),
            ("plain-c0c1", [0] + [3] + [UInt8](repeating: 0, count: 1536)),
        ]
    }

    static func sessionSeeds() throws -> [(String, [UInt8])] {
        let stream = try publisherStream()
        return [("publisher", [0] + stream), ("publisher-pieces", [5] + stream)]
    }

    static func settingsSeeds() -> [(String, [UInt8])] {
        var custom = StreamSettings.defaults(for: .p1080, frameRate: .fps60)
        custom.audioInputID = "bluetooth-1"
        return [
            ("defaults", Array(SettingsStore.encode(StreamSettings()))),
            ("custom", Array(SettingsStore.encode(custom))),
            ("odd", Array(#"{"quality":"4k","fps":-1,"pipScale":1e308,"pipCorner":7,"audioInputID":""}"#.utf8)),
        ]
    }

    static func urlSeeds() -> [(String, [UInt8])] {
        ["rtmp://127.0.0.1/live", "rtmps://live.restream.io:443/live/", "RTMP://[::1]:1936/app/inst?x=1",
         "rtmp://host/a/b"].enumerated().map { ("url-\($0.offset)", Array($0.element.utf8)) }
    }

    /// Our offer, and an answer to it as aiortc writes one.
    static func sdpSeeds() -> [(String, [UInt8])] {
        let offer = WHIPOffer(
            sessionID: 1, iceUfrag: "Xc8q", icePwd: "t1mY0N1nQZ0VnyPK3Ezg6Hd7",
            fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: Array(0..<32)),
            candidates: [SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50000,
                                      kind: .host)],
            cname: "fuzz", video: .init(payloadType: 102, ssrc: 1), audio: .init(payloadType: 111, ssrc: 2))
        let fingerprint = "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":")
        func section(_ kind: String, _ mid: Int, _ format: String, _ rtpmap: String) -> String {
            "m=\(kind) 40000 UDP/TLS/RTP/SAVPF \(format)\r\nc=IN IP4 127.0.0.1\r\na=recvonly\r\na=mid:\(mid)\r\n"
                + "a=rtcp-mux\r\na=rtpmap:\(format) \(rtpmap)\r\n"
                + "a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host\r\na=end-of-candidates\r\n"
                + "a=ice-ufrag:Ab1x\r\na=ice-pwd:QvWQ8mTz6FyPoJuDB1b2xK3e\r\n\(fingerprint)\r\na=setup:active\r\n"
        }
        let answer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
            + section("video", 0, "102", "H264/90000") + section("audio", 1, "111", "opus/48000/2")
        return [("offer", Array(offer.text.utf8)), ("answer", Array(answer.utf8))]
    }

    /// A check with every ICE attribute, a success response and a role-conflict error.
    static func stunSeeds() -> [(String, [UInt8])] {
        let id = [UInt8](repeating: 0x42, count: 12)
        let key = Array("fuzzpasswordfuzzpassword".utf8)
        let address = TransportAddress(host: "192.0.2.1", port: 32853)!
        return [
            ("check", STUNMessage(class: .request, transactionID: id, attributes: [
                .username("fuzz:peer"), .priority(1_853_824_767), .iceControlling(7), .useCandidate,
            ]).encoded(integrityKey: key)),
            ("success", STUNMessage(class: .success, transactionID: id,
                                    attributes: [.xorMappedAddress(address, transactionID: id)])
                .encoded(integrityKey: key)),
            ("error", STUNMessage(class: .error, transactionID: id,
                                  attributes: [.errorCode(487, reason: "Role Conflict")]).encoded()),
        ]
    }

    /// Compound RTCP as receivers send it, and an RTP packet carrying an FU-A fragment.
    static func rtcpSeeds() -> [(String, [UInt8])] {
        let block = RTCPReportBlock(ssrc: 2, fractionLost: 12, cumulativeLost: 40, highestSequence: 70000,
                                    jitter: 9, lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x8000)
        let feedback: [RTCPPacket] = [
            .receiverReport(ssrc: 1, reports: [block]),
            .nack(senderSSRC: 1, mediaSSRC: 2, lost: [100, 101, 117]),
            .pictureLossIndication(senderSSRC: 1, mediaSSRC: 2),
            .fullIntraRequest(senderSSRC: 1, entries: [(2, 3)]),
            .estimatedMaximumBitrate(senderSSRC: 1, bitsPerSecond: 1_500_000, ssrcs: [2]),
        ]
        let report: [RTCPPacket] = [
            .senderReport(ssrc: 2, ntpTimestamp: 1 << 40, rtpTimestamp: 90000, packetCount: 10, octetCount: 9000,
                          reports: []),
            .sourceDescription([(2, "fuzz")]),
            .goodbye([2]),
        ]
        let rtp = RTPPacket(payloadType: 102, marker: true, sequenceNumber: 7, timestamp: 3000, ssrc: 2,
                            payload: [0x7C, 0x85] + [UInt8](repeating: 0x11, count: 40))
        return [("feedback", feedback.flatMap(\.encoded)), ("report", report.flatMap(\.encoded)),
                ("rtp", rtp.encoded)]
    }

    /// Pipelined requests as curl and a browser send them, a chunked upload, an upgrade. Steering: [0] limits,
    /// [1] piece sizes.
    static func httpSeeds() -> [(String, [UInt8])] {
        let get = HTTPRequestHead(method: .get, target: "/v1/health?x=%20y", headers: [
            "Host": "127.0.0.1:8080", "User-Agent": "curl/7.88.1", "Accept": "*/*",
        ]).encoded()
        let post = HTTPRequestHead(method: .post, target: "/echo", headers: [
            "Host": "a", "Content-Length": "5", "Expect": "100-continue",
        ]).encoded() + Array("hello".utf8)
        let chunked = HTTPRequestHead(method: .put, target: "/up", headers: [
            "Host": "a", "Transfer-Encoding": "chunked",
        ]).encoded() + ChunkedEncoder.chunk(Array("Wiki".utf8)) + ChunkedEncoder.end
        let upgrade = WebSocketClientHandshake(nonce: Array("the sample nonce".utf8), protocols: ["chat"])
            .request(target: "/ws", host: "a").encoded()
        return [
            ("pipelined", [0, 0] + get + post + chunked),
            ("pipelined-small-limits", [1, 9] + get + post + chunked),
            ("upgrade", [0, 3] + upgrade + [0x81, 0x80, 1, 2, 3, 4]),
        ]
    }

    /// Chunked bodies with extensions and trailers. Steering: [0] limits, [1] piece sizes.
    static func chunkedSeeds() -> [(String, [UInt8])] {
        let body = ChunkedEncoder.chunk(Array("Wikipedia".utf8)) + Array("5;name=\"value\"\r\nin \r\n\r\n".utf8)
            + Array("0\r\nExpires: never\r\n\r\nGET".utf8)
        return [("wiki", [0, 0] + body), ("wiki-small-limits", [1, 4] + body)]
    }

    /// Client frames (masked) and server frames: text, fragments with a ping between, binary, close. Steering:
    /// [0] side (1: the server reads masked frames), [1] piece sizes.
    static func webSocketSeeds() -> [(String, [UInt8])] {
        let key: UInt32 = 0x37FA_213D
        let client = [
            WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)),
            WebSocketFrame(fin: false, opcode: .text, payload: Array("frag".utf8)),
            WebSocketFrame(opcode: .ping, payload: [1, 2]),
            WebSocketFrame(opcode: .continuation, payload: Array("ment".utf8)),
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 200)),
            WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: .normalClosure, reason: "bye")),
        ]
        return [
            ("client-frames", [1, 0] + client.flatMap { $0.encoded(maskingKey: key) }),
            ("server-frames", [0, 2] + client.flatMap { $0.encoded() }),
        ]
    }

    /// Requests of every op as the client encodes them, and one with a join position.
    static func liveRequestSeeds() -> [(String, [UInt8])] {
        let requests: [Request] = [
            .join(since: ChatPosition(epoch: "e1", seq: 42)), .send(text: "hello ❤️"), .react(.heart),
            .goLive(tiles: [.camera, .screen]), .ingest(renew: true), .setMain(.obs), .deleteMessage(id: 7),
            .timeout(user: "bob", seconds: 600), .setSlow(seconds: 10), .ban(user: "eve"), .leave,
        ]
        return requests.enumerated().map { index, request in
            ("request-\(index)", LiveCodec.encode(ClientRequest(id: Int64(index + 1), request)))
        }
    }

    /// The issue's example declarations and a larger file.
    static func showsFileSeeds() -> [(String, [UInt8])] {
        let example = #"{"streams": [{"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}"], "users": "viewer", "#
            + #""visitors": "read_only", "reactions": true}]}"#
        let more = """
            {"streams": [
              {"pattern": "show:{id}", "hosts": ["ann"], "mods": ["{id}", "max"], "users": "viewer",
               "visitors": "viewer", "reactions": true},
              {"pattern": "quiet:{id}", "hosts": ["ann"], "visitors": "read_only"},
              {"pattern": "private:{id}", "hosts": ["ann"]}
            ]}
            """
        return [("example", Array(example.utf8)), ("three", Array(more.utf8))]
    }
}
