#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LinkError {
    /// The domain of a Network.framework `NWError`: the part of it a module without Network.framework can name.
    public enum NetworkDomain: String, Sendable, Hashable, CaseIterable {
        /// `NWError.posix`: the code is a `POSIXErrorCode`'s raw value.
        case posix
        /// `NWError.dns`: the code is a `DNSServiceErrorType`.
        case dns
        /// `NWError.tls`: the code is a Security `OSStatus`.
        case tls
        /// A domain added to `NWError` after this was written (its `@unknown default`).
        case unknown
    }

    /// The link error for a Network.framework error, from its domain and code, so that the iOS shell's mapping is
    /// this tested table: an unsatisfied path is no path at all whatever the error, POSIX codes go through
    /// ``kind(posix:)``, DNS and TLS by their domain alone, anything else is a closed link.
    /// - Parameters:
    ///   - domain: the error's domain.
    ///   - code: its code in that domain.
    ///   - detail: the error's own description (`"\(error)"`), kept in the message.
    ///   - endpoint: the host and port, never a stream key.
    ///   - pathUnsatisfied: whether the connection's path was unsatisfied when it failed.
    public init(domain: NetworkDomain, code: Int32, detail: String, endpoint: String, pathUnsatisfied: Bool = false) {
        if pathUnsatisfied {
            self.init(.noPath, "no network path to \(endpoint): \(detail)")
            return
        }
        switch domain {
        case .posix:
            self.init(POSIXErrorCode(rawValue: code).map(Self.kind(posix:)) ?? .closed, "\(endpoint): \(detail)")
        case .dns: self.init(.dns, "cannot resolve \(endpoint): \(detail)")
        case .tls: self.init(.tls, "TLS with \(endpoint) failed: \(detail)")
        case .unknown: self.init(.closed, "\(endpoint): \(detail)")
        }
    }
}
