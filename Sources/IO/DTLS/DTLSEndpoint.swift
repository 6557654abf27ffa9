#if canImport(COpenSSL)
import COpenSSL
import Glibc

/// One side of a DTLS 1.2 association for DTLS-SRTP (RFC 5764), driven through OpenSSL memory BIOs: datagrams in,
/// datagrams out, no socket inside.
///
/// The peer's certificate is accepted only when its digest matches a fingerprint from the signalled SDP
/// (RFC 8122 §5, RFC 8842 §5); once the handshake is done the SRTP keys are exported (RFC 5764 §4.2).
/// Owns an `SSL`: use from one thread (the event loop's).
public final class DTLSEndpoint {
    /// Which side starts the handshake.
    public enum Role: Sendable, Hashable {
        /// Sends the ClientHello (`a=setup:active` on our side).
        case client
        /// Waits for it (`a=setup:passive` on our side).
        case server
    }

    /// What a call produced.
    public struct Output: Sendable {
        /// Datagrams to send, each under the MTU.
        public var datagrams: [[UInt8]] = []
        /// Set once, when the handshake completes and the fingerprint matched.
        public var keys: SRTPKeyingMaterial?
        /// The peer closed the association (close_notify).
        public var closed = false
    }

    /// The one SRTP protection profile offered (the one `SRTPSession` implements), which every WebRTC stack supports.
    public static let srtpProfile = "SRTP_AES128_CM_SHA1_80"
    /// RFC 3711 §8.2 with AES-128: a 16-byte master key and a 14-byte master salt.
    static let keyLength = 16
    static let saltLength = 14

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let outgoing: OpaquePointer
    private let certificate: DTLSCertificate
    private let remoteFingerprints: [(algorithm: String, digest: [UInt8])]
    private let role: Role
    private let mtu: Int
    private var finished = false

    /// Creates an endpoint.
    /// - Parameters:
    ///   - certificate: our certificate (its fingerprint went into our SDP).
    ///   - role: client or server, from the SDP `setup` attributes.
    ///   - remoteFingerprints: the peer's fingerprints from its SDP; the certificate must match one.
    ///   - mtu: the largest datagram sent (default 1200).
    /// - Throws: ``DTLSError`` when OpenSSL refuses the setup.
    public init(certificate: DTLSCertificate, role: Role, remoteFingerprints: [(algorithm: String, digest: [UInt8])],
                mtu: Int = 1200) throws(DTLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(DTLS_method()) else {
            throw DTLSError(.setup, "cannot create a DTLS context: \(openSSLReason())")
        }
        self.context = context
        guard stream_SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) == 1,
              SSL_CTX_use_certificate(context, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(context, certificate.key) == 1,
              // Returns 0 on success (sic).
              SSL_CTX_set_tlsext_use_srtp(context, Self.srtpProfile) == 0 else {
            SSL_CTX_free(context)
            throw DTLSError(.setup, "cannot set up DTLS-SRTP: \(openSSLReason())")
        }
        // Any certificate passes OpenSSL's chain check; the fingerprint check after the handshake decides.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        guard let ssl = SSL_new(context), let incoming = BIO_new(BIO_s_mem()),
              let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw DTLSError(.setup, "cannot create a DTLS session: \(openSSLReason())")
        }
        // An empty memory BIO means "no datagram yet", not end of file.
        stream_BIO_set_mem_eof_return(incoming, -1)
        stream_BIO_set_mem_eof_return(outgoing, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        SSL_set_options(ssl, stream_SSL_OP_NO_QUERY_MTU())
        stream_SSL_set_mtu(ssl, mtu - 28)  // IPv4 and UDP headers
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        self.ssl = ssl
        self.outgoing = outgoing
        self.certificate = certificate
        self.remoteFingerprints = remoteFingerprints
        self.role = role
        self.mtu = mtu
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Whether the handshake completed and the peer's certificate matched.
    public var isConnected: Bool { finished }

    /// Starts the handshake: a client sends its ClientHello, a server sends nothing.
    /// - Throws: ``DTLSError`` on an OpenSSL failure.
    public func start() throws(DTLSError) -> Output {
        try advance()
    }

    /// Takes a DTLS datagram from the peer (RFC 7983: first byte 20...63).
    /// - Throws: ``DTLSError`` when the handshake fails or the certificate does not match the SDP fingerprint.
    public func receive(_ datagram: [UInt8]) throws(DTLSError) -> Output {
        let incoming = SSL_get_rbio(ssl)
        _ = datagram.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
        return try advance()
    }

    /// How long until OpenSSL wants ``handleTimeout()`` (a lost flight is resent), or nil when no timer runs.
    public var timeout: Duration? {
        var value = timeval()
        guard stream_DTLSv1_get_timeout(ssl, &value) == 1 else { return nil }
        return .seconds(value.tv_sec) + .microseconds(value.tv_usec)
    }

    /// Resends the last flight if its timer expired.
    /// - Throws: ``DTLSError`` when OpenSSL gives up (too many retransmissions).
    public func handleTimeout() throws(DTLSError) -> Output {
        ERR_clear_error()
        guard stream_DTLSv1_handle_timeout(ssl) >= 0 else {
            throw DTLSError(.timeout, "the DTLS handshake timed out: the peer never answered (\(openSSLReason()))")
        }
        var output = Output()
        output.datagrams = drain()
        return output
    }

    /// Sends close_notify.
    /// - Returns: the datagrams to send.
    public func close() -> [[UInt8]] {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        return drain()
    }

    private func advance() throws(DTLSError) -> Output {
        var output = Output()
        ERR_clear_error()
        if !finished {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                try verifyFingerprint()
                finished = true
                output.keys = try exportKeys()
            } else {
                let error = SSL_get_error(ssl, result)
                guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE else {
                    output.datagrams = drain()  // an alert for the peer
                    throw DTLSError(.handshakeFailed, "the DTLS handshake failed: \(openSSLReason())")
                }
            }
        } else {
            // After the handshake only alerts (close_notify) arrive here: media goes over SRTP.
            var scratch = [UInt8](repeating: 0, count: 2048)
            let read = SSL_read(ssl, &scratch, Int32(scratch.count))
            if read <= 0 && SSL_get_error(ssl, read) == SSL_ERROR_ZERO_RETURN { output.closed = true }
            ERR_clear_error()
        }
        output.datagrams += drain()
        return output
    }

