import Digest
import HTTP

/// The server side of the opening handshake (RFC 6455 §4.2).
public enum WebSocketHandshake {
    /// §1.3: the GUID appended to the client's key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// §4.1: the only version of the protocol.
    public static let version = "13"

    /// What a valid upgrade request offers.
    public struct Offer: Sendable, Equatable {
        /// `Sec-WebSocket-Key`.
        public var key: String
        /// `Sec-WebSocket-Protocol` values in the client's order of preference.
        public var protocols: [String]
        /// `Origin`, sent by browsers (nil from other clients).
        public var origin: String?
    }

    /// Why an upgrade request was refused, with the response to send.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// 400, or 426 with `Sec-WebSocket-Version: 13` for another version.
        public var response: HTTPResponseHead
        /// What was wrong.
        public var description: String
    }

    /// §4.2.2: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + guid).utf8)))
    }

    /// Whether a request asks for a WebSocket (`Upgrade: websocket`), valid or not.
    public static func isUpgradeRequest(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains("Upgrade", token: "websocket")
    }

    /// Checks an upgrade request (§4.2.1): GET, HTTP/1.1, `Upgrade: websocket`, `Connection: Upgrade`, a key of
    /// 16 bytes in base64, version 13.
    /// - Throws: ``Refusal`` with the response to send instead of 101.
    public static func offer(in head: HTTPRequestHead) throws(Refusal) -> Offer {
        func refuse(_ reason: String, status: HTTPStatus = .badRequest) -> Refusal {
            Refusal(response: HTTPResponseHead(status: status), description: reason)
        }
        guard head.method == .get else { throw refuse("a WebSocket upgrade must be a GET", status: .methodNotAllowed) }
        guard head.version.minor >= 1 else { throw refuse("a WebSocket upgrade needs HTTP/1.1") }
        guard isUpgradeRequest(head) else { throw refuse("no Upgrade: websocket", status: .upgradeRequired) }
        guard head.headers.contains("Connection", token: "upgrade") else { throw refuse("no Connection: Upgrade") }
        let versions = head.headers.listElements("Sec-WebSocket-Version")
        guard versions == [version] else {
            var refusal = refuse("unsupported Sec-WebSocket-Version \(versions.joined(separator: ", ")); 13 is "
                                     + "the only one", status: .upgradeRequired)
            refusal.response.headers.add("Sec-WebSocket-Version", version)
            throw refusal
        }
        let keys = head.headers.values("Sec-WebSocket-Key")
        guard keys.count == 1, let decoded = Base64.decode(keys[0]), decoded.count == 16 else {
            throw refuse("Sec-WebSocket-Key must be one base64 value of 16 bytes")
        }
        return Offer(key: keys[0], protocols: head.headers.listElements("Sec-WebSocket-Protocol"),
                     origin: head.headers["Origin"])
    }

    /// The 101 response accepting `offer`.
    /// - Parameter subprotocol: one of the offered protocols, or nil for none.
    public static func response(accepting offer: Offer, subprotocol: String?) -> HTTPResponseHead {
        precondition(subprotocol.map(offer.protocols.contains) ?? true, "the chosen subprotocol was not offered")
        var headers: HTTPHeaders = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": acceptValue(forKey: offer.key),
        ]
        if let subprotocol { headers.add("Sec-WebSocket-Protocol", subprotocol) }
        return HTTPResponseHead(status: .switchingProtocols, headers: headers)
    }
}
