import RealtimeCalls
import Testing

/// The stream's WebSocket URL from the server's base URL.
struct StreamAddressTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "ws://127.0.0.1:8080/v1/streams/show:mugs"),
        ("https://live.example.com/", "wss://live.example.com/v1/streams/show:mugs"),
        ("HTTPS://live.example.com/base//", "wss://live.example.com/base/v1/streams/show:mugs"),
        ("ws://h:1", "ws://h:1/v1/streams/show:mugs"),
        ("wss://h", "wss://h/v1/streams/show:mugs"),
    ])
    func buildsTheURL(_ server: String, _ expected: String) throws {
        #expect(try StreamAddress.webSocketURL(server: server, stream: "show:mugs") == expected)
    }

    @Test(arguments: [("ftp://h", "show:mugs"), ("http://", "show:mugs"), ("http://h?x=1", "show:mugs"),
                      ("http://h", ""), ("http://h", "show/mugs"), ("http://h", "show mugs"), ("http://h", "é"),
                      ("http://h", String(repeating: "a", count: 129))])
    func refusesBadInput(_ server: String, _ name: String) {
        #expect(throws: LiveStreamError.self) { try StreamAddress.webSocketURL(server: server, stream: name) }
    }
}
