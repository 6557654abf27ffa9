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
    /// The sink's own estimate of the video bitrate its path carries, in kbit/s (WebRTC's, from what RTCP
    /// reports); nil when it has none and adaptive bitrate reads the send queue instead.
    var bitrateEstimateKbps: Int? { get async }
    /// Called once before the first `open()`: the stream's headers (a WebRTC sink offers the H.264 profile of the
    /// SPS), and a way to ask the encoder for a keyframe (a WebRTC receiver's PLI or FIR).
    func prepare(headers: StreamHeaders, requestKeyframe: @escaping @Sendable () -> Void) async
}

extension MediaSink {
    /// Unknown by default (a file has no network below it).
    public var bytesAcknowledged: Int? {
        get async { nil }
    }

    /// None by default: RTMP and files have no estimate of their own.
    public var bitrateEstimateKbps: Int? {
        get async { nil }
    }

    /// Nothing to prepare by default: RTMP and files send the headers after each open and never ask for keyframes.
    public func prepare(headers: StreamHeaders, requestKeyframe: @escaping @Sendable () -> Void) async {}
}
