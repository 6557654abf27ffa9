/// How a client verifies a TLS server. Verification is always on: the server's certificate must chain to a
/// trusted CA and be valid for ``serverName`` (a DNS name or an IP address in its subjectAltName).
public struct TLSClientConfiguration: Sendable, Equatable {
    /// The name the certificate must be valid for, also sent as SNI (SNI is skipped for IP addresses).
    public var serverName: String
    /// A PEM file of extra CA certificates to trust, besides the system store (e.g. a private ingest's CA).
    public var caFile: String?

    /// Creates a client configuration.
    /// - Parameters:
    ///   - serverName: the host name or IP address the server's certificate must match.
    ///   - caFile: an extra PEM CA bundle to trust in addition to the system CA store.
    public init(serverName: String, caFile: String? = nil) {
        self.serverName = serverName
        self.caFile = caFile
    }
}

/// The certificate and key a TLS listener presents (e.g. for RTMPS).
public struct TLSServerConfiguration: Sendable, Equatable {
    /// PEM file with the server certificate, followed by any intermediate certificates.
    public var certificateFile: String
    /// PEM file with the private key of the certificate.
    public var privateKeyFile: String

    /// Creates a server configuration from PEM files.
    public init(certificateFile: String, privateKeyFile: String) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
    }
}
