import LiveProtocol

/// What a show reports, for those who read it as an async sequence (``LiveStream/events``) rather than with the
/// callbacks.
public enum LiveStreamEvent: Sendable, Hashable {
    /// The state, count, chat, pinned message, slow mode, standing, tiles or media changed: read the show again.
    case changed
    /// A new chat message (after ``changed`` put it in ``LiveStream/messages``).
    case message(ChatMessage)
    /// Reactions since the last such event, counted by kind.
    case reactions([Reaction: Int])
    /// A call made without waiting (``LiveStream/react(_:)``) was refused, or reconnecting was refused.
    case error(LiveStreamError)
    /// The session is over: left, kicked or banned. Nothing follows.
    case ended(EndReason)
}
