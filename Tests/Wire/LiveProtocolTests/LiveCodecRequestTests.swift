import LiveProtocol
import Testing

struct LiveCodecRequestTests {
    static let every: [Request] = [
        .join(since: nil), .join(since: ChatPosition(epoch: "e1", seq: 42)),
        .join(since: nil, visitor: "v1.q83vEjRWeJC8Xl2Xk5aXmQ.AAAAAAAAAAAAAAAAAAAAAA", name: "Zoë"), .leave,
        .send(text: "Hello!"),
        .react(.heart), .goLive(tiles: []), .goLive(tiles: [.camera, .screen]), .end, .ingest(renew: false),
        .ingest(renew: true), .setMain(.screen), .setMain(nil), .deleteMessage(id: 7), .pin(id: 7), .unpin,
        .timeout(user: "bob", seconds: 600), .setSlow(seconds: 10), .clearChat, .kick(user: "bob"),
        .ban(user: "bob"), .unban(user: "bob"),
    ]

    /// What a client encodes, the server decodes to the same request, for every op.
    @Test(arguments: every)
    func roundTrip(request: Request) throws {
        let encoded = LiveCodec.encode(ClientRequest(id: 9, request))
        #expect(try LiveCodec.decodeRequest(encoded) == ClientRequest(id: 9, request))
    }

    /// The exact text of the examples in docs/live-protocol.md.
    @Test(arguments: [
        (ClientRequest(id: 1, .join(since: ChatPosition(epoch: "6f1c", seq: 57))),
         #"{"op":"join","id":1,"since":{"epoch":"6f1c","seq":57}}"#),
        (ClientRequest(id: 1, .join(since: nil, visitor: "v1.q83vEjRWeJC8Xl2Xk5aXmQ.Gz1k2Vb4vLx7Xr2Q0c9mEA",
                                    name: "Zoë")),
         #"{"op":"join","id":1,"visitor":"v1.q83vEjRWeJC8Xl2Xk5aXmQ.Gz1k2Vb4vLx7Xr2Q0c9mEA","name":"Zoë"}"#),
        (ClientRequest(id: 2, .send(text: "Hello!")), #"{"op":"send","id":2,"text":"Hello!"}"#),
        (ClientRequest(id: 3, .timeout(user: "bob", seconds: 600)),
         #"{"op":"timeout","id":3,"user":"bob","seconds":600}"#),
        (ClientRequest(id: 4, .deleteMessage(id: 43)), #"{"op":"deleteMessage","id":4,"message":43}"#),
    ])
    func exactText(request: ClientRequest, text: String) {
        #expect(String(decoding: LiveCodec.encode(request), as: UTF8.self) == text)
    }

    @Test func membersInAnyOrderAndUnknownMembersIgnored() throws {
        let request = try LiveCodec.decodeRequest(Array(#"{"text":"hi","future":[1],"id":5,"op":"send"}"#.utf8))
        #expect(request == ClientRequest(id: 5, .send(text: "hi")))
    }

    /// Every malformed request gives `invalid`, with the id when the id could be read.
    @Test(arguments: [
        ("not json", nil, "not JSON"),
        ("[1]", nil, "must be a JSON object"),
        (#"{"op":"send","text":"x"}"#, nil, "has no id"),
        (#"{"op":"send","id":-1,"text":"x"}"#, nil, "has no id"),
        (#"{"op":"send","id":1.5,"text":"x"}"#, nil, "must be a whole number"),
        (#"{"op":"dance","id":3}"#, 3, "unknown op 'dance'"),
        (#"{"id":3}"#, 3, "op is missing"),
        (#"{"op":"send","id":3}"#, 3, "text is missing"),
        (#"{"op":"send","id":3,"text":7}"#, 3, "must be a string"),
        (#"{"op":"react","id":3,"reaction":"poop"}"#, 3, "must be one of 'heart'"),
        (#"{"op":"goLive","id":3,"tiles":["camera","hologram"]}"#, 3, "tiles must hold"),
        (#"{"op":"ingest","id":3,"renew":"yes"}"#, 3, "true or false"),
        (#"{"op":"timeout","id":3,"user":"bob"}"#, 3, "seconds is missing"),
        (#"{"op":"join","id":3,"since":{"epoch":"e"}}"#, 3, "since.seq is missing"),
        (#"{"op":"send","id":3,"text":{"a":{"b":{"c":{}}}}}"#, nil, "nested deeper"),
    ] as [(String, Int64?, String)])
    func malformed(text: String, id: Int64?, reason: String) {
        #expect {
            try LiveCodec.decodeRequest(Array(text.utf8))
        } throws: { error in
            guard let error = error as? LiveCodec.RequestError else { return false }
            return error.id == id && error.error.code == .invalid && error.error.reason.contains(reason)
        }
    }

    @Test func oversizedRequestsAreRefusedBeforeParsing() {
        let huge = Array(#"{"op":"send","id":1,"text":""#.utf8) + [UInt8](repeating: 0x61, count: 20_000)
            + Array(#""}"#.utf8)
        #expect { try LiveCodec.decodeRequest(huge) } throws: { error in
            (error as? LiveCodec.RequestError)?.error.reason.contains("at most") == true
        }
    }
}
