import LiveProtocol
import Testing

struct LiveCodecServerMessageTests {
    static let message = ChatMessage(id: 43, user: "bob", name: "Bob", role: .viewer, text: "Hello!",
                                     time: 1_764_500_000_123)
    static let visitorMessage = ChatMessage(id: 44, user: nil, name: "visitor-3f2a", role: .viewer, text: "hi",
                                            time: 1_764_500_001_000)
    static let standing = SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: false,
                                          timeoutUntil: 1_764_500_600_000)
    static let welcome = Welcome(
        show: ShowSnapshot(name: "show:mugs", state: .live, tiles: [.camera, .obs], main: .obs, viewers: 3,
                           pinned: message, slow: 10, reactions: Reaction.allCases),
        you: SessionStanding(user: "bob", name: "Bob", role: .viewer, canWrite: true),
        chat: ChatSync(epoch: "6f1c", seq: 44, reset: false, messages: [visitorMessage], deleted: [41]))
    static let access = MediaAccess(token: "m1.1764500000.1764500600.Ym9i.q83vEjRWeJC8Xl2Xk5aXmQ",
                                    expiresAt: 1_764_500_600_000)
    static var welcomeWithAccess: Welcome {
        var welcome = welcome
        welcome.access = access
        return welcome
    }

    static var visitorWelcome: Welcome {
        var welcome = welcomeWithAccess
        welcome.you = SessionStanding(user: "visitor:q83vEjRWeJC8Xl2Xk5aXmQ", name: "visitor-abcd", role: .viewer,
                                      canWrite: true)
        welcome.show.title = "The Example Shop"
        welcome.show.description = "Mugs and more.\nEvery Friday."
        welcome.visitor = VisitorGrant(id: "visitor:q83vEjRWeJC8Xl2Xk5aXmQ",
                                       token: "v1.q83vEjRWeJC8Xl2Xk5aXmQ.Gz1k2Vb4vLx7Xr2Q0c9mEA")
        return welcome
    }

    static let every: [ServerMessage] = [
        .reply(id: 1, .success(.welcome(visitorWelcome))),
        .reply(id: 1, .success(.welcome(welcome))),
        .reply(id: 1, .success(.welcome(welcomeWithAccess))),
        .reply(id: 2, .success(.message(message))),
        .reply(id: 3, .success(.grants([PublishGrant(tile: .camera, url: "rtmp://127.0.0.1:1935/live",
                                                     key: "grant_x", expiresAt: 1_764_500_060_000)]))),
        .reply(id: 4, .success(.ingest(IngestEndpoint(url: "rtmp://127.0.0.1:1935/live", key: "live_x")))),
        .reply(id: 5, .success(.timedOut(until: 1_764_500_600_000))),
        .reply(id: 6, .success(.done)),
        .reply(id: 7, .failure(ShowError(.slow, "slow mode: one message every 10 s", retryAfter: 4))),
        .reply(id: nil, .failure(ShowError(.invalid, "the request is not JSON"))),
        .event(.state(.ended)), .event(.media(main: .screen)), .event(.media(main: nil)),
        .event(.tiles([.camera, .screen], main: .screen)), .event(.viewers(2000)), .event(.message(message)),
        .event(.message(visitorMessage)), .event(.deleted(id: 43, seq: 45)), .event(.cleared(seq: 46)),
        .event(.pinned(message)), .event(.pinned(nil)), .event(.slow(30)), .event(.reactions([.heart: 3, .fire: 1])),
        .event(.you(standing)), .event(.ended(.banned)), .event(.access(access)),
    ]

    /// What the server encodes, a client decodes to the same message, for every reply and event.
    @Test(arguments: every)
    func roundTrip(message: ServerMessage) throws {
        #expect(try LiveCodec.decodeServerMessage(LiveCodec.encode(message)) == message)
    }

    static let welcomeText: String = #"{"reply":1,"ok":true,"show":{"name":"show:mugs","state":"live","#
        + #""tiles":["camera","obs"],"main":"obs","media":"on","viewers":3,"pinned":{"id":43,"user":"bob","#
        + #""name":"Bob","#
        + #""role":"viewer","text":"Hello!","time":1764500000123},"slow":10,"#
        + #""reactions":["heart","like","laugh","wow","clap","fire"]},"#
        + #""you":{"user":"bob","name":"Bob","role":"viewer","canWrite":true,"timeoutUntil":null},"#
        + #""chat":{"epoch":"6f1c","seq":44,"reset":false,"messages":[{"id":44,"user":null,"#
        + #""name":"visitor-3f2a","role":"viewer","text":"hi","time":1764500001000}],"deleted":[41]}}"#

    static let examples: [(ServerMessage, String)] = [
        (.event(.message(message)),
         #"{"event":"message","seq":43,"message":{"id":43,"user":"bob","name":"Bob","role":"viewer","#
            + #""text":"Hello!","time":1764500000123}}"#),
        (.reply(id: 7, .failure(ShowError(.slow, "slow mode: one message every 10 s", retryAfter: 4))),
         #"{"reply":7,"ok":false,"error":{"code":"slow","reason":"slow mode: one message every 10 s","#
            + #""retryAfter":4}}"#),
        (.event(.reactions([.fire: 1, .heart: 3])), #"{"event":"reactions","counts":{"heart":3,"fire":1}}"#),
        (.event(.media(main: nil)), #"{"event":"media","media":"off","main":null}"#),
        (.reply(id: 6, .success(.done)), #"{"reply":6,"ok":true}"#),
        (.event(.ended(.kicked)), #"{"event":"ended","reason":"kicked"}"#),
        (.reply(id: 1, .success(.welcome(welcome))), welcomeText),
        (.reply(id: 1, .success(.welcome(welcomeWithAccess))),
         String(welcomeText.dropLast()) + #","access":{"token":"m1.1764500000.1764500600.Ym9i.q83vEjRWeJC8Xl2Xk5aXmQ","#
            + #""expiresAt":1764500600000}}"#),
        (.event(.access(access)),
         #"{"event":"access","access":{"token":"m1.1764500000.1764500600.Ym9i.q83vEjRWeJC8Xl2Xk5aXmQ","#
            + #""expiresAt":1764500600000}}"#),
    ]

    /// The exact text of the examples in docs/live-protocol.md.
    @Test(arguments: examples)
    func exactText(message: ServerMessage, text: String) {
        #expect(String(decoding: LiveCodec.encode(message), as: UTF8.self) == text)
    }

    @Test(arguments: ["", "{}", #"{"event":"party"}"#, #"{"event":"state","state":"paused"}"#,
                      #"{"reply":1,"ok":false,"error":{"code":"oops","reason":"x"}}"#, #"{"reply":"1","ok":true}"#])
    func malformedServerMessages(text: String) {
        #expect(throws: LiveCodec.MessageError.self) { try LiveCodec.decodeServerMessage(Array(text.utf8)) }
    }
}
