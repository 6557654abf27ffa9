import Foundation
import TestSupport
import Testing

/// WHEP playback as a user runs it: the real `stream serve`, aiortc publishing a known colour over WHIP with a key,
/// and other aiortc instances playing it over WHEP at the address the command prints (the LL-HLS app and tag).
@Suite(.startsPeers, .serialized) struct ServeWHEPTests {
    /// The publisher's picture, which each player's decoded frames must come back near.
    static let colour = [200, 60, 40]

    @Test(.timeLimit(.minutes(2))) func aiortcPlaysAnAiortcPublishOverWHEP() async throws {
        let directory = try TemporaryDirectory("serve-whep")
        var served = try await ServeWHIPTests.serve(in: directory)
        defer { served.process.stop() }
        let base = "http://127.0.0.1:\(served.httpPort)"

        // Nothing publishes at a tag: 404, and curl's offer opens nothing.
        let missing = try await ServeWHIPTests.curl(["-X", "POST", "-H", "Content-Type: application/sdp",
                                                      "--data-binary", "v=0", base + "/whep/live/" + String(
                                                        repeating: "0", count: 32)])
        #expect(missing.hasPrefix("HTTP/1.1 404"), "\(missing)")

        let publisher = try AiortcPublisher(whipURL: base + "/whip/live", key: ServeWHIPTests.key, colour: Self.colour)
        defer { publisher.stop() }
        let posted = try await publisher.next()
        #expect(posted["status"] as? Int == 201, "\(posted)\n\(publisher.log.suffix(2000))")
        _ = try await publisher.next()
        let announced = try await served.waitFor("WHEP: http://")
        let whep = String(try #require(announced.split(separator: " ").last))
        #expect(whep.hasPrefix(base + "/whep/live/") && !announced.contains(ServeWHIPTests.key), "\(announced)")
        let hls = try await served.waitFor("LL-HLS: http://")
        #expect(hls.contains(String(whep.split(separator: "/").last ?? "-")), "WHEP and LL-HLS share the tag: \(hls)")

        // An offer without H.264 (VP8 and Opus) is refused: what the publish sends is not transcoded.
        let vp8 = directory.file("vp8.sdp")
        try WebRTCServerPeerTests.offer.replacingOccurrences(of: "H264/90000", with: "VP8/90000")
            .replacingOccurrences(of: "a=sendonly", with: "a=recvonly").write(toFile: vp8, atomically: true,
                                                                               encoding: .utf8)
        let noH264 = try await ServeWHIPTests.curl(["-X", "POST", "-H", "Content-Type: application/sdp",
                                                     "--data-binary", "@" + vp8, whep])
        #expect(noH264.hasPrefix("HTTP/1.1 406"), "\(noH264)")

        // A player: frames of the publisher's colour and Opus frames, the first soon after connecting.
        let player = try AiortcPlayer(whepURL: whep, seconds: 3)
        defer { player.stop() }
        let created = try await player.next()
        #expect(created["status"] as? Int == 201, "\(created)\n\(player.log.suffix(2000))")
        let location = try #require(created["location"] as? String, "\(created)")
        #expect(location.hasPrefix("/whep/live/") && location.contains("/session/"), "\(location)")
        let connected = try await player.next()
        #expect(connected["state"] as? String == "connected", "\(connected)\n\(player.log.suffix(2000))")
        let seen = try await player.next()
        let frames = seen["video"] as? Int ?? 0
        let audio = seen["audio"] as? Int ?? 0
        let first = seen["first"] as? Double ?? 99
        let rgb = (seen["rgb"] as? [Double]) ?? []
        #expect(frames >= 45, "about 30 frames a second for 3 s and more: \(seen)\n\(player.log.suffix(2000))")
        #expect(audio >= 50, "Opus frames (20 ms each) for 3 s: \(seen)")
        #expect(first < 2, "the first frame within 2 s of connecting: \(seen)")
        #expect(rgb.count == 3 && zip(rgb, Self.colour).allSatisfy { abs($0 - Double($1)) < 30 },
                "the picture is the publisher's colour \(Self.colour), not blank: \(seen)")
        let deleted = try await player.next()
        #expect(deleted["deleted"] as? Int == 200 && deleted["again"] as? Int == 404, "\(deleted)")
        let ended = try await served.waitFor("WHEP session 2 on live: ended")
        #expect(ended.contains("closed by the client (DELETE)"), "\(ended)")

        // A player joining late (the publish has run for several seconds) gets a keyframe at once.
        let late = try AiortcPlayer(whepURL: whep, seconds: 1)
        defer { late.stop() }
        #expect(try await late.next()["status"] as? Int == 201)
        _ = try await late.next()
        let lateSeen = try await late.next()
        #expect((lateSeen["first"] as? Double ?? 99) < 1, "a late joiner's first frame within 1 s: \(lateSeen)")
        #expect((lateSeen["video"] as? Int ?? 0) >= 15, "\(lateSeen)")
        _ = try await late.next()
        let output = served.lines.joined(separator: "\n")
        #expect(!output.contains(ServeWHIPTests.key))
        #expect(!output.contains(location.split(separator: "/").last.map(String.init) ?? "-"), "no session id")
    }

