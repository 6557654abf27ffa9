import StreamCore

/// A connected, ordered byte stream to an ingest (TCP, or TLS over TCP) as ``RTMPClient`` drives it.
///
/// The one thing a platform supplies to publish: Linux's is Transport's `AsyncConnection` (epoll, OpenSSL), Apple's
/// an `NWConnection`. Writes are queued without waiting; ``queuedBytes`` and ``waitForDrain(below:)`` give the
/// caller backpressure. Thread-safe.
public protocol ByteStream: Sendable {
    /// "host:port" as dialled, for messages.
    var endpoint: String { get }
    /// Bytes accepted by ``write(_:)`` that the network stack has not taken yet.
    var queuedBytes: Int { get }
    /// Queues `bytes` for sending and returns at once.
    /// - Throws: ``LinkError`` `.bufferFull` when the queue would pass its bound (nothing is queued), or the error
    ///   that ended the stream.
    func write(_ bytes: [UInt8]) throws(LinkError)
    /// The next bytes from the peer, or nil once the peer ended the stream or ``close(flushTimeout:)`` was called
    /// (a pending read returns then). One reader at a time.
    /// - Throws: the ``LinkError`` that ended the stream.
    func read() async throws(LinkError) -> [UInt8]?
    /// Returns once ``queuedBytes`` is below `threshold`.
    /// - Throws: the ``LinkError`` that ended the stream meanwhile.
    func waitForDrain(below threshold: Int) async throws(LinkError)
    /// Bytes of this stream the peer has acknowledged (TCP), in wire bytes: what really crossed the network, below
    /// the kernel's buffers. Nil where the platform does not say (the caller then counts what left the queue).
    func bytesAcknowledged() async -> Int?
    /// Sends what is queued (waiting at most `flushTimeout`), then closes; a pending read returns nil.
    func close(flushTimeout: Duration) async
}

/// Opens ``ByteStream``s: a fresh one for every connection attempt.
public protocol ByteStreamConnector: Sendable {
    /// Connects to the ingest's host and port, over TLS when its scheme says so (`rtmps`), and returns once the
    /// stream is ready.
    /// - Parameters:
    ///   - url: the ingest.
    ///   - timeout: bounds name resolution, the TCP connect and the TLS handshake together.
    /// - Throws: ``LinkError``: no path, DNS, refused, TLS (certificate, host name), timed out.
    func connect(to url: IngestURL, timeout: Duration) async throws(LinkError) -> any ByteStream
}
