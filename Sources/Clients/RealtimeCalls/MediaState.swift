/// Where the app is in the room of the stream (the seed's `media`): the connection to the server, not the picture.
public enum MediaState: String, Sendable, Hashable, CaseIterable {
    /// Not in the stream: before the first connection, or after the session ended.
    case off
    /// Connecting for the first time.
    case connecting
    /// Connected and joined: events arrive as they happen.
    case live
    /// The connection was lost; the client reconnects with backoff and resynchronises the chat.
    case reconnecting
}
