import LiveProtocol
import RealtimeCalls
import Testing

/// The show as a client knows it, applied without I/O: the welcome, resynchronising joins, events in order.
struct LiveStreamModelTests {
    static func message(_ id: Int64, _ text: String = "m") -> ChatMessage {
        ChatMessage(id: id, user: "bob", name: "Bob", role: .viewer, text: "\(text)\(id)", time: 1_764_500_000_000)
    }

    static func welcome(epoch: String = "e1", seq: Int64, reset: Bool, messages: [ChatMessage],
                        deleted: [Int64] = []) -> Welcome {
        Welcome(show: ShowSnapshot(name: "show:mugs", state: .live, tiles: [.camera], main: .camera, viewers: 3,
                                   pinned: nil, slow: 0, reactions: [.heart]),
                you: SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: true),
                chat: ChatSync(epoch: epoch, seq: seq, reset: reset, messages: messages, deleted: deleted))
    }

    @Test func theFirstWelcomeSetsEverythingWithoutMessageNotices() {
        var model = LiveStreamModel(name: "show:mugs")
        #expect(model.media == .connecting && !model.canWrite)
        let notices = model.apply(Self.welcome(seq: 3, reset: true, messages: [Self.message(1), Self.message(3)]))
        #expect(notices == [.changed])
        #expect(model.state == .live && model.media == .live && model.viewers == 3 && model.canWrite)
        #expect(model.messages.map(\.id) == [1, 3] && model.position == ChatPosition(epoch: "e1", seq: 3))
        #expect(model.tiles == [.camera] && model.main == .camera && model.reactionKinds == [.heart])
    }

    /// The media grant comes with the welcome and is replaced by each `access` event (issue 34 defect A).
    @Test func theMediaTokenFollowsTheWelcomeAndItsRenewals() {
        var model = LiveStreamModel(name: "show:mugs")
        var welcome = Self.welcome(seq: 0, reset: true, messages: [])
        welcome.access = MediaAccess(token: "m1.first", expiresAt: 1_764_500_600_000)
        _ = model.apply(welcome)
        #expect(model.access?.token == "m1.first")
        let renewed = MediaAccess(token: "m1.second", expiresAt: 1_764_500_900_000)
        #expect(model.apply(.access(renewed)) == [.changed])
        #expect(model.access == renewed)
    }

    @Test func eventsAtOrBelowThePositionAreNotAppliedTwice() {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Self.welcome(seq: 3, reset: true, messages: [Self.message(3)]))
        #expect(model.apply(.message(Self.message(3))) == [])
        #expect(model.apply(.message(Self.message(2))) == [])
        let fresh = Self.message(5)
        #expect(model.apply(.message(fresh)) == [.changed, .message(fresh)])
        #expect(model.messages.map(\.id) == [3, 5] && model.position?.seq == 5)
        _ = model.apply(.deleted(id: 3, seq: 6))
        #expect(model.messages.map(\.id) == [5] && model.position?.seq == 6)
        _ = model.apply(.cleared(seq: 7))
        #expect(model.messages.isEmpty && model.position?.seq == 7)
    }

    @Test func aResynchronisedJoinAppendsOnlyWhatWasMissedAndRemovesDeletions() {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Self.welcome(seq: 4, reset: true, messages: [Self.message(2), Self.message(4)]))
        #expect(model.connectionLost() == [.changed] && model.media == .reconnecting)
        #expect(model.connectionLost() == [])
        // The server sends what is newer than 4, and says 2 was deleted meanwhile; 4 arriving again is skipped.
        let notices = model.apply(Self.welcome(seq: 8, reset: false,
                                               messages: [Self.message(4), Self.message(6), Self.message(8)],
                                               deleted: [2]))
        #expect(model.messages.map(\.id) == [4, 6, 8] && model.media == .live && model.position?.seq == 8)
        #expect(notices == [.changed, .message(Self.message(6)), .message(Self.message(8))])
    }

    /// The seed's `media` is where the app is in the room: the connection, and while it is live, the path of what
    /// this app publishes (goLive), as its media reports it.
    @Test func mediaFollowsTheConnectionThenThePublishedPath() {
        var model = LiveStreamModel(name: "show:mugs")
        #expect(model.publishingChanged(.connecting) == [], "connecting either way: nothing changes")
        #expect(model.media == .connecting)
        _ = model.apply(Self.welcome(seq: 0, reset: true, messages: []))
        #expect(model.connection == .live && model.media == .connecting, "joined, the picture still connecting")
        #expect(model.publishingChanged(.live) == [.changed] && model.media == .live)
        #expect(model.publishingChanged(.reconnecting) == [.changed] && model.media == .reconnecting)
        #expect(model.connectionLost() == [.changed] && model.media == .reconnecting, "both lost: reconnecting")
        _ = model.apply(Self.welcome(seq: 0, reset: false, messages: []))
        #expect(model.publishingChanged(.live) == [.changed] && model.media == .live)
        #expect(model.publishingChanged(.off) == [] && model.publishing == nil && model.media == .live,
                "publishing stopped: the connection alone")
    }

    @Test func aResetOrANewEpochReplacesTheMessages() {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Self.welcome(seq: 4, reset: true, messages: [Self.message(4)]))
        _ = model.apply(Self.welcome(epoch: "e2", seq: 2, reset: false, messages: [Self.message(1), Self.message(2)]))
        #expect(model.messages.map(\.id) == [1, 2] && model.position == ChatPosition(epoch: "e2", seq: 2))
        _ = model.apply(Self.welcome(epoch: "e2", seq: 9, reset: true, messages: [Self.message(9)]))
        #expect(model.messages.map(\.id) == [9])
    }

    @Test func stateTilesCountPinSlowStandingAndReactions() {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Self.welcome(seq: 1, reset: true, messages: [Self.message(1)]))
        _ = model.apply(.state(.ended))
        _ = model.apply(.tiles([.camera, .obs], main: .obs))
        _ = model.apply(.media(main: nil))
        _ = model.apply(.viewers(7))
        _ = model.apply(.pinned(Self.message(1)))
        _ = model.apply(.slow(10))
        _ = model.apply(.you(SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: false,
                                             timeoutUntil: 5)))
        #expect(model.state == .ended && model.tiles == [.camera, .obs] && model.main == nil && model.viewers == 7)
        #expect(model.pinned?.id == 1 && model.slow == 10 && !model.canWrite)
        #expect(model.apply(.reactions([.heart: 2])) == [.reactions([.heart: 2])])
        _ = model.apply(.reactions([.heart: 1, .fire: 1]))
        #expect(model.reactionTotals == [.heart: 3, .fire: 1])
        #expect(model.apply(.ended(.kicked)) == [.changed, .ended(.kicked)])
        #expect(model.ended == .kicked && model.media == .off && model.connectionLost() == [])
    }

    @Test func theChatIsBoundedAndSaysWhatItDropped() {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Self.welcome(seq: 0, reset: true, messages: []))
        let total = LiveStreamModel.maximumMessages + 5
        for id in 1...total { _ = model.apply(.message(Self.message(Int64(id)))) }
        #expect(model.messages.count == LiveStreamModel.maximumMessages)
        #expect(model.messages.first?.id == 6 && model.droppedMessages == 5)
    }
}
