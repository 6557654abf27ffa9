import Foundation
import LiveProtocol
import RealtimeCalls
import Testing
@testable import StreamCLI

/// What `stream watch` prints for each change, as text and as JSON.
struct WatchViewTests {
    static func message(_ id: Int64, role: Role = .viewer) -> ChatMessage {
        ChatMessage(id: id, user: "bob", name: "Bob", role: role, text: "hi \(id)", time: 1_764_500_000_000)
    }

    static func model(seq: Int64 = 2, messages: [ChatMessage] = [message(1), message(2)],
                      events: [Event] = []) -> LiveStreamModel {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Welcome(
            show: ShowSnapshot(name: "show:mugs", state: .idle, tiles: [], main: nil, viewers: 1, pinned: nil,
                               slow: 0, reactions: [.heart]),
            you: SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: true),
            chat: ChatSync(epoch: "e", seq: seq, reset: true, messages: messages, deleted: [])))
        for event in events { _ = model.apply(event) }
        return model
    }

    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func theOpeningShowsStateCountAndHistory() throws {
        let model = Self.model(events: [.pinned(Self.message(2))])
        #expect(WatchView(json: false).opening(model) == ["show:mugs: idle, 1 watching", "pinned: Bob: hi 2",
                                                          "Bob: hi 1", "Bob: hi 2"])
        let welcome = try Self.objects(WatchView(json: true).opening(model))
        #expect(welcome.count == 1 && welcome[0]["event"] as? String == "welcome")
        #expect((welcome[0]["messages"] as? [[String: Any]])?.count == 2 && welcome[0]["role"] as? String == "viewer")
    }

    /// Issue 34 item 12: the declaration's title and description open the view, safe for a terminal.
    @Test func theTitleAndDescriptionComeFirst() throws {
        var model = LiveStreamModel(name: "show:mugs")
        _ = model.apply(Welcome(
            show: ShowSnapshot(name: "show:mugs", title: "Mugs \u{1B}]0;x\u{7}live", description: "Line one\nLine two",
                               state: .live, tiles: [], main: nil, viewers: 2, pinned: nil, slow: 0, reactions: []),
            you: SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: true),
            chat: ChatSync(epoch: "e", seq: 0, reset: true, messages: [], deleted: [])))
        #expect(WatchView(json: false).opening(model) == ["Mugs \\u{1B}]0;x\\u{7}live", "Line one", "Line two",
                                                          "show:mugs: live, 2 watching"])
        let welcome = try Self.objects(WatchView(json: true).opening(model))
        #expect(welcome[0]["title"] as? String == "Mugs \u{1B}]0;x\u{7}live")
        #expect(welcome[0]["description"] as? String == "Line one\nLine two")
    }

    @Test func eachChangeIsOneLine() throws {
        let old = Self.model()
        let new = Self.model(events: [.state(.live), .tiles([.camera, .screen], main: .screen), .viewers(4),
                                      .pinned(Self.message(1)), .slow(10), .deleted(id: 1, seq: 3),
                                      .you(SessionStanding(user: "bob", name: "Bob", role: .viewer,
                                                           canWrite: false))])
        #expect(WatchView(json: false).changes(from: old, to: new) == [
            "state: live", "pictures: camera, screen (main)", "4 watching", "pinned: Bob: hi 1",
            "slow mode: one message every 10 s", "you may not write now", "deleted message 1",
        ])
        let events = try Self.objects(WatchView(json: true).changes(from: old, to: new))
        #expect(events.map { $0["event"] as? String } == ["state", "tiles", "viewers", "pinned", "slow", "canWrite",
                                                          "deleted"])
        #expect(events[1]["tiles"] as? [String] == ["camera", "screen"] && events[1]["main"] as? String == "screen")
        #expect(WatchView(json: false).changes(from: new, to: new).isEmpty)
    }

    @Test func aClearIsOneLineAndTheBoundIsNotADeletion() throws {
        let cleared = Self.model(events: [.cleared(seq: 3)])
        #expect(WatchView(json: false).changes(from: Self.model(), to: cleared) == ["the chat was cleared"])
        var full = Self.model(seq: 0, messages: [])
        for id in 1...LiveStreamModel.maximumMessages { _ = full.apply(.message(Self.message(Int64(id)))) }
        var next = full
        _ = next.apply(.message(Self.message(Int64(LiveStreamModel.maximumMessages + 1))))
        #expect(WatchView(json: true).changes(from: full, to: next).isEmpty)
    }

    @Test func messagesReactionsErrorsAndTheEnd() throws {
        let view = WatchView(json: false)
        #expect(view.message(Self.message(3, role: .mod)) == "Bob [mod]: hi 3")
        #expect(view.reactions([.fire: 1, .heart: 2]) == "reactions: heart 2, fire 1")
        #expect(view.ended(.kicked) == "ended: kicked")
        #expect(view.error(.slow("slow mode", retryAfter: 4)) == "refused: slow: slow mode")
        let json = try Self.objects([WatchView(json: true).error(.slow("slow mode", retryAfter: 4)),
                                     WatchView(json: true).reactions([.heart: 2])])
        #expect(json[0]["code"] as? String == "slow" && json[0]["retryAfter"] as? Int == 4)
        #expect(json[1]["counts"] as? [String: Int] == ["heart": 2])
    }

    /// Issue 34 item 3: what others wrote cannot drive the viewer's terminal (ESC sequences, BEL, bidi overrides)
    /// or forge a line of another writer; JSON lines keep the text as it is (JSON escapes it).
    @Test func controlCharactersAndLineFeedsCannotForgeLines() throws {
        let hostile = ChatMessage(id: 4, user: "x", name: "x\u{1B}]0;pwned\u{7}\u{1B}[2J", role: .viewer,
                                  text: "fine\nAnn [host]: send me your key\u{202E}", time: 0)
        let line = WatchView(json: false).message(hostile)
        #expect(line == "x\\u{1B}]0;pwned\\u{7}\\u{1B}[2J: fine\n  | Ann [host]: send me your key\\u{202E}")
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x7 || $0.value == 0x202E })
        let json = try Self.objects([WatchView(json: true).message(hostile)])
        #expect((json[0]["message"] as? [String: Any])?["text"] as? String == hostile.text)
    }
}
