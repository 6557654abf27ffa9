import AppLogic
import LiveProtocol
import RealtimeCalls
import Testing

/// The watch screen's labels, banner and composer.
struct WatchScreenStateTests {
    static func model(role: Role = .viewer, canWrite: Bool = true, timeoutUntil: Int64? = nil, slow: Int = 0,
                      state: ShowState = .live, events: [Event] = []) -> LiveStreamModel {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Welcome(
            show: ShowSnapshot(name: "show:mugs", state: state, tiles: [.camera], main: .camera, viewers: 3,
                               pinned: nil, slow: slow, reactions: [.heart, .fire]),
            you: SessionStanding(user: "bob", name: "Bob", role: role, canWrite: canWrite, timeoutUntil: timeoutUntil),
            chat: ChatSync(epoch: "e", seq: 0, reset: true, messages: [], deleted: [])))
        for event in events { _ = model.apply(event) }
        return model
    }

    @Test func labelsAndComposerOfAViewer() {
        let state = WatchScreenState(Self.model(), now: 0)
        #expect(state.stateLabel == "Live now" && state.countLabel == "3 watching" && state.banner == nil)
        #expect(state.canCompose && state.placeholder == "Say something…" && state.reactions == [.heart, .fire])
        #expect(WatchScreenState(Self.model(slow: 10), now: 0).placeholder == "Slow mode: one message every 10 s")
        #expect(WatchScreenState(Self.model(role: .mod, slow: 10), now: 0).placeholder == "Say something…")
        #expect(WatchScreenState(Self.model(state: .idle), now: 0).stateLabel == "Not live yet")
    }

    @Test func readOnlyTimedOutReconnectingAndKicked() {
        let readOnly = WatchScreenState(Self.model(role: .readOnly, canWrite: false), now: 0)
        #expect(!readOnly.canCompose && readOnly.placeholder == "Only watching" && readOnly.reactions.isEmpty)
        let timedOut = WatchScreenState(Self.model(canWrite: false, timeoutUntil: 120_000), now: 1000)
        #expect(!timedOut.canCompose && timedOut.placeholder == "Timed out: 2 min left")
        var lost = Self.model()
        _ = lost.connectionLost()
        let reconnecting = WatchScreenState(lost, now: 0)
        #expect(reconnecting.banner == "Reconnecting…" && !reconnecting.canCompose && reconnecting.reactions.isEmpty)
        let kicked = WatchScreenState(Self.model(events: [.ended(.kicked)]), now: 0)
        #expect(kicked.banner == "You were removed from the stream." && !kicked.canCompose)
    }

    @Test func whatCanBeSentAndTheTextOfEachError() {
        #expect(WatchScreenState.canSend("hi") && !WatchScreenState.canSend(" \n "))
        #expect(WatchScreenState.canSend(String(repeating: "é", count: 500)))
        #expect(!WatchScreenState.canSend(String(repeating: "a", count: 501)))
        #expect(WatchScreenState.text(for: .slow("x", retryAfter: 4)) == "Slow mode: wait 4 s.")
        #expect(WatchScreenState.text(for: .timeout("x", retryAfter: 61)) == "You are timed out for 2 more min.")
        #expect(WatchScreenState.text(for: .notHost("x")) == "Only the host can do that.")
        #expect(WatchScreenState.text(for: .ended(.banned)) == "You are banned from this stream.")
    }
}