    /// A video packet lost on its way to a player is NACKed by aiortc and sent again from the publish's packet cache.
    @Test(.timeLimit(.minutes(2))) func aPlayersNACKIsAnsweredFromThePacketCache() async throws {
        let directory = try TemporaryDirectory("serve-whep-nack")
        var served = try await ServeWHIPTests.serve(in: directory)
        defer { served.process.stop() }
        let publisher = try AiortcPublisher(whipURL: "http://127.0.0.1:\(served.httpPort)/whip/live",
                                            key: ServeWHIPTests.key, colour: Self.colour)
        defer { publisher.stop() }
        #expect(try await publisher.next()["status"] as? Int == 201)
        let announced = try await served.waitFor("WHEP: http://")
        let whep = String(try #require(announced.split(separator: " ").last))

        let player = try AiortcPlayer(whepURL: whep, seconds: 3, dropAfter: 1)
        defer { player.stop() }
        #expect(try await player.next()["status"] as? Int == 201)
        _ = try await player.next()
        let seen = try await player.next()
        #expect(seen["dropped"] as? Int == 1, "the relay dropped a video packet: \(seen)\n\(player.log.suffix(2000))")
        #expect((seen["video"] as? Int ?? 0) >= 90, "\(seen)")
        _ = try await player.next()
        let ended = try await served.waitFor("WHEP session 2 on live: ended")
        let resent = ended.components(separatedBy: " resent on NACK").first?.split(separator: " ").last
        #expect((resent.flatMap { Int($0) } ?? 0) >= 1, "the lost packet was sent again: \(ended)")
    }

    /// 5 % of the datagrams lost each way on both legs (aiortc publisher → relay → server → relay → aiortc player):
    /// the player's NACKs are answered from the packet cache, the publisher's losses bring a keyframe on a PLI, and
    /// the player decodes the picture on.
    @Test(.timeLimit(.minutes(2))) func aLossyPathEachWayStillPlays() async throws {
        let directory = try TemporaryDirectory("serve-whep-lossy")
        var served = try await ServeWHIPTests.serve(in: directory)
        defer { served.process.stop() }
        let publisher = try AiortcPublisher(whipURL: "http://127.0.0.1:\(served.httpPort)/whip/live",
                                            key: ServeWHIPTests.key, loss: 0.05, colour: Self.colour)
        defer { publisher.stop() }
        let posted = try await publisher.next()
        let location = try #require(posted["location"] as? String, "\(posted)")
        #expect(try await publisher.next()["state"] as? String == "connected", "\(publisher.log.suffix(2000))")
        let announced = try await served.waitFor("WHEP: http://")
        let whep = String(try #require(announced.split(separator: " ").last))
        let player = try AiortcPlayer(whepURL: whep, seconds: 8, loss: 0.05)
        defer { player.stop() }
        #expect(try await player.next()["status"] as? Int == 201)
        let connected = try await player.next()
        #expect(connected["state"] as? String == "connected", "\(connected)\n\(player.log.suffix(2000))")
        let seen = try await player.next(timeout: 40)
        #expect((seen["lost"] as? Int ?? 0) > 10, "the relay lost datagrams on the way: \(seen)")
        // aiortc's publisher sends about 30 frames a second: most of 8 s arrive whole or repaired.
        #expect((seen["video"] as? Int ?? 0) >= 120, "\(seen)\n\(player.log.suffix(2000))")
        let rgb = (seen["rgb"] as? [Double]) ?? []
        #expect(rgb.count == 3 && zip(rgb, Self.colour).allSatisfy { abs($0 - Double($1)) < 30 },
                "the publisher's colour, not a broken picture: \(seen)")
        _ = try await player.next()
        let ended = try await served.waitFor("WHEP session 2 on live: ended")
        let resent = ended.components(separatedBy: " resent on NACK").first?.split(separator: " ").last
        #expect((resent.flatMap { Int($0) } ?? 0) >= 1, "lost packets were sent again: \(ended)")
        // The server asked the publisher again for what it lost on the way, and most of it came.
        let deleted = try await ServeWHIPTests.curl([
            "-X", "DELETE", "-H", "Authorization: Bearer \(ServeWHIPTests.key)",
            "http://127.0.0.1:\(served.httpPort)\(location)",
        ])
        #expect(deleted.hasPrefix("HTTP/1.1 200"), "\(deleted)")
        let publish = try await served.waitFor("WHIP session 1 on live: ended")
        let numbers = publish.components(separatedBy: " asked for again (NACK), ")
        let requested = numbers.first?.split(separator: " ").last.flatMap { Int($0) } ?? 0
        let came = numbers.dropFirst().first?.split(separator: " ").first.flatMap { Int($0) } ?? 0
        #expect(requested >= 1 && came >= requested / 2, "\(publish)")
        // What came again completes its frame for LL-HLS too: a gap waits for its retransmission before the
        // frames are rebuilt, rather than costing every frame up to the next keyframe.
        let frames = publish.components(separatedBy: " H.264 frames passed on, ")
        let passed = frames.first?.split(separator: " ").last.flatMap { Int($0) } ?? 0
        let dropped = frames.dropFirst().first?.split(separator: " ").first.flatMap { Int($0) } ?? .max
        #expect(passed >= 120 && dropped * 4 <= passed, "\(publish)")
        print("lossy path: player \(seen["video"] ?? "?") frames, \(seen["lost"] ?? "?") datagrams lost; \(ended); "
              + publish)
    }

    /// A publisher that reconnects with its key (a new WHIP session replacing its old one, new SSRCs and origins)
    /// keeps its players: the player's picture turns to the new session's colour without a new WHEP session.
    @Test(.timeLimit(.minutes(2))) func aPlayerStaysAcrossItsPublishersReconnect() async throws {
        let directory = try TemporaryDirectory("serve-whep-reconnect")
        var served = try await ServeWHIPTests.serve(in: directory)
        defer { served.process.stop() }
        let whip = "http://127.0.0.1:\(served.httpPort)/whip/live"
        let first = try AiortcPublisher(whipURL: whip, key: ServeWHIPTests.key, colour: Self.colour)
        defer { first.stop() }
        #expect(try await first.next()["status"] as? Int == 201)
        let announced = try await served.waitFor("WHEP: http://")
        let whep = String(try #require(announced.split(separator: " ").last))

        let player = try AiortcPlayer(whepURL: whep, seconds: 5)
        defer { player.stop() }
        #expect(try await player.next()["status"] as? Int == 201)
        let connected = try await player.next()
        #expect(connected["state"] as? String == "connected", "\(connected)\n\(player.log.suffix(2000))")
        _ = try await served.waitFor("WHEP session 2 on live: connected")

        let blue = [30, 60, 200]
        let second = try AiortcPublisher(whipURL: whip, key: ServeWHIPTests.key, colour: blue)
        defer { second.stop() }
        #expect(try await second.next()["status"] as? Int == 201)
        let replaced = try await served.waitFor("WHIP session 1 on live: ended")
        #expect(replaced.contains("replaced by a new WHIP session"), "\(replaced)")
        _ = try await served.waitFor("WHIP session 3 on live: connected")

        let seen = try await player.next()
        let rgb = (seen["rgb"] as? [Double]) ?? []
        #expect(rgb.count == 3 && zip(rgb, blue).allSatisfy { abs($0 - Double($1)) < 30 },
                "the player decodes the new session's colour \(blue): \(seen)\n\(player.log.suffix(2000))")
        #expect((seen["video"] as? Int ?? 0) >= 100, "\(seen)")
        let deleted = try await player.next()
        #expect(deleted["deleted"] as? Int == 200, "the player's session outlived the replacement: \(deleted)")
    }

    /// An RTMP publish (ffmpeg, no B-frames) plays over WHEP too: its H.264 packetized, not transcoded, its AAC made
    /// Opus; one with B-frames is refused (406), since WebRTC has no composition offsets and would play its frames
    /// out of order.
    @Test(.timeLimit(.minutes(2))) func aiortcPlaysAnFFmpegRTMPPublishOverWHEP() async throws {
        let directory = try TemporaryDirectory("serve-whep-rtmp")
        var served = try await ServeWHIPTests.serve(in: directory)
        defer { served.process.stop() }
        let published = try #require(served.lines.first { $0.hasPrefix("Publish to rtmp://127.0.0.1:") })
        let rtmp = String(try #require(published.split(separator: " ").dropFirst(2).first)) + "/" + ServeWHIPTests.key
        let fixture = try MediaFixture.makeFLV(in: directory, seconds: 8)
        let ffmpeg = OffPoolTask("ffmpeg-rtmp") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv", rtmp],
                               timeout: 30)
        }
        let announced = try await served.waitFor("WHEP: http://")
        let whep = String(try #require(announced.split(separator: " ").last))
        #expect(!announced.contains(ServeWHIPTests.key), "\(announced)")

        let player = try AiortcPlayer(whepURL: whep, seconds: 2)
        defer { player.stop() }
        let created = try await player.next()
        #expect(created["status"] as? Int == 201, "\(created)\n\(player.log.suffix(2000))")
        let connected = try await player.next()
        #expect(connected["state"] as? String == "connected", "\(connected)\n\(player.log.suffix(2000))")
        let seen = try await player.next()
        #expect((seen["video"] as? Int ?? 0) >= 30, "30 fps for 2 s and more: \(seen)\n\(player.log.suffix(2000))")
        #expect((seen["first"] as? Double ?? 99) < 2.5, "a keyframe within ffmpeg's 2 s GOP at most: \(seen)")
        let rgb = (seen["rgb"] as? [Double]) ?? []
        #expect(rgb.count == 3 && rgb.contains { $0 > 40 }, "testsrc2's colours, not a blank picture: \(seen)")
        print("RTMP publish over WHEP: \(seen)")
        // Its AAC (the fixture's 1 kHz sine) comes as Opus, transcoded once for the publish.
        #expect((seen["audio"] as? Int ?? 0) >= 50, "20 ms Opus frames for 2 s and more: \(seen)")
        let tone = seen["tone"] as? Double ?? 0
        #expect(abs(tone - 1000) < 50, "the fixture's 1 kHz tone, within 5 %: \(seen)")
        let deleted = try await player.next()
        #expect(deleted["deleted"] as? Int == 200, "\(deleted)")
        #expect(try await ffmpeg.value.status == 0)
        _ = try await served.waitFor("publish stopped: live/")

        // B-frames: refused once the first frame with a composition offset came.
        let bframes = try MediaFixture.makeFLVWithBFrames(in: directory, seconds: 6, gop: 30)
        let mark = served.lines.count
        let second = OffPoolTask("ffmpeg-rtmp-bframes") {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", bframes, "-c", "copy", "-f", "flv", rtmp],
                               timeout: 30)
        }
        let offer = directory.file("offer.sdp")
        try WebRTCServerPeerTests.offer.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
            .write(toFile: offer, atomically: true, encoding: .utf8)
        // The second publish is announced at the same address before it is asked for (the key is the same).
        let again = try await served.waitFor("WHEP: http://", from: mark)
        #expect(again.hasSuffix(whep), "\(served.lines.dropFirst(mark))")
        var answer = ""
        let lines = served.lines.dropFirst(mark).joined(separator: "\n")
        try await eventually("a WHEP offer for the B-frame publish is refused", within: .seconds(10),
                             every: .milliseconds(500), seen: { answer + "\nstream serve printed:\n" + lines }) {
            answer = try await ServeWHIPTests.curl(["-X", "POST", "-H", "Content-Type: application/sdp",
                                                     "--data-binary", "@" + offer, whep])
            return answer.hasPrefix("HTTP/1.1 406")
        }
        #expect(answer.contains("B-frames"), "\(answer)")
        #expect(try await second.value.status == 0)
    }
}
