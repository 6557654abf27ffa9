/// One message from the server: a reply to a request, or an event.
public enum ServerMessage: Sendable, Hashable {
    /// The reply to the request with this id (nil when the request was too broken to have one).
    case reply(id: Int64?, Result<Reply, ShowError>)
    /// An event.
    case event(Event)
}