    private func verifyFingerprint() throws(DTLSError) {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            throw DTLSError(.certificate, "the DTLS peer sent no certificate")
        }
        defer { X509_free(peer) }
        for expected in remoteFingerprints {
            if let digest = certificateDigest(peer, algorithm: expected.algorithm), digest == expected.digest {
                return
            }
        }
        throw DTLSError(.certificate,
                        "the DTLS peer's certificate does not match the fingerprint in its SDP answer: someone "
            + "else answered, or the answer was altered")
    }

    private func exportKeys() throws(DTLSError) -> SRTPKeyingMaterial {
        guard let profile = SSL_get_selected_srtp_profile(ssl), let name = profile.pointee.name else {
            throw DTLSError(.noSRTPProfile,
                            "the DTLS peer did not agree to an SRTP profile (use_srtp, RFC 5764 §4.1.1)")
        }
        let length = 2 * (Self.keyLength + Self.saltLength)
        var material = [UInt8](repeating: 0, count: length)
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, length, label, label.utf8.count, nil, 0, 0) == 1 else {
            throw DTLSError(.setup, "cannot export the SRTP keys: \(openSSLReason())")
        }
        // RFC 5764 §4.2: client key, server key, client salt, server salt.
        let clientKey = material[0..<Self.keyLength]
        let serverKey = material[Self.keyLength..<(2 * Self.keyLength)]
        let clientSalt = material[(2 * Self.keyLength)..<(2 * Self.keyLength + Self.saltLength)]
        let serverSalt = material[(2 * Self.keyLength + Self.saltLength)...]
        let client = Array(clientKey + clientSalt)
        let server = Array(serverKey + serverSalt)
        return SRTPKeyingMaterial(profile: String(cString: name), localKey: role == .client ? client : server,
                                  remoteKey: role == .client ? server : client)
    }

    /// Takes what OpenSSL wrote and cuts it into datagrams at record boundaries (DTLS 1.2 record header: type,
    /// version, epoch, sequence number, then a 16-bit length, RFC 6347 §4.1), packing records up to the MTU.
    private func drain() -> [[UInt8]] {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = Int(BIO_read(outgoing, &bytes, Int32(pending)))
        guard read > 0 else { return [] }
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset + 13 <= read {
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = min(read, offset + 13 + length)
            if !current.isEmpty && current.count + (end - offset) > mtu {
                datagrams.append(current)
                current = []
            }
            current += bytes[offset..<end]
            offset = end
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
#endif
