#if canImport(COpenSSL)
import COpenSSL

/// The session keys of one of a direction's two streams, SRTP or SRTCP, derived from the master key (RFC 3711
/// §4.3.1), and the two transforms that use them: AES-128 in counter mode (§4.1.1) and HMAC-SHA1 cut to 80 bits
/// (§4.2, profile SRTP_AES128_CM_SHA1_80).
///
/// The keys live in OpenSSL's contexts, keyed once: each packet sets only the IV, and starts the HMAC again with
/// the same key. Freeing a context cleanses its keys; ``deinit`` zeroes the salt.
final class SRTPKeys {
    /// The bytes of the authentication tag on every packet.
    static let tagLength = 10
    /// The labels of SRTP's keys (encryption, authentication, salt are `first`, `first + 1`, `first + 2`).
    static let rtpLabels: UInt8 = 0
    /// The labels of SRTCP's keys.
    static let rtcpLabels: UInt8 = 3

    /// AES-128-CTR under the session encryption key.
    private let cipher: OpaquePointer
    /// HMAC-SHA1 under the 20-byte session authentication key.
    private let mac: OpaquePointer
    /// The 14-byte session salt.
    private var salt: [UInt8]

    /// Derives the three session keys with labels `firstLabel`, `firstLabel + 1`, `firstLabel + 2`.
    /// - Parameters:
    ///   - masterKey: 16 bytes.
    ///   - masterSalt: 14 bytes.
    init(masterKey: [UInt8], masterSalt: [UInt8], firstLabel: UInt8) throws(SRTPError) {
        var encryption = try Self.derive(masterKey, masterSalt, label: firstLabel, length: 16)
        var authentication = try Self.derive(masterKey, masterSalt, label: firstLabel + 1, length: 20)
        var salt = try Self.derive(masterKey, masterSalt, label: firstLabel + 2, length: 14)
        defer {
            Self.cleanse(&encryption)
            Self.cleanse(&authentication)
        }
        guard let cipher = Self.counterMode(key: encryption) else {
            Self.cleanse(&salt)
            throw SRTPError(.setup, "OpenSSL cannot set up AES-128 in counter mode")
        }
        guard let mac = stream_HMAC_SHA1_new(authentication, authentication.count) else {
            EVP_CIPHER_CTX_free(cipher)
            Self.cleanse(&salt)
            throw SRTPError(.setup, "OpenSSL cannot set up HMAC-SHA1")
        }
        self.cipher = cipher
        self.mac = mac
        self.salt = salt
    }

    deinit {
        EVP_CIPHER_CTX_free(cipher)
        EVP_MAC_CTX_free(mac)
        Self.cleanse(&salt)
    }

    /// XORs the keystream of one packet into `bytes`, in place: the IV is (salt · 2^16) XOR (SSRC · 2^64) XOR
    /// (index · 2^16), the index being the 48-bit SRTP packet index or the 31-bit SRTCP index.
    func crypt(_ bytes: UnsafeMutableBufferPointer<UInt8>, ssrc: UInt32, index: UInt64) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { iv in
            for offset in 0..<14 { iv[offset] = salt[offset] }
            iv[14] = 0
            iv[15] = 0
            for offset in 0..<4 { iv[4 + offset] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * offset)) }
            for offset in 0..<6 { iv[8 + offset] ^= UInt8(truncatingIfNeeded: index >> (40 - 8 * offset)) }
            guard EVP_EncryptInit_ex(cipher, nil, nil, nil, iv.baseAddress) == 1 else { return false }
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
            var written: Int32 = 0
            return EVP_EncryptUpdate(cipher, base, &written, base, Int32(bytes.count)) == 1
                && Int(written) == bytes.count
        }
    }

    /// Writes the tag of `authenticated`, followed by the big-endian `rollover` counter for SRTP (none for SRTCP),
    /// to the ``tagLength`` bytes at `tag`.
    func tag(of authenticated: UnsafeBufferPointer<UInt8>, rollover: UInt32?, into tag: UnsafeMutablePointer<UInt8>)
        -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digest in
            guard EVP_MAC_init(mac, nil, 0, nil) == 1,
                  EVP_MAC_update(mac, authenticated.baseAddress, authenticated.count) == 1 else { return false }
            if let rollover {
                let bytes = withUnsafeBytes(of: rollover.bigEndian) { raw in
                    EVP_MAC_update(mac, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), 4)
                }
                guard bytes == 1 else { return false }
            }
            var length = 0
            guard EVP_MAC_final(mac, digest.baseAddress, &length, 20) == 1, length == 20 else { return false }
            tag.update(from: digest.baseAddress!, count: Self.tagLength)
            return true
        }
    }

    /// Whether the ``tagLength`` bytes at `received` are the tag of `authenticated` (and `rollover`), compared in
    /// constant time.
    func verify(_ authenticated: UnsafeBufferPointer<UInt8>, rollover: UInt32?, tag received: UnsafePointer<UInt8>)
        -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.tagLength) { expected in
            tag(of: authenticated, rollover: rollover, into: expected.baseAddress!)
                && CRYPTO_memcmp(expected.baseAddress, received, Self.tagLength) == 0
        }
    }

    /// The AES-CM PRF with key_derivation_rate 0 (RFC 3711 §4.3.1, §4.3.3): the first `length` bytes of the
    /// keystream under the master key, from the IV (master salt XOR (label · 2^48)) · 2^16.
    static func derive(_ masterKey: [UInt8], _ masterSalt: [UInt8], label: UInt8, length: Int)
        throws(SRTPError) -> [UInt8] {
        var iv = masterSalt + [0, 0]
        defer { cleanse(&iv) }
        iv[7] ^= label
        return try keystream(key: masterKey, iv: iv, length: length)
    }

    /// `length` bytes of AES-128 counter mode keystream under `key` from the 16-byte `iv` (RFC 3711 §4.1.1).
    static func keystream(key: [UInt8], iv: [UInt8], length: Int) throws(SRTPError) -> [UInt8] {
        guard let context = counterMode(key: key) else {
            throw SRTPError(.setup, "OpenSSL cannot set up AES-128 in counter mode")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        var stream = [UInt8](repeating: 0, count: length)
        var written: Int32 = 0
        let done = stream.withUnsafeMutableBufferPointer { bytes in
            EVP_EncryptInit_ex(context, nil, nil, nil, iv) == 1
                && EVP_EncryptUpdate(context, bytes.baseAddress, &written, bytes.baseAddress, Int32(length)) == 1
        }
        guard done, Int(written) == length else { throw SRTPError(.setup, "AES-128 counter mode failed in OpenSSL") }
        return stream
    }

    /// A context for AES-128 in counter mode under `key` (16 bytes), its IV to be set per packet.
    private static func counterMode(key: [UInt8]) -> OpaquePointer? {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return context
    }

    /// Zeroes key material where the compiler cannot optimise it away.
    static func cleanse(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}
#endif
