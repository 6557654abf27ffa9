import FLV
import Publisher
import StreamCore

/// An RTMP or RTMPS ingest: a fresh ``Publisher/RTMPClient`` per connection attempt, publishing one stream key over
/// the platform's byte streams (Linux's TCP/TLS, Apple's `NWConnection`), so both run the same RTMP driver.
public actor RTMPSink: MediaSink {
    /// The ingest.
    public nonisolated let url: IngestURL
    /// Timeouts and buffer limits of each client.
    public nonisolated let options: RTMPClient.Options
    /// The ingest with the key masked, e.g. `rtmps://host/app/••••`.
    public nonisolated let label: String
    /// Always true: RTMP goes over the network.
    public nonisolated var isNetwork: Bool { true }
    private let streamKey: String
    private let connector: any ByteStreamConnector
    private var client: RTMPClient?

    /// Creates a sink.
    /// - Parameters:
    ///   - url: the ingest URL (without the key).
    ///   - streamKey: the publish name; it never appears in labels or errors.
    ///   - options: client options (timeouts, buffer limit).
    ///   - connector: opens the TCP/TLS streams.
    public init(url: IngestURL, streamKey: String, options: RTMPClient.Options = RTMPClient.Options(),
                connector: any ByteStreamConnector) {
        self.url = url
        self.streamKey = streamKey
        self.options = options
        self.connector = connector
        label = url.redactedDescription(streamKey: streamKey)
    }

    /// The kernel send buffer (SO_SNDBUF) for a stream of `settings`' bitrate: half a second of the stream,
    /// 64 KiB to 4 MiB. Left to Linux's auto-tuning the buffer grows to megabytes (seconds of a 3 Mbit/s stream),
    /// so a slow link would show in the send queue, where it is measured and dropped by policy, only that much
    /// later; half a second still sustains several times the bitrate at a 200 ms round trip (Linux doubles the
    /// value for its bookkeeping).
    public static func socketSendBufferSize(for settings: StreamSettings) -> Int {
        let bytesPerSecond = (settings.videoBitrateKbps + settings.audioBitrateKbps) * 1000 / 8
        return min(4 << 20, max(64 << 10, bytesPerSecond / 2))
    }

    /// Connects and publishes; returns at `NetStream.Publish.Start`.
    /// - Throws: `BroadcastError` (`.connectFailed`, transient for network trouble).
    public func open() async throws(BroadcastError) {
        if let old = client {
            client = nil
            await old.close(flushTimeout: .zero)
        }
        do {
            let client = RTMPClient(options: options, connector: connector)
            self.client = client
            try await client.connect(to: url)
            try await client.publish(streamKey: streamKey)
        } catch {
            throw convert(error, code: .connectFailed)
        }
    }

    /// Sends `@setDataFrame onMetaData`.
    /// - Throws: `BroadcastError` (`.connectionLost`) when the connection failed.
    public func sendMetadata(_ metadata: FLVMetadata) async throws(BroadcastError) {
        do {
            try await connected().sendMetadata(metadata)
        } catch {
            throw convert(error, code: .connectionLost)
        }
    }

    /// Queues one tag on the connection.
    /// - Throws: `BroadcastError`: `.connectionLost` when the connection failed, `.frameTooLarge` for a tag over
    ///   RTMP's 16 MiB message limit (the connection goes on).
    public func send(_ tag: FLVTag) async throws(BroadcastError) {
        do {
            try await connected().send(tag)
        } catch {
            throw convert(error, code: error.code == .messageTooLarge ? .frameTooLarge : .connectionLost)
        }
    }

    /// Bytes the client holds that the network stack has not taken yet.
    public var queuedBytes: Int {
        get async { await client?.queuedBytes ?? 0 }
    }

    /// Bytes of the current connection the ingest has acknowledged (TCP), where the platform says.
    public var bytesAcknowledged: Int? {
        get async { await client?.bytesAcknowledged() }
    }

    /// Waits until the client's buffer is below `threshold`.
    /// - Throws: `BroadcastError` (`.connectionLost`) when the connection failed meanwhile.
    public func waitForDrain(below threshold: Int) async throws(BroadcastError) {
        do {
            try await connected().waitForDrain(below: threshold)
        } catch {
            throw convert(error, code: .connectionLost)
        }
    }

    /// Unpublishes, flushes (bounded by `flushTimeout`) and closes.
    public func close(flushTimeout: Duration) async {
        guard let client else { return }
        self.client = nil
        await client.close(flushTimeout: flushTimeout)
    }

    private func connected() throws(PublishError) -> RTMPClient {
        guard let client else { throw PublishError(.invalidState, "not connected") }
        return client
    }

    private func convert(_ error: PublishError, code: BroadcastError.Code) -> BroadcastError {
        let message = Redaction.redact("\(label): \(error.description)", secrets: [streamKey])
        return BroadcastError(code, message, isTransient: error.isTransient, publishError: error)
    }
}
