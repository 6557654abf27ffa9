import LiveProtocol
import LiveShows
import Testing

/// Messages, history, resynchronisation, slow mode, timeouts and reactions.
struct ShowChatTests {
    @Test func aMessageIsAcknowledgedOnlyAfterItsCommit() throws {
        var harness = ShowHarness()
        harness.join(1, "bob")
        harness.join(2, "eve")
        _ = (harness.events(1), harness.events(2))
        harness.holdCommits = true
        #expect(harness.ask(1, .send(text: "Hello!")) == nil)
        #expect(harness.events(2).isEmpty)
        harness.releaseCommits()
        let message = ChatMessage(id: 1, user: "bob", name: "bob", role: .viewer, text: "Hello!", time: harness.now)
        #expect(harness.inbox[SessionID(1)]?.last == .reply(id: 103, .success(.message(message))))
        #expect(harness.events(1) == [.message(message)])
        #expect(harness.events(2) == [.message(message)])
    }

    @Test func aFailedCommitIsUnavailableAndChangesNothing() throws {
        var harness = ShowHarness()
        harness.join(1, "bob")
        harness.holdCommits = true
        _ = harness.ask(1, .send(text: "lost"))
        let (commit, _) = try #require(harness.held.first)
        harness.run(harness.show.committed(commit, .failure(StoreError(.unavailable, "disk full")), now: harness.now))
        guard case .reply(_, .failure(let error))? = harness.inbox[SessionID(1)]?.last else {
            Issue.record("no error reply")
            return
        }
        #expect(error == ShowError(.unavailable, "not saved: disk full"))
        #expect(harness.show.snapshot.viewers == 1)
        #expect(harness.welcome(2, "eve").chat.messages.isEmpty)
    }

    /// A message deleted by another moderator between a request and its commit: the request was wrong, the store
    /// is fine (`invalid`, not `unavailable`, so a client does not retry).
    @Test func aCommitOfAMessageNoLongerThereIsInvalid() throws {
        var harness = ShowHarness()
        harness.join(1, "ann")
        _ = harness.ask(1, .send(text: "pin me"))
        harness.holdCommits = true
        _ = harness.ask(1, .pin(id: 1))
        let (commit, _) = try #require(harness.held.first)
        harness.run(harness.show.committed(commit, .failure(StoreError(.notFound, "no message 1")), now: harness.now))
        guard case .reply(_, .failure(let error))? = harness.inbox[SessionID(1)]?.last else {
            Issue.record("no error reply")
            return
        }
        #expect(error == ShowError(.invalid, "no message 1"))
    }

    @Test func visitorsMessagesHaveNoUserID() {
        var harness = ShowHarness(catalog: ShowHarness.seedCatalog(visitors: .viewer))
        harness.join(1, nil)
        guard case .success(.message(let message))? = harness.ask(1, .send(text: "hi")) else {
            Issue.record("no message")
            return
        }
        #expect(message.user == nil)
        #expect(message.name == "visitor-1")
    }

    @Test func historyOnJoinIsTheLast500OldestFirst() {
        var harness = ShowHarness(configure: { $0.setRequestRate(burst: 1000, perSecond: 1000) })
        harness.join(1, "ann")
        for index in 1...520 { _ = harness.ask(1, .send(text: "m\(index)")) }
        let chat = harness.welcome(2, "bob").chat
        #expect(chat.messages.count == 500)
        #expect(chat.messages.first?.text == "m21")
        #expect(chat.messages.last?.text == "m520")
        #expect(chat.messages.map(\.id) == chat.messages.map(\.id).sorted())
        #expect(chat.seq == 520)
    }

