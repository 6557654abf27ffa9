import LiveProtocol

/// Why a status request is refused: the HTTP status and the protocol's error (its code and words).
public struct StatusRefusal: Error, Sendable, Hashable {
    /// 400, 401, 403, 404 or 503.
    public var status: Int
    /// The code and reason, as the live-show protocol says them.
    public var error: ShowError

    /// Creates a refusal.
    public init(status: Int, error: ShowError) {
        self.status = status
        self.error = error
    }
}
