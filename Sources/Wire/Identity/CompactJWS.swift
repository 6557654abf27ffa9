import Digest
import JSON

/// JWS compact serialization with HS256 only (RFC 7515 §7.1, RFC 7518 §3.2): `header.payload.signature`, each
/// part base64url without padding, the signature HMAC-SHA256 over the ASCII of `header.payload`.
///
/// Only HS256 is accepted: `alg` must be exactly "HS256" (never "none", never an algorithm the caller did not
/// choose), and a `crit` header is refused because we implement no extension (RFC 7515 §4.1.11).
public enum CompactJWS {
    /// A token longer than this is refused before any work: a real one is a few hundred bytes.
    public static let maximumLength = 8192

    /// Signs a payload.
    /// - Parameters:
    ///   - payload: the bytes to protect (for a JWT, the claims' JSON).
    ///   - key: the HMAC key.
    /// - Returns: the compact serialization.
    public static func sign(payload: [UInt8], key: [UInt8]) -> String {
        let header = JSONWriter.bytes(.object([("alg", .string("HS256")), ("typ", .string("JWT"))]))
        let signingInput = Base64.encode(header, alphabet: .url) + "." + Base64.encode(payload, alphabet: .url)
        let signature = HMACSHA256.authenticationCode(key: key, message: Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url)
    }

    /// Checks a token's header and signature.
    /// - Parameters:
    ///   - token: the compact serialization.
    ///   - key: the HMAC key.
    /// - Returns: the payload bytes, once the signature matched.
    /// - Throws: ``TokenError`` (`malformed`, `unsupportedAlgorithm`, `badSignature`).
    public static func verify(_ token: String, key: [UInt8]) throws(TokenError) -> [UInt8] {
        let bytes = Array(token.utf8)
        guard bytes.count <= maximumLength else {
            throw TokenError(.malformed, "the token is longer than \(maximumLength) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TokenError(.malformed, "a token has three parts separated by '.', this one has \(parts.count)")
        }
        // RFC 7515 §2: base64url without padding, so a token has one spelling.
        guard !bytes.contains(UInt8(ascii: "=")),
              let headerBytes = Base64.decode(String(decoding: parts[0], as: UTF8.self), alphabet: .url),
              let payload = Base64.decode(String(decoding: parts[1], as: UTF8.self), alphabet: .url),
              let signature = Base64.decode(String(decoding: parts[2], as: UTF8.self), alphabet: .url) else {
            throw TokenError(.malformed, "a part of the token is not base64url")
        }
        let header: JSONValue
        do {
            header = try JSONParser.parse(headerBytes, maximumDepth: 4)
        } catch {
            throw TokenError(.malformed, "the token's header is not JSON (\(error.reason))")
        }
        guard header.objectValue != nil else { throw TokenError(.malformed, "the token's header is not an object") }
        guard header["alg"]?.stringValue == "HS256" else {
            throw TokenError(.unsupportedAlgorithm, "the token is not signed with HS256")
        }
        guard header["crit"] == nil else {
            throw TokenError(.unsupportedAlgorithm, "the token names critical extensions this server does not know")
        }
        let signingInput = Array(bytes[..<parts[1].endIndex])
        guard ConstantTime.equal(HMACSHA256.authenticationCode(key: key, message: signingInput), signature) else {
            throw TokenError(.badSignature, "the token's signature does not match (another secret, or altered)")
        }
        return payload
    }
}
