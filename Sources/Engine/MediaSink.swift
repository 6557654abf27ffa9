import FLV

/// Where one output's tags go: an RTMP connection or a local FLV recording.
///
/// A sink is opened once per connection attempt; after a failure it is closed and opened again. Calls come from one
/// task at a time (the output's pump).
public protocol MediaSink: Sendable {
    /// A description for messages and status lines; never contains a stream key.
    var label: String { get }
    /// Whether the sink goes over a network: it may congest (and feed adaptive bitrate) and may reconnect.
    var isNetwork: Bool { get }
    /// Connects (and publishes), or creates the file.
    /// - Throws: `BroadcastError`; `isTransient` says whether a later attempt may work.
    func open() async throws(BroadcastError)
    /// Sends the stream's metadata (`onMetaData`).
    /// - Throws: `BroadcastError` when the connection or file fails.
    func sendMetadata(_ metadata: FLVMetadata) async throws(BroadcastError)
    /// Sends one tag; may return before the bytes leave (see `queuedBytes`).
    /// - Throws: `BroadcastError` when the connection or file fails.
    func send(_ tag: FLVTag) async throws(BroadcastError)
    /// Bytes handed to the sink that have not reached the kernel yet.
    var queuedBytes: Int { get async }
    /// Bytes of the current connection the receiver has acknowledged (what crossed the network, below the kernel's
    /// buffers); nil for a file or when unknown. Restarts near zero with each connection.
    var bytesAcknowledged: Int? { get async }
    /// Returns once `queuedBytes` is below `threshold`.
    /// - Throws: `BroadcastError` when the connection fails meanwhile.
    func waitForDrain(below threshold: Int) async throws(BroadcastError)
    /// Ends the stream cleanly (unpublish, flush within the timeout, close); never fails.
    func close(flushTimeout: Duration) async
}

extension MediaSink {
    /// Unknown by default (a file has no network below it).
    public var bytesAcknowledged: Int? {
        get async { nil }
    }
}