    /// A client that reconnects with its position gets what it missed: no message twice, none lost.
    @Test func rejoiningWithAPositionGetsOnlyWhatWasMissed() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        let first = harness.welcome(2, "bob")
        _ = harness.ask(1, .send(text: "one"))
        _ = harness.ask(1, .send(text: "two"))
        let position = ChatPosition(epoch: "e1", seq: 2)
        harness.run(harness.show.disconnected(SessionID(2), now: harness.now))
        _ = harness.ask(1, .send(text: "three"))
        _ = harness.ask(1, .deleteMessage(id: 1))
        let again = harness.welcome(3, "bob", since: position)
        #expect(first.chat.seq == 0)
        #expect(!again.chat.reset)
        #expect(again.chat.messages.map(\.text) == ["three"])
        #expect(again.chat.deleted == [1])
        #expect(again.chat.seq == 4)
        let stale = harness.welcome(4, "eve", since: ChatPosition(epoch: "old", seq: 2))
        #expect(stale.chat.reset)
        #expect(stale.chat.messages.map(\.text) == ["two", "three"])
    }

    @Test(arguments: [("", "cannot be empty"), (" \n\t ", "cannot be empty"),
                      (String(repeating: "a", count: 501), "at most 500 characters, this one has 501"),
                      ("bell\u{7}", "control characters"), ("carriage\r", "control characters"),
                      // Issue 34 item 4: messages that render blank (zero-width space, Hangul filler, the blank
                      // braille pattern, a bidi override, a mix with white space).
                      ("\u{200B}", "no visible character"), ("\u{3164}", "no visible character"),
                      ("\u{2800}", "no visible character"), ("\u{202E}", "no visible character"),
                      (" \u{200B}\u{FEFF}\u{2066}\n\u{3164} ", "no visible character")])
    func badTextIsInvalid(text: String, reason: String) {
        var harness = ShowHarness()
        harness.join(1, "bob")
        let error = harness.error(1, .send(text: text))
        #expect(error?.code == .invalid)
        #expect(error?.reason.contains(reason) == true)
    }

    @Test func fiveHundredCodePointsAndLineFeedsAreFine() {
        var harness = ShowHarness()
        harness.join(1, "bob")
        #expect(harness.error(1, .send(text: String(repeating: "🎥", count: 500))) == nil)
        #expect(harness.error(1, .send(text: "two\nlines")) == nil)
    }

    @Test func readOnlyCannotWriteOrReact() {
        var harness = ShowHarness()
        harness.join(1, "rita")
        #expect(harness.error(1, .send(text: "hi"))?.code == .readOnly)
        #expect(harness.error(1, .react(.heart))?.code == .readOnly)
    }

    /// Slow mode: viewers wait between messages (with the seconds left); hosts and mods do not.
    @Test func slowModeAppliesToViewersOnly() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        harness.join(2, "mugs")
        harness.join(3, "bob")
        harness.join(4, "bob")
        #expect(harness.ask(2, .setSlow(seconds: 10)) == .success(.done))
        #expect(harness.events(3).contains(.slow(10)))
        #expect(harness.welcome(5, "eve").show.slow == 10)
        #expect(harness.error(3, .send(text: "one")) == nil)
        harness.advance(milliseconds: 5800)
        let slow = harness.error(3, .send(text: "two"))
        #expect(slow == ShowError(.slow, "slow mode: one message every 10 s", retryAfter: 5))
        #expect(harness.error(4, .send(text: "other tab"))?.code == .slow)  // the same user in another tab
        #expect(harness.error(5, .send(text: "eve")) == nil)
        for _ in 0..<3 {
            #expect(harness.error(1, .send(text: "host")) == nil)
            #expect(harness.error(2, .send(text: "mod")) == nil)
        }
        harness.advance(milliseconds: 4200)
        #expect(harness.error(3, .send(text: "three")) == nil)
        #expect(harness.ask(1, .setSlow(seconds: 0)) == .success(.done))
        #expect(harness.error(3, .send(text: "four")) == nil)
    }

    /// Issue 34 item 14, as docs/live-protocol.md says it: slow mode counts from the sender's last message, also
    /// one sent before it was switched on.
    @Test func slowModeCountsAMessageSentBeforeItWasOn() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        harness.join(3, "bob")
        #expect(harness.error(3, .send(text: "before")) == nil)
        harness.advance(milliseconds: 10_000)
        #expect(harness.ask(1, .setSlow(seconds: 30)) == .success(.done))
        #expect(harness.error(3, .send(text: "after")) == ShowError(.slow, "slow mode: one message every 30 s",
                                                                     retryAfter: 20))
        harness.advance(milliseconds: 20_000)
        #expect(harness.error(3, .send(text: "later")) == nil)
    }

    @Test(arguments: [-1, 3601])
    func slowModeRange(seconds: Int) {
        var harness = ShowHarness()
        harness.join(1, "ann")
        #expect(harness.error(1, .setSlow(seconds: seconds))?.code == .invalid)
    }

    /// A timed-out user keeps watching but cannot write, is told the time left, and writes again when it ends.
    @Test func timeoutStopsWritingButNotWatching() {
        var harness = ShowHarness()
        harness.join(1, "mugs")
        harness.join(2, "bob")
        _ = harness.events(2)
        #expect(harness.ask(1, .timeout(user: "bob", seconds: 60))
                == .success(.timedOut(until: ShowHarness.start + 60_000)))
        #expect(harness.events(2) == [.you(SessionStanding(user: "bob", name: "bob", role: .viewer, canWrite: false,
                                                           timeoutUntil: ShowHarness.start + 60_000))])
        #expect(harness.closed.isEmpty)
        harness.advance(milliseconds: 15_500)
        #expect(harness.error(2, .send(text: "hi")) == ShowError(.timeout, "you are timed out of the chat",
                                                                 retryAfter: 45))
        // A reaction is writing too (issue 34 item 13: it was accepted from a timed-out user).
        #expect(harness.error(2, .react(.heart)) == ShowError(.timeout, "you are timed out of the chat and its "
                                                               + "reactions", retryAfter: 45))
        let rejoined = harness.welcome(3, "bob")
        #expect(rejoined.you.canWrite == false)
        #expect(rejoined.you.timeoutUntil == ShowHarness.start + 60_000)
        #expect(harness.show.nextDeadline == ShowHarness.start + 60_000)
        harness.advance(milliseconds: 44_500)
        #expect(harness.events(2).contains(.you(SessionStanding(user: "bob", name: "bob", role: .viewer,
                                                                canWrite: true))))
        #expect(harness.error(2, .send(text: "back")) == nil)
    }

    @Test(arguments: [59, 86_401, 0])
    func timeoutRange(seconds: Int) {
        var harness = ShowHarness()
        harness.join(1, "ann")
        #expect(harness.error(1, .timeout(user: "bob", seconds: seconds))?.code == .invalid)
    }

    @Test func timeoutOfAUserWhoIsNotHereWaitsForThem() {
        var harness = ShowHarness()
        harness.join(1, "ann")
        #expect(harness.ask(1, .timeout(user: "bob", seconds: 86_400)) != nil)
        #expect(harness.show.nextDeadline == nil)  // nobody to tell
        #expect(harness.welcome(2, "bob").you.canWrite == false)
    }

    /// Reactions from the fixed set, counted by kind and sent at most every 250 ms; per-sender rate limit.
    @Test func reactionsAreTalliedAndRateLimited() {
        var harness = ShowHarness()
        harness.join(1, "bob")
        harness.join(2, "eve")
        _ = (harness.events(1), harness.events(2))
        #expect(harness.ask(1, .react(.heart)) == .success(.done))
        #expect(harness.events(2) == [.reactions([.heart: 1])])
        harness.advance(milliseconds: 50)
        _ = harness.ask(1, .react(.heart))
        _ = harness.ask(2, .react(.fire))
        _ = harness.ask(2, .react(.heart))
        #expect(harness.events(2).isEmpty)
        harness.advance(milliseconds: 200)
        #expect(harness.events(2) == [.reactions([.heart: 2, .fire: 1])])
        for _ in 0..<9 { _ = harness.ask(1, .react(.clap)) }  // 10 in the bucket, 1 refilled in 250 ms
        let limited = harness.error(1, .react(.clap))
        #expect(limited?.code == .rateLimited)
        #expect(limited?.retryAfter == 1)
    }

    @Test func reactionsOnlyWhenDeclared() {
        var harness = ShowHarness(catalog: ShowHarness.seedCatalog(reactions: false))
        #expect(harness.welcome(1, "bob").show.reactions.isEmpty)
        #expect(harness.error(1, .react(.heart))?.reason == "show:mugs takes no reactions")
    }
}
