import HTTP
import Testing
import WebSocket

private func upgrade(_ extra: HTTPHeaders = [:], removing: [String] = [],
                     method: HTTPMethod = .get) -> HTTPRequestHead {
    var headers: HTTPHeaders = [
        "Host": "server.example.com", "Upgrade": "websocket", "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "http://example.com",
        "Sec-WebSocket-Protocol": "chat, superchat", "Sec-WebSocket-Version": "13",
    ]
    for name in removing { headers.remove(name) }
    for field in extra { headers.set(field.name, field.value) }
    return HTTPRequestHead(method: method, target: "/chat", headers: headers)
}

struct WebSocketHandshakeTests {
    /// RFC 6455 §1.3 and §4.2.2's example.
    @Test func acceptsTheRFCExample() throws {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let offer = try WebSocketHandshake.offer(in: upgrade())
        #expect(offer.protocols == ["chat", "superchat"])
        #expect(offer.origin == "http://example.com")
        let response = WebSocketHandshake.response(accepting: offer, subprotocol: "chat")
        #expect(String(decoding: response.encoded(), as: UTF8.self) == "HTTP/1.1 101 Switching Protocols\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                + "Sec-WebSocket-Protocol: chat\r\n\r\n")
    }

    @Test func acceptsTokensInAnyCaseAndWithinLists() throws {
        let head = upgrade(["Upgrade": "WebSocket", "Connection": "keep-alive, Upgrade"])
        #expect(try WebSocketHandshake.offer(in: head).key == "dGhlIHNhbXBsZSBub25jZQ==")
    }

    @Test(arguments: [
        (upgrade(method: .post), 405), (upgrade(removing: ["Upgrade"]), 426), (upgrade(removing: ["Connection"]), 400),
        (upgrade(["Sec-WebSocket-Version": "8"]), 426), (upgrade(removing: ["Sec-WebSocket-Key"]), 400),
        (upgrade(["Sec-WebSocket-Key": "c2hvcnQ="]), 400), (upgrade(["Sec-WebSocket-Key": "not base64!"]), 400),
    ])
    func refusesInvalidUpgrades(head: HTTPRequestHead, status: Int) {
        let refusal = #expect(throws: WebSocketHandshake.Refusal.self) { try WebSocketHandshake.offer(in: head) }
        #expect(refusal?.response.status.code == status)
        if status == 426 && head.headers["Upgrade"] != nil {
            #expect(refusal?.response.headers["Sec-WebSocket-Version"] == "13")
        }
    }

    @Test func clientRequestAndValidation() throws {
        let nonce: [UInt8] = Array("the sample nonce".utf8)
        let client = WebSocketClientHandshake(nonce: nonce, protocols: ["chat"])
        #expect(client.key == "dGhlIHNhbXBsZSBub25jZQ==")
        let request = client.request(target: "/chat", host: "server.example.com",
                                     headers: ["Authorization": "Bearer t"])
        let offer = try WebSocketHandshake.offer(in: request)
        #expect(request.headers["Authorization"] == "Bearer t")
        let response = WebSocketHandshake.response(accepting: offer, subprotocol: "chat")
        #expect(try client.validate(response) == "chat")

        var wrongAccept = response
        wrongAccept.headers.set("Sec-WebSocket-Accept", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        #expect(throws: WebSocketError.self) { try client.validate(wrongAccept) }
        var extensionAdded = response
        extensionAdded.headers.add("Sec-WebSocket-Extensions", "permessage-deflate")
        #expect(throws: WebSocketError.self) { try client.validate(extensionAdded) }
        var otherProtocol = response
        otherProtocol.headers.set("Sec-WebSocket-Protocol", "superchat")
        #expect(throws: WebSocketError.self) { try client.validate(otherProtocol) }
        #expect(throws: WebSocketError.self) { try client.validate(HTTPResponseHead(status: .forbidden)) }
    }
}
