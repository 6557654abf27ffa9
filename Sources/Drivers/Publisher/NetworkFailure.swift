/// A transport's error as a module without Network.framework can hold it: an `NWError`'s domain and code, its own
/// words, and whether the connection's path was unsatisfied. ``linkError(endpoint:)`` words it.
public struct NetworkFailure: Sendable, Hashable {
    /// The error's domain.
    public var domain: LinkError.NetworkDomain
    /// Its code in that domain.
    public var code: Int32
    /// The error's own description (`"\(error)"`), kept in the message.
    public var detail: String
    /// Whether the connection's path was unsatisfied when it failed.
    public var pathUnsatisfied: Bool

    /// Creates a failure.
    /// - Parameters:
    ///   - domain: the error's domain.
    ///   - code: its code in that domain.
    ///   - detail: the error's own description.
    ///   - pathUnsatisfied: whether the connection's path was unsatisfied.
    public init(domain: LinkError.NetworkDomain, code: Int32, detail: String, pathUnsatisfied: Bool = false) {
        self.domain = domain
        self.code = code
        self.detail = detail
        self.pathUnsatisfied = pathUnsatisfied
    }

    /// The link error it is, through ``LinkError/init(domain:code:detail:endpoint:pathUnsatisfied:)``'s table.
    /// - Parameter endpoint: the host and port, never a stream key.
    public func linkError(endpoint: String) -> LinkError {
        LinkError(domain: domain, code: code, detail: detail, endpoint: endpoint, pathUnsatisfied: pathUnsatisfied)
    }
}
