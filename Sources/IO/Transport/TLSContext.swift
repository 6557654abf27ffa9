import COpenSSL

/// Owns an OpenSSL `SSL_CTX`: the settings shared by TLS sessions (TLS 1.2 minimum, trust store or certificate).
final class TLSContext {
    let pointer: OpaquePointer

    private init(method: OpaquePointer?) throws(TransportError) {
        ERR_clear_error()
        guard let pointer = SSL_CTX_new(method) else {
            throw TransportError(.tlsFailure, "cannot create a TLS context: \(openSSLErrorReason())")
        }
        self.pointer = pointer
        _ = stream_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION)
        // Partial writes: SSL_write returns after each record, so the queue shrinks as bytes leave.
        // Moving buffer: a retried SSL_write may pass the same bytes from a different address.
        _ = stream_SSL_CTX_set_mode(pointer, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A client context that verifies the peer against the system CA store plus `configuration.caFile`.
    static func client(_ configuration: TLSClientConfiguration) throws(TransportError) -> TLSContext {
        let context = try TLSContext(method: TLS_client_method())
        SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        ERR_clear_error()
        guard SSL_CTX_set_default_verify_paths(context.pointer) == 1 else {
            throw TransportError(.tlsFailure, "cannot load the system CA store: \(openSSLErrorReason()); "
                                     + "install ca-certificates or pass caFile")
        }
        if let caFile = configuration.caFile {
            ERR_clear_error()
            guard SSL_CTX_load_verify_locations(context.pointer, caFile, nil) == 1 else {
                throw TransportError(.tlsFailure, "cannot load CA file \(caFile): \(openSSLErrorReason()); "
                                         + "check the path and that it holds PEM certificates")
            }
        }
        return context
    }

    /// A server context presenting the certificate chain and key of `configuration`.
    static func server(_ configuration: TLSServerConfiguration) throws(TransportError) -> TLSContext {
        let context = try TLSContext(method: TLS_server_method())
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context.pointer, configuration.certificateFile) == 1 else {
            throw TransportError(.tlsFailure, "cannot load certificate file \(configuration.certificateFile): "
                                     + "\(openSSLErrorReason()); check the path and that it is PEM")
        }
        ERR_clear_error()
        guard SSL_CTX_use_PrivateKey_file(context.pointer, configuration.privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TransportError(.tlsFailure, "cannot load private key file \(configuration.privateKeyFile): "
                                     + "\(openSSLErrorReason()); check the path and that it is an unencrypted PEM key")
        }
        ERR_clear_error()
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw TransportError(.tlsFailure, "private key \(configuration.privateKeyFile) does not match "
                                     + "certificate \(configuration.certificateFile): \(openSSLErrorReason())")
        }
        return context
    }
}

/// The reason text of the oldest error on this thread's OpenSSL error queue, which is then cleared.
func openSSLErrorReason() -> String {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return "unknown OpenSSL error" }
    if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
