/// The SRTP master keys and salts a DTLS-SRTP handshake exported (RFC 5764 §4.2), split by direction.
public struct SRTPKeyingMaterial: Sendable, Hashable {
    /// The protection profile's name as OpenSSL names it (`SRTP_AES128_CM_SHA1_80`).
    public var profile: String
    /// Key and salt for what we send.
    public var localKey: [UInt8]
    /// Key and salt for what the peer sends.
    public var remoteKey: [UInt8]

    /// Creates keying material.
    /// - Parameters:
    ///   - profile: the negotiated profile.
    ///   - localKey: our master key followed by our master salt.
    ///   - remoteKey: the peer's master key followed by its master salt.
    public init(profile: String, localKey: [UInt8], remoteKey: [UInt8]) {
        self.profile = profile
        self.localKey = localKey
        self.remoteKey = remoteKey
    }
}
