#if canImport(COpenSSL)
import COpenSSL

/// Drains OpenSSL's error queue into one line (the queue is per thread; callers clear it before each call).
func openSSLReason() -> String {
    var reasons: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
}

/// The digest of a DER certificate with a hash named as SDP names it (RFC 8122 §5), or nil for an unknown name.
func certificateDigest(_ certificate: OpaquePointer, algorithm: String) -> [UInt8]? {
    let function: OpaquePointer?
    switch algorithm.lowercased() {
    case "sha-1": function = EVP_sha1()
    case "sha-224": function = EVP_sha224()
    case "sha-256": function = EVP_sha256()
    case "sha-384": function = EVP_sha384()
    case "sha-512": function = EVP_sha512()
    default: return nil
    }
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    guard X509_digest(certificate, function, &digest, &length) == 1 else { return nil }
    return Array(digest.prefix(Int(length)))
}
#endif
