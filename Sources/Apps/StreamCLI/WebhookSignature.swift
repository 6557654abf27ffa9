import ByteIO
import Digest

/// How a webhook is signed (docs/webhooks.md): HMAC-SHA256 with the shared secret over `timestamp + "." + body`,
/// sent as `Stream-Signature: v1=<hex>` beside `Stream-Timestamp: <unix seconds>`.
///
/// The timestamp is signed so a receiver can refuse a replayed request older than a few minutes; `v1=` names the
/// scheme so another can be added beside it.
enum WebhookSignature {
    /// The header that carries the time the request was signed, in Unix seconds.
    static let timestampHeader = "Stream-Timestamp"
    /// The header that carries the signature.
    static let signatureHeader = "Stream-Signature"
    /// The header that repeats the event's id, for a receiver that deduplicates before parsing.
    static let idHeader = "Stream-Webhook-Id"

    /// The `Stream-Signature` value of a body sent at `timestamp`.
    static func signature(secret: [UInt8], timestamp: Int64, body: [UInt8]) -> String {
        let message = Array("\(timestamp).".utf8) + body
        return "v1=" + Hex.encode(HMACSHA256.authenticationCode(key: secret, message: message))
    }
}
