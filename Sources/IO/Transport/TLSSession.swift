import COpenSSL
import Glibc

/// Owns an OpenSSL `SSL` bound to a non-blocking socket. Loop-thread only.
final class TLSSession {
    /// What a TLS call needs before it can go on, or how it ended.
    enum Status {
        /// Done: the handshake finished, or this many plaintext bytes were read or written.
        case done(Int)
        /// Retry when the socket is readable.
        case wantRead
        /// Retry when the socket is writable.
        case wantWrite
        /// The peer sent close_notify: an orderly end of the TLS stream.
        case closedByPeer
        /// The connection failed; the error names the peer.
        case failed(TransportError)
    }

    private let ssl: OpaquePointer
    /// Keeps the `SSL_CTX` alive as long as the session.
    private let context: TLSContext
    private let endpoint: String

    /// A client session: sets SNI for host names and the name or IP address the certificate must match.
    convenience init(clientContext context: TLSContext, fd: Int32, serverName: String,
                     endpoint: String) throws(TransportError) {
        try self.init(context: context, fd: fd, endpoint: endpoint, connecting: true)
        if SocketAddress.isNumeric(serverName) {
            // RFC 6066 §3: SNI carries host names only. An IP address is checked against IP SANs.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
                throw .tls(endpoint, reason: "cannot set the expected IP address \(serverName)")
            }
        } else {
            guard stream_SSL_set_tlsext_host_name(ssl, serverName) == 1, SSL_set1_host(ssl, serverName) == 1 else {
                throw .tls(endpoint, reason: "cannot set the server name \(serverName): \(openSSLErrorReason())")
            }
        }
    }

    /// A server session for an accepted socket.
    convenience init(serverContext context: TLSContext, fd: Int32, endpoint: String) throws(TransportError) {
        try self.init(context: context, fd: fd, endpoint: endpoint, connecting: false)
    }

    /// A session on `fd` in the client's (`connecting`) or the server's role.
    private init(context: TLSContext, fd: Int32, endpoint: String, connecting: Bool) throws(TransportError) {
        guard let ssl = SSL_new(context.pointer) else {
            throw .tls(endpoint, reason: "cannot create a TLS session: \(openSSLErrorReason())")
        }
        self.ssl = ssl
        self.context = context
        self.endpoint = endpoint
        SSL_set_fd(ssl, fd)
        if connecting { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        ERR_clear_error()
    }

    deinit {
        SSL_free(ssl)
    }

    /// Advances the handshake.
    func handshake() -> Status {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .done(0) : status(after: result, handshaking: true)
    }

    /// Reads decrypted bytes into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Status {
        ERR_clear_error()
        let result = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return result > 0 ? .done(Int(result)) : status(after: result, handshaking: false)
    }

    /// Encrypts and sends up to one record of `bytes`. A `.wantRead`/`.wantWrite` must be retried with the same bytes.
    func write(_ bytes: UnsafeRawBufferPointer) -> Status {
        ERR_clear_error()
        let result = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        return result > 0 ? .done(Int(result)) : status(after: result, handshaking: false)
    }

    /// Decrypted bytes already buffered inside OpenSSL, which epoll cannot report.
    var hasPendingBytes: Bool {
        SSL_pending(ssl) > 0
    }

    /// Sends close_notify if the socket takes it now; never waits for the peer's reply.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func status(after result: Int32, handshaking: Bool) -> Status {
        let savedErrno = errno
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closedByPeer
        case SSL_ERROR_SYSCALL:
            ERR_clear_error()
            if savedErrno == 0 || result == 0 {
                return .failed(.peerClosed(endpoint, handshaking
                    ? "closed the connection during the TLS handshake: is it a TLS server on that port?"
                    : "closed the TCP connection without a TLS close_notify"))
            }
            return .failed(.posix(savedErrno, "TLS with", endpoint: endpoint))
        default:
            return .failed(failure(handshaking: handshaking))
        }
    }

    private func failure(handshaking: Bool) -> TransportError {
        let code = ERR_peek_error()
        if stream_ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
            ERR_clear_error()
            return .peerClosed(endpoint, handshaking
                ? "closed the connection during the TLS handshake: is it a TLS server on that port?"
                : "closed the TCP connection without a TLS close_notify")
        }
        var reason = openSSLErrorReason()
        let verifyResult = SSL_get_verify_result(ssl)
        if verifyResult != X509_V_OK {
            reason += ": " + String(cString: X509_verify_cert_error_string(verifyResult))
            reason += "; " + Self.hint(forVerifyResult: Int32(verifyResult))
        } else if handshaking {
            reason += "; check that the peer speaks TLS 1.2 or newer on this port"
        }
        return .tls(endpoint, reason: reason)
    }

    private static func hint(forVerifyResult result: Int32) -> String {
        switch result {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return "the server's certificate is not valid for this host name; use the name the certificate was "
                + "issued for"
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return "the certificate is outside its validity period; check the server's certificate and this "
                + "machine's clock"
        default:
            return "the server's certificate is not signed by a CA this machine trusts; install its CA or pass "
                + "its PEM file as caFile"
        }
    }
}
