/// A transport that reports by callbacks, as Network.framework's `NWConnection` does: what a platform supplies for
/// a ``CallbackByteStream``, each method one call of the platform's API.
///
/// Callbacks may come on any thread (the transport's queue); a callback may also run inside the call that asked for
/// it. The stream decides everything else: who waits, timeouts, the first failure.
public protocol CallbackTransport: Sendable {
    /// Starts connecting; `report` hears the connection's changes until it ends.
    /// - Parameter report: called with each change that matters (ready, failed, cancelled).
    func start(reporting report: @escaping @Sendable (CallbackTransportEvent) -> Void)
    /// Sends bytes after those sent before.
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - completion: once the transport has processed them, with its failure if it could not.
    func send(_ bytes: [UInt8], completion: @escaping @Sendable (NetworkFailure?) -> Void)
    /// Asks for the next bytes from the peer, at least one.
    /// - Parameters:
    ///   - maximumLength: the most bytes to return.
    ///   - completion: the bytes (possibly none), whether the peer finished the stream, and the failure if any.
    func receive(maximumLength: Int, completion: @escaping @Sendable ([UInt8], Bool, NetworkFailure?) -> Void)
    /// Sends the end of the stream after the bytes sent before.
    /// - Parameter completion: once it is processed (or could not be).
    func sendEnd(completion: @escaping @Sendable () -> Void)
    /// Ends the connection at once.
    func cancel()
    /// Runs `body` once, `seconds` from now, on the transport's queue.
    /// - Parameters:
    ///   - seconds: the delay, with its fraction.
    ///   - body: what to run.
    func schedule(afterSeconds seconds: Double, _ body: @escaping @Sendable () -> Void)
}

/// A change of a ``CallbackTransport``'s connection.
public enum CallbackTransportEvent: Sendable, Hashable {
    /// The connection is open.
    case ready
    /// The connection failed, or is waiting for a network (a broadcast does not wait: the attempt fails).
    case failed(NetworkFailure)
    /// The connection was cancelled.
    case cancelled
}
