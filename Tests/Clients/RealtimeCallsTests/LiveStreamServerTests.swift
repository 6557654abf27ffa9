import Foundation
import LiveProtocol
import Locking
import RealtimeCalls
import TestSupport
import Testing

/// The client against a real `stream serve --shows`: two Swift clients and a Python `websockets` peer in one show,
/// every moderation call and error code, and the server restarted under a connected client.
@Suite(.serialized, .startsPeers) struct LiveStreamServerTests {
    /// Messages, reactions and counts agree across two Swift clients and the Python peer.
    @Test func twoClientsAndAPythonPeerAgree() async throws {
        let served = try ServedShows()
        let ann = try await served.client("ann").calls.stream("show:mugs")
        let bob = try await served.client("bob").calls.stream("show:mugs")
        #expect(ann.you?.role == .host && bob.you?.role == .viewer && bob.canWrite)
        #expect(ann.state == .idle && ann.media == .live && ann.reactions.contains(.heart))
        #expect(ann.server == served.base)
        let messagesSeen = Locked([String]())
        bob.onMessage { message in messagesSeen.withLock { $0.append(message.text) } }
        let peer = try served.python(PythonPeer.script, ["3", "2"])
        #expect(try peer.readLine(timeout: 20) == "joined")
        // Distinct watchers: bob and pat; the host is not counted.
        try await waitFor(ann, "two watching") { $0.viewers == 2 }
        try await waitFor(bob, "two watching") { $0.viewers == 2 }
        try await ann.send("from ann")
        try await bob.send("from bob")
        ann.react(.heart)
        try await bob.sendReaction(.heart)
        let summary = try peer.readLine(timeout: 40)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        let python = (report["messages"] as? [[Any]] ?? []).compactMap { pair -> String? in
            guard let id = pair.first as? Int, let text = pair.last as? String else { return nil }
            return "\(id):\(text)"
        }
        for show in [ann, bob] {
            try await waitFor(show, "three messages and three hearts") {
                $0.messages.count == 3 && $0.reactionTotals[.heart] == 3
            }
            #expect(show.messages.map { "\($0.id):\($0.text)" } == python, "\(show.messages)")
        }
        #expect(Set(python.map { $0.split(separator: ":", maxSplits: 1)[1] })
                == ["from ann", "from bob", "from python"])
        #expect(report["hearts"] as? Int == 3)
        #expect(report["viewers"] as? Int == 2)
        let ids = ann.messages.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(messagesSeen.withLock { $0 }.sorted() == ["from ann", "from bob", "from python"])
        #expect(peer.waitForExit(timeout: 10) == 0)
        bob.leave()
        #expect(await bob.ended() == .left)
        #expect(bob.media == .off)
        ann.leave()
        #expect(await ann.ended() == .left)
    }

    /// Each moderation call and each error code, as the seed says.
    @Test func moderationCallsAndErrorCodes() async throws {
        let served = try ServedShows()
        // Refusals of the session itself.
        await #expect(throws: LiveStreamError.self) {
            _ = try await served.client("bob").calls.stream("nothing:here")
        }
        do {
            _ = try await served.client("bob").calls.stream("nothing:here")
        } catch {
            #expect(error.code == "not_found")
        }
        let expired = Realtime(server: served.base) { ServedShows.token("bob", seconds: -120) }
        do {
            _ = try await expired.calls.stream("show:mugs")
            Issue.record("an expired token was accepted")
        } catch {
            #expect(error.code == "unauthorized" && error.reason.contains("expired"), "\(error)")
        }
        let forged = Realtime(server: served.base) { ServedShows.token("bob") + "x" }
        do {
            _ = try await forged.calls.stream("show:mugs")
            Issue.record("a forged token was accepted")
        } catch {
            #expect(error.code == "unauthorized", "\(error)")
        }

        let ann = try await served.client("ann").calls.stream("show:mugs")
        let mugs = try await served.client("mugs").calls.stream("show:mugs")
        let bob = try await served.client("bob").calls.stream("show:mugs", media: RecordingMedia())
        let eve = try await served.client("eve").calls.stream("show:mugs")
        #expect(mugs.you?.role == .mod)

        // not_host: a viewer goes live, ends, asks for the OBS key, moderates; a mod acts on the host.
        await expectCode("not_host") { try await bob.goLive() }
        await expectCode("not_host") { try await bob.end() }
        await expectCode("not_host") { _ = try await mugs.ingest() }
        await expectCode("not_host") { try await bob.clearChat() }
        await expectCode("not_host") { try await mugs.kick("ann") }
        // read_only: visitors of quiet:* watch only.
        let visitor = try await served.client(nil).calls.stream("quiet:mugs")
        // A visitor has its own id (docs/live-protocol.md "Visitors"), not a user's.
        #expect(visitor.you?.user?.hasPrefix("visitor:") == true && !visitor.canWrite)
        await expectCode("read_only") { _ = try await visitor.send("hi") }
        await expectCode("read_only") { try await visitor.sendReaction(.heart) }
        visitor.leave()
        // invalid: a message that does not exist, a timeout out of range, a host as a target.
        await expectCode("invalid") { try await mugs.deleteMessage(999_999) }
        await expectCode("invalid") { _ = try await mugs.timeout("eve", seconds: 59) }
        await expectCode("invalid") { try await ann.kick("ann") }

        // Delete, pin, unpin, clear: everyone sees them.
        let first = try await bob.send("first")
        let second = try await eve.send("second")
        try await mugs.deleteMessage(first.id)
        try await waitFor(eve, "the deletion") { !$0.messages.contains { $0.id == first.id } }
        try await ann.pin(second.id)
        try await waitFor(bob, "the pin") { $0.pinned?.id == second.id }
        try await mugs.unpin()
        try await waitFor(bob, "the unpin") { $0.pinned == nil }
        try await mugs.clearChat()
        try await waitFor(eve, "the clear") { $0.messages.isEmpty }

        // slow: viewers wait, with the seconds to wait; mods are exempt.
        let kim = try await served.client("kim").calls.stream("show:mugs")
        try await mugs.setSlow(10)
        try await waitFor(kim, "slow mode") { $0.slow == 10 }
        try await kim.send("slow one")
        do {
            try await kim.send("slow two")
            Issue.record("slow mode let a second message through")
        } catch {
            #expect(error.code == "slow" && (1...10).contains(error.retryAfter ?? 0), "\(error)")
        }
        try await mugs.send("exempt")
        try await mugs.send("exempt again")
        try await ann.setSlow(0)

        // timeout: the user keeps watching, cannot write, is told the time left.
        let until = try await mugs.timeout("eve", seconds: 60)
        #expect(until > Int64(Date().timeIntervalSince1970 * 1000))
        try await waitFor(eve, "canWrite false") { !$0.canWrite }
        do {
            try await eve.send("let me")
            Issue.record("a timed-out user wrote")
        } catch {
            #expect(error.code == "timeout" && (55...60).contains(error.retryAfter ?? 0), "\(error)")
        }
        try await bob.send("eve still watches")
        try await waitFor(eve, "the message after the timeout") { $0.messages.last?.text == "eve still watches" }

        // kick: out now with kicked; may come back.
        let kicked = Locked<EndReason?>(nil)
        bob.onEnded { reason in kicked.withLock { $0 = reason } }
        try await mugs.kick("bob")
        #expect(await bob.ended() == .kicked)
        #expect(kicked.withLock { $0 } == .kicked && bob.media == .off)
        await expectCode("ended") { _ = try await bob.send("still here?") }
        let bobAgain = try await served.client("bob").calls.stream("show:mugs")
        #expect(bobAgain.canWrite)

        // ban: out with banned; refused until unbanned.
        try await ann.ban("eve")
        #expect(await eve.ended() == .banned)
        do {
            _ = try await served.client("eve").calls.stream("show:mugs")
            Issue.record("a banned user joined")
        } catch {
            #expect(error.code == "banned", "\(error)")
        }
        try await mugs.unban("eve")
        let eveAgain = try await served.client("eve").calls.stream("show:mugs")
        #expect(eveAgain.you?.user == "eve")

        // The host's OBS key: the same until renewed. goLive hands the grants to the media.
        let key = try await ann.ingest()
        #expect(key.url.hasPrefix("rtmp://127.0.0.1:\(served.rtmpPort)") && !key.key.isEmpty)
        #expect(try await ann.ingest().key == key.key)
        #expect(try await ann.ingest(renew: true).key != key.key)
        let media = RecordingMedia()
        let host = try await served.client("ann").calls.stream("show:mugs", media: media)
        try await host.goLive()
        #expect(media.isCameraOn && media.isMicrophoneOn, "goLive turns both on when nothing is on")
        #expect(media.published.map(\.tile) == [.camera])
        // The host's media says where its path is: the show's media follows it while the connection is live.
        let seen = Locked([MediaState]())
        host.onChange { [weak host] in
            guard let now = host?.media else { return }
            seen.withLock { if $0.last != now { $0.append(now) } }
        }
        for state in [MediaState.connecting, .live, .reconnecting, .live] { media.report(state) }
        #expect(seen.withLock { $0 } == [.connecting, .live, .reconnecting, .live], "\(seen.withLock { $0 })")
        #expect(host.media == .live)
        try await host.end()
        try await waitFor(bobAgain, "ended") { $0.state == .ended }
        #expect(media.stopped)
        for show in [ann, mugs, kim, bobAgain, eveAgain, host] { show.leave() }
        for show in [ann, mugs, kim, bobAgain, eveAgain, host] { #expect(await show.ended() == .left) }
        let log = served.errorLog()
        #expect(!log.contains(key.key) && !log.contains("live_"), "an OBS key reached the log")
    }

    /// The server restarts under a connected client (stopped cleanly, or killed without a close frame): media goes
    /// reconnecting, then live; the chat it holds is exactly the server's (what was sent and deleted meanwhile
    /// too); the token provider is asked again once the token it gave has expired.
    @Test(arguments: [false, true])
    func serverRestartReconnectsAndResynchronises(killed: Bool) async throws {
        let served = try ServedShows()
        let asked = Locked(0)
        // A long first wait, so the server has changed the chat before this client is back.
        let slow = Realtime.Options(backoff: .init(initialDelay: .seconds(3), maximumDelay: .seconds(4), jitter: 0))
        let annClient = Realtime(server: served.base, options: slow) {
            let count = asked.withLock { value -> Int in
                value += 1
                return value
            }
            // The first token is about to expire (within the refresh margin once a few seconds have passed).
            return ServedShows.token("ann", seconds: count == 1 ? 33 : 3600)
        }
        let ann = try await annClient.calls.stream("show:mugs")
        let bob = try await served.client("bob").calls.stream("show:mugs")
        var sent: [ChatMessage] = []
        for text in ["one", "two", "three"] { sent.append(try await bob.send(text)) }
        try await waitFor(ann, "three messages") { $0.messages.count == 3 }
        let states = Locked([MediaState]())
        ann.onChange { [weak ann] in
            guard let media = ann?.media else { return }
            states.withLock { if $0.last != media { $0.append(media) } }
        }
        if killed { served.crash() } else { served.stop() }
        try await waitFor(ann, "reconnecting") { $0.media == .reconnecting }
        try served.start()
        // While ann waits to reconnect: a new message, and one she holds is deleted.
        let mugs = try await served.client("mugs").calls.stream("show:mugs")
        try await mugs.send("while away")
        try await mugs.deleteMessage(sent[1].id)
        #expect(ann.media == .reconnecting)
        try await waitFor(ann, "live again", timeout: .seconds(20)) { $0.media == .live }
        let reference = try await served.client("zed").calls.stream("show:mugs")
        try await waitFor(ann, "the server's history") { $0.messages == reference.messages }
        #expect(ann.messages.map(\.text) == ["one", "three", "while away"])
        #expect(Set(ann.messages.map(\.id)).count == ann.messages.count)
        #expect(states.withLock { $0 } == [.reconnecting, .live])
        #expect(asked.withLock { $0 } == 2, "the token provider is asked again when its token expires")
        // Events keep flowing after the reconnect.
        try await mugs.send("after")
        try await waitFor(ann, "a message after the reconnect") { $0.messages.last?.text == "after" }
        for show in [ann, bob, mugs, reference] { show.leave() }
    }
}

