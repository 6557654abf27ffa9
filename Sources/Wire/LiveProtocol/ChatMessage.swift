/// One chat message as the store committed it.
public struct ChatMessage: Sendable, Hashable {
    /// Its id in the stream: the chat sequence number the store gave it (increasing, not contiguous).
    public var id: Int64
    /// The writer's app user id; nil for a visitor.
    public var user: String?
    /// The writer's display name.
    public var name: String
    /// The writer's role when writing (to badge hosts and mods).
    public var role: Role
    /// The text, at most ``ChatMessage/maximumLength`` Unicode code points.
    public var text: String
    /// When it was accepted, in milliseconds since 1970 UTC.
    public var time: Int64

    /// The longest message, in Unicode code points (the web page counts the same way).
    public static let maximumLength = 500

    /// Creates a message.
    public init(id: Int64, user: String?, name: String, role: Role, text: String, time: Int64) {
        self.id = id
        self.user = user
        self.name = name
        self.role = role
        self.text = text
        self.time = time
    }
}
