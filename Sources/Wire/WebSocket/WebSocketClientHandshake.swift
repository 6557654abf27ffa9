import Digest
import HTTP

/// The client side of the opening handshake (RFC 6455 §4.1): the request to send, and the checks on the answer.
public struct WebSocketClientHandshake: Sendable {
    /// The `Sec-WebSocket-Key` sent: base64 of 16 random bytes.
    public let key: String
    /// The subprotocols offered, in order of preference.
    public let protocols: [String]

    /// Creates a handshake.
    /// - Parameters:
    ///   - nonce: 16 random bytes (from a strong source: §4.1 requires the key to be unpredictable).
    ///   - protocols: subprotocols to offer, if any.
    public init(nonce: [UInt8], protocols: [String] = []) {
        precondition(nonce.count == 16, "the WebSocket key nonce must be 16 bytes")
        key = Base64.encode(nonce)
        self.protocols = protocols
    }

    /// The upgrade request.
    /// - Parameters:
    ///   - target: path and query ("/v1/streams/show?access_token=…").
    ///   - host: the `Host` value ("example.com:8080").
    ///   - headers: more fields (`Authorization`, `Origin`); they must not repeat the handshake's own.
    public func request(target: String, host: String, headers: HTTPHeaders = [:]) -> HTTPRequestHead {
        var fields: HTTPHeaders = [
            "Host": host, "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": WebSocketHandshake.version,
        ]
        if !protocols.isEmpty { fields.add("Sec-WebSocket-Protocol", protocols.joined(separator: ", ")) }
        for field in headers { fields.add(field.name, field.value) }
        return HTTPRequestHead(method: .get, target: target, headers: fields)
    }

    /// Checks the server's answer (§4.1, the client's validation steps).
    /// - Returns: the subprotocol the server chose, or nil.
    /// - Throws: ``WebSocketError`` (1002) naming what is wrong; a status other than 101 is reported with it.
    public func validate(_ response: HTTPResponseHead) throws(WebSocketError) -> String? {
        guard response.status == .switchingProtocols else {
            throw .protocolError("the server answered \(response.status) instead of 101 Switching Protocols")
        }
        guard response.headers.contains("Upgrade", token: "websocket") else {
            throw .protocolError("the server's 101 has no Upgrade: websocket")
        }
        guard response.headers.contains("Connection", token: "upgrade") else {
            throw .protocolError("the server's 101 has no Connection: Upgrade")
        }
        guard response.headers.values("Sec-WebSocket-Accept") == [WebSocketHandshake.acceptValue(forKey: key)] else {
            throw .protocolError("the server's Sec-WebSocket-Accept does not match our key")
        }
        guard response.headers.listElements("Sec-WebSocket-Extensions").isEmpty else {
            throw .protocolError("the server accepted an extension we did not offer")
        }
        let chosen = response.headers.listElements("Sec-WebSocket-Protocol")
        guard chosen.count <= 1 else { throw .protocolError("the server chose more than one subprotocol") }
        if let protocolName = chosen.first {
            guard protocols.contains(protocolName) else {
                throw .protocolError("the server chose the subprotocol \(protocolName), which we did not offer")
            }
            return protocolName
        }
        return nil
    }
}
