import FLV
import Foundation
import Locking
import TestSupport
import Testing
import WebRTCServer

/// The server's port against aiortc, a WebRTC stack we did not write: aiortc's offer is answered in-process, then
/// ICE (aiortc's checks against our ICE-lite responder), DTLS (aiortc as the client, our endpoint as the server, each
/// certificate checked against the other's fingerprint) and SRTP run over the one UDP port on loopback.
@Suite(.startsPeers) struct WebRTCServerPeerTests {
    @Test(.timeLimit(.minutes(2))) func aiortcConnectsAndItsMediaIsUnprotected() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 4))
        let aiortc = try AiortcPublisher()
        defer { aiortc.stop() }

        let first = try await aiortc.next()
        let offer = try #require(first["offer"] as? String, "no offer from aiortc: \(first)")
        guard case .created(let id, let answer) = await server.publish(app: "live", offer: offer) else {
            Issue.record("the offer was refused:\n\(offer)")
            await server.stop()
            return
        }
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "the id is 128 random bits: \(id)")
        #expect(answer.contains("a=ice-lite") && answer.contains(" \(server.port) typ host"), "\(answer)")
        try aiortc.answer(answer)
        let state = try await aiortc.next()
        #expect(state["state"] as? String == "connected", "\(state)\n\(aiortc.log.suffix(2000))")

        // Both tracks arrive and pass SRTP's authentication.
        try await eventually("H.264 and Opus packets unprotected", within: .seconds(15), every: .milliseconds(50),
                             seen: { "" }) {
            let session = await server.statistics().sessions.first
            return (session?.videoPackets ?? 0) > 10 && (session?.audioPackets ?? 0) > 10
        }
        let before = try #require(await server.statistics().sessions.first)
        #expect(before.connected && before.unprotectFailures == 0 && before.otherPackets == 0, "\(before)")

        // Garbage on the port from an address no check proved: dropped by the routes, the session untouched.
        let stranger = try UDPTestSocket(connectingTo: server.port)
        let garbage: [[UInt8]] = [[0xff, 1, 2, 3], [0x80, 0x60] + Array(repeating: 7, count: 40),
                                  [0x16, 0xfe, 0xfd] + Array(repeating: 1, count: 30),
                                  [0x00, 0x01, 0x00, 0x00] + Array(repeating: 0, count: 16), []]
        for datagram in garbage where !datagram.isEmpty { stranger.send(datagram) }
        try await eventually("the garbage counted as dropped", within: .seconds(5)) {
            await server.statistics().drops.values.reduce(0, +) >= 4
        }
        let after = try #require(await server.statistics().sessions.first)
        #expect(after.connected && after.unprotectFailures == 0, "\(after)")
        try await eventually("media still flowing after the garbage", within: .seconds(5)) {
            (await server.statistics().sessions.first?.videoPackets ?? 0) > after.videoPackets
        }

        // A DELETE frees the session; aiortc sees the close_notify.
        #expect(await server.close(session: id, app: "other") == false, "another app's path does not end it")
        #expect(await server.close(session: id, app: "live"))
        #expect(await server.statistics().sessions.isEmpty)
        #expect(await server.close(session: id, app: "live") == false)
        let closed = try await aiortc.next()
        #expect(closed["state"] as? String != "connected", "\(closed)")
        await server.stop()
    }

    /// One video packet lost on the way for good (a relay in aiortc's script drops it 1.5 s in, and every copy
    /// resent on the server's NACKs): the frames after it are dropped until a keyframe, the server asks for one
    /// (PLI), and aiortc sends it long before its own next one (libx264's 250-frame GOP: 8.3 s). Keyframes before
    /// the loss (aiortc restarts its encoder when the server's first REMB changes its bit rate) do not count.
    @Test(.timeLimit(.minutes(2))) func aLostPacketBringsAKeyframeThroughAPictureLossIndication() async throws {
        let counts = Locked((frames: 0, keyframes: 0))
        // No periodic requests: only the loss may ask for a keyframe here.
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 4, keyframeInterval: nil,
                                                        onMedia: { event in
            guard case .tag(_, _, let tag) = event, !tag.isSequenceHeader else { return }
            counts.withLock { $0.frames += 1; $0.keyframes += tag.isVideoKeyFrame ? 1 : 0 }
        }))
        let aiortc = try AiortcPublisher(dropAfter: 1.5)
        defer { aiortc.stop() }
        let first = try await aiortc.next()
        let offer = try #require(first["offer"] as? String, "no offer from aiortc: \(first)")
        guard case .created(_, let answer) = await server.publish(app: "live", offer: offer, streamTag: "t1") else {
            Issue.record("the offer was refused")
            await server.stop()
            return
        }
        try aiortc.answer(answer)
        let state = try await aiortc.next()
        #expect(state["state"] as? String == "connected", "\(state)\n\(aiortc.log.suffix(2000))")
        let connected = ContinuousClock.now
        let dropped = try await aiortc.next()
        #expect(dropped["dropped"] as? Int == 1, "\(dropped)")
        let before = counts.withLock { $0.keyframes }
        try await eventually("a keyframe after the loss, asked for", within: .seconds(5), every: .milliseconds(50),
                             seen: { "\(counts.withLock { $0 })" }) {
            counts.withLock { $0.keyframes } > before
        }
        #expect(ContinuousClock.now - connected < .seconds(7), "before aiortc's own next keyframe")
        let session = try #require(await server.statistics().sessions.first)
        #expect(session.framesDropped >= 1 && session.keyframeRequests >= 1, "\(session)")
        await server.stop()
    }

    /// A browser-like offer: H.264 and Opus, BUNDLEd.
    static let offer = [
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
        "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
        "m=video 9 UDP/TLS/RTP/SAVPF 102", "c=IN IP4 0.0.0.0", "a=mid:0", "a=sendonly", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:0123456789012345678901", "a=setup:actpass",
        "a=rtpmap:102 H264/90000", "a=fmtp:102 packetization-mode=1;profile-level-id=42e01f",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:1", "a=sendonly", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:0123456789012345678901", "a=setup:actpass", "a=rtpmap:111 opus/48000/2",
    ].joined(separator: "\r\n") + "\r\n"
}

extension WebRTCServer.Publish {
    var isCreated: Bool {
        if case .created = self { return true }
        return false
    }
}
