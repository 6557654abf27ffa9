import ByteIO
import Digest
import LiveProtocol

/// The stream keys of live shows: OBS keys, derived from a secret and a stored nonce, and short-lived publish
/// grants, signed so that any node holding the secret can check them without a lookup.
///
/// An OBS key is `live_` and 64 hex digits of HMAC-SHA256(key-derivation key, show name, nonce): the store keeps
/// only the key's SHA-256 and the nonce, so a copy of the database does not give anyone a key, yet `ingest()`
/// can show the host the same key again until it is renewed. A grant is
/// `grant_<show name in hex>_<tile>_<generation>_<expiry ms>_<32 hex digits of MAC>`.
public struct IngestCredentials: Sendable {
    /// The prefix of OBS keys.
    public static let ingestKeyPrefix = "live_"
    /// The prefix of publish grants.
    public static let grantPrefix = "grant_"
    /// Bytes of random nonce behind each OBS key.
    public static let nonceLength = 16

    private let keyDerivationKey: [UInt8]
    private let grantKey: [UInt8]

    /// Creates the credentials from two keys derived from the server's secret.
    /// - Parameters:
    ///   - keyDerivationKey: derives OBS keys.
    ///   - grantKey: signs publish grants.
    public init(keyDerivationKey: [UInt8], grantKey: [UInt8]) {
        self.keyDerivationKey = keyDerivationKey
        self.grantKey = grantKey
    }

    /// The OBS key of a show for a nonce.
    public func ingestKey(show: String, nonce: String) -> String {
        let mac = HMACSHA256.authenticationCode(key: keyDerivationKey,
                                                message: Array("obs\u{0}\(show)\u{0}\(nonce)".utf8))
        return Self.ingestKeyPrefix + Hex.encode(mac)
    }

    /// A new OBS key record for a show.
    /// - Parameters:
    ///   - show: the stream name.
    ///   - entropy: at least ``nonceLength`` random bytes.
    /// - Returns: the record to store and the key to give the host.
    public func makeIngestKey(show: String, entropy: [UInt8]) -> (record: IngestKeyRecord, key: String) {
        precondition(entropy.count >= Self.nonceLength, "the driver must pass \(Self.nonceLength) random bytes")
        let nonce = Hex.encode(entropy.prefix(Self.nonceLength))
        let key = ingestKey(show: show, nonce: nonce)
        return (IngestKeyRecord(hash: Self.hash(key), nonce: nonce), key)
    }

    /// The SHA-256 of a key, in hex: what the store keeps and the ingest looks keys up by.
    public static func hash(_ key: String) -> String {
        Hex.encode(SHA256.hash(Array(key.utf8)))
    }

    /// A publish grant.
    public func grant(show: String, tile: TileKind, generation: Int64, expiresAt: Int64) -> String {
        let body = "\(Hex.encode(Array(show.utf8)))_\(tile.rawValue)_\(generation)_\(expiresAt)"
        return Self.grantPrefix + body + "_" + mac(body)
    }

    /// What a grant says, once its signature checks out.
    public struct GrantClaims: Sendable, Hashable {
        /// The stream name.
        public var show: String
        /// The picture it publishes.
        public var tile: TileKind
        /// The show's generation when it was made.
        public var generation: Int64
        /// Until when it can start a publish (milliseconds since 1970).
        public var expiresAt: Int64
    }

    /// Reads a grant.
    /// - Returns: its claims, or nil when it is not a well-formed grant with a matching signature.
    public func readGrant(_ key: String) -> GrantClaims? {
        guard key.hasPrefix(Self.grantPrefix) else { return nil }
        let parts = key.dropFirst(Self.grantPrefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 5 else { return nil }
        let body = parts[0..<4].joined(separator: "_")
        guard let signature = Hex.decode(parts[4]), let expected = Hex.decode(mac(body)),
              ConstantTime.equal(signature, expected),
              let nameBytes = Hex.decode(parts[0]), let show = String(validating: nameBytes, as: UTF8.self),
              let tile = TileKind(rawValue: String(parts[1])), let generation = Int64(parts[2]),
              let expiresAt = Int64(parts[3]) else { return nil }
        return GrantClaims(show: show, tile: tile, generation: generation, expiresAt: expiresAt)
    }

    private func mac(_ body: String) -> String {
        Hex.encode(HMACSHA256.authenticationCode(key: grantKey, message: Array(body.utf8)).prefix(16))
    }
}
