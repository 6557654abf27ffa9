/// One client connection of the live-show protocol, as the transport gives it (a WebSocket session in
/// `stream serve`). Both calls are made from the show server's thread and must not block.
public protocol ShowConnection: AnyObject, Sendable {
    /// Queues one text message (UTF-8 JSON).
    func send(_ text: [UInt8])
    /// Closes the connection after what was queued, with a close code and a short reason.
    func close(code: UInt16, reason: String)
}

/// Close codes of the live-show protocol (`docs/live-protocol.md`): after `ended` or a refused join, the code
/// repeats why, for clients that do not read the last message.
public enum ShowCloseCode {
    /// Left, or the server closed normally.
    public static let normal: UInt16 = 1000
    /// Too many malformed messages.
    public static let policyViolation: UInt16 = 1008
    /// Refused: `invalid` (a stream name that cannot be one).
    public static let invalid: UInt16 = 4400
    /// Refused: `unauthorized`.
    public static let unauthorized: UInt16 = 4401
    /// Refused or ended: `banned`.
    public static let banned: UInt16 = 4403
    /// Refused: `not_found`.
    public static let notFound: UInt16 = 4404
    /// Ended: kicked.
    public static let kicked: UInt16 = 4409
    /// Refused: the store could not load the show.
    public static let unavailable: UInt16 = 4503
}
