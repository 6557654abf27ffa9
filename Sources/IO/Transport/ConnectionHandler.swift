/// Receives a ``Connection``'s events. Every callback runs on the connection's event loop thread.
///
/// The connection holds its handler strongly until it closes, then releases it, so a handler may hold its
/// connection strongly too: the cycle ends at close.
public protocol ConnectionHandler: AnyObject {
    /// The connection is ready: TCP connected and, with TLS, the handshake and certificate check succeeded.
    func connectionDidOpen(_ connection: Connection)
    /// Bytes arrived from the peer (already decrypted with TLS).
    func connectionDidRead(_ connection: Connection, bytes: [UInt8])
    /// Bytes arrived from the peer, lent for the length of the call: the memory is the loop's read buffer, which the
    /// next read overwrites, so copy out what must outlive the call. A handler that parses bytes into its own
    /// buffer implements this to save the array per read; the default copies them into an array and calls
    /// ``connectionDidRead(_:bytes:)``.
    func connectionDidRead(_ connection: Connection, buffer: UnsafeRawBufferPointer)
    /// Queued outgoing bytes fell to ``Connection/lowWatermark`` or below, after having been above it.
    func connectionDidDrain(_ connection: Connection)
    /// The connection closed, exactly once. `error` is nil for an orderly close by either side.
    func connectionDidClose(_ connection: Connection, error: TransportError?)
}

extension ConnectionHandler {
    /// Copies the bytes into an array and calls ``connectionDidRead(_:bytes:)``.
    public func connectionDidRead(_ connection: Connection, buffer: UnsafeRawBufferPointer) {
        connectionDidRead(connection, bytes: [UInt8](buffer))
    }
    /// Does nothing.
    public func connectionDidOpen(_ connection: Connection) {}
    /// Does nothing.
    public func connectionDidDrain(_ connection: Connection) {}
}
