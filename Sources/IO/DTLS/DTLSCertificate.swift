#if canImport(COpenSSL)
import COpenSSL

/// A self-signed ECDSA P-256 certificate and its key, made for one session (WebRTC authenticates the certificate
/// by the fingerprint in the signalled SDP, RFC 8827 §6.5, not by a CA).
///
/// Owns OpenSSL pointers: use it from one thread at a time; share it only between endpoints on that thread.
public final class DTLSCertificate {
    let key: OpaquePointer
    let certificate: OpaquePointer

    /// Generates a key and a certificate valid from yesterday for 30 days.
    /// - Parameter commonName: the subject's CN (WebRTC stacks ignore it).
    /// - Throws: ``DTLSError`` when OpenSSL cannot generate them.
    public init(commonName: String = "stream") throws(DTLSError) {
        ERR_clear_error()
        guard let key = stream_EVP_EC_gen("P-256") else {
            throw DTLSError(.setup, "cannot generate a P-256 key: \(openSSLReason())")
        }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw DTLSError(.setup, "cannot allocate a certificate: \(openSSLReason())")
        }
        self.key = key
        self.certificate = certificate
        X509_set_version(certificate, 2)
        var serial = UInt64.random(in: 1...UInt64(Int64.max))
        ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial)
        serial = 0
        X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400)
        X509_gmtime_adj(X509_getm_notAfter(certificate), 30 * 86_400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else {
            throw DTLSError(.setup, "cannot sign the certificate: \(openSSLReason())")
        }
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// The SHA-256 fingerprint of the DER certificate, for `a=fingerprint:sha-256`.
    public var sha256Fingerprint: [UInt8] {
        certificateDigest(certificate, algorithm: "sha-256") ?? []
    }
}
#endif