extension LiveStreamServerTests {
    /// A connection that dies without closing (the link stalls: nothing the client sends arrives) is noticed by
    /// the keep-alive and replaced; what was said meanwhile arrives after the resynchronised join.
    @Test func aStalledConnectionIsNoticedAndReplaced() async throws {
        let served = try ServedShows()
        let proxy = try ThrottlingProxy(targetPort: served.httpPort)
        defer { proxy.stop() }
        let options = Realtime.Options(backoff: .init(initialDelay: .milliseconds(200), maximumDelay: .seconds(1)),
                                       keepAliveInterval: .milliseconds(500), keepAliveTimeout: .milliseconds(500))
        let client = Realtime(server: "http://127.0.0.1:\(proxy.port)", options: options) {
            ServedShows.token("ann")
        }
        let ann = try await client.calls.stream("show:mugs")
        try await Task.sleep(for: .seconds(2))
        #expect(ann.media == .live, "answered keep-alives keep the connection")
        proxy.setStalled(true)
        try await waitFor(ann, "reconnecting", timeout: .seconds(20)) { $0.media == .reconnecting }
        let bob = try await served.client("bob").calls.stream("show:mugs")
        try await bob.send("while stalled")
        proxy.setStalled(false)
        try await waitFor(ann, "live again", timeout: .seconds(30)) { $0.media == .live }
        try await waitFor(ann, "the message said meanwhile") { $0.messages.last?.text == "while stalled" }
        #expect(ann.messages.filter { $0.text == "while stalled" }.count == 1)
        ann.leave()
        bob.leave()
    }
}

/// Fails unless `body` throws a ``LiveStreamError`` with `code`.
func expectCode(_ code: String, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as LiveStreamError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
