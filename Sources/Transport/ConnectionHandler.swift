/// Receives a ``Connection``'s events. Every callback runs on the connection's event loop thread.
///
/// The connection holds its handler strongly until it closes, then releases it, so a handler may hold its
/// connection strongly too: the cycle ends at close.
public protocol ConnectionHandler: AnyObject {
    /// The connection is ready: TCP connected and, with TLS, the handshake and certificate check succeeded.
    func connectionDidOpen(_ connection: Connection)
    /// Bytes arrived from the peer (already decrypted with TLS).
    func connectionDidRead(_ connection: Connection, bytes: [UInt8])
    /// Queued outgoing bytes fell to ``Connection/lowWatermark`` or below, after having been above it.
    func connectionDidDrain(_ connection: Connection)
    /// The connection closed, exactly once. `error` is nil for an orderly close by either side.
    func connectionDidClose(_ connection: Connection, error: TransportError?)
}

extension ConnectionHandler {
    /// Does nothing.
    public func connectionDidOpen(_ connection: Connection) {}
    /// Does nothing.
    public func connectionDidDrain(_ connection: Connection) {}
}
