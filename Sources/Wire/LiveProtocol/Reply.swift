/// What a request that succeeded returns.
public enum Reply: Sendable, Hashable {
    /// `join`: the show, the session's standing and the chat.
    case welcome(Welcome)
    /// `send`: the message as committed (the same one the `message` event carries).
    case message(ChatMessage)
    /// `goLive`: one grant per picture.
    case grants([PublishGrant])
    /// `ingest`: the OBS URL and key.
    case ingest(IngestEndpoint)
    /// `timeout`: when it ends (milliseconds since 1970).
    case timedOut(until: Int64)
    /// Every other op: done.
    case done
}
