#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Recording
import Locking
import Transport

/// An RTMP and RTMPS ingest: accepts publishers, relays each stream to any number of players (a new player
/// starts at the last keyframe, after the metadata and sequence headers), and records each publish to FLV.
///
/// All connections run on one event loop thread; each is a ``ServerSession`` machine driven by the transport.
public final class RTMPServer: Sendable {
    /// How the server listens and what it allows.
    public struct Configuration: Sendable {
        /// Plain RTMP address, e.g. 127.0.0.1 and 1935 (0 picks a free port). Nil to serve RTMPS only.
        public var listen: (host: String, port: Int)?
        /// RTMPS address and certificate. Nil for no TLS listener.
        public var tlsListen: (host: String, port: Int, tls: TLSServerConfiguration)?
        /// Where each publish is recorded; nil records nothing.
        public var recordDirectory: String?
        /// The container of recordings: FLV (as nginx-rtmp records) or fragmented MP4.
        public var recordFormat: RecordingFormat = .flv
        /// The stream keys allowed to publish; nil accepts any key (as nginx-rtmp does by default).
        public var allowedKeys: KeyList?
        /// The applications that may be published to; empty allows any.
        public var applications: Set<String>
        /// The most connections open at once, per listener. Peers past it are accepted and closed at once, and
        /// said so (``ServerEvent/connectionsRefused(count:limit:lastPeer:seconds:)``, a few lines per burst).
        public var maxConnections: Int
        /// How long a new connection has to finish the handshake and `connect`.
        public var handshakeTimeout: Duration
        /// A connection on which no byte moves for this long is closed.
        public var idleTimeout: Duration
        /// The largest RTMP message accepted from a publisher. Until a peer is allowed to publish it may send only
        /// commands: 64 KiB messages and chunks (``ChunkDecoderLimits/commands``).
        public var maximumMessageSize: Int
        /// Bytes queued to one player beyond which it skips to the next keyframe.
        public var playerQueueLimit: Int
        /// The server-wide bound on bytes held for peers, applied to each direction: unfinished incoming messages
        /// of all connections together, and bytes queued to all players together. Past it, a peer holding more
        /// than its even share of unfinished messages is closed, and a player holding more than its even share
        /// of queued bytes skips to the next keyframe.
        public var bufferBudget: Int
        /// Receives log events (on the loop thread: keep it quick). Stream keys appear only as tags.
        public var onEvent: @Sendable (ServerEvent) -> Void
        /// Decides publishes before the key list (live shows' grants and OBS keys); nil for none.
        public var publishGate: PublishGate?
        /// Receives every publish's media as it arrives (on the loop thread: keep it quick), e.g. for LL-HLS.
        /// Nil by default.
        public var onMedia: (@Sendable (IngestMediaEvent) -> Void)?
        /// The key of the tags ``onMedia`` names publishes by (``StreamKeyTag/media(_:app:key:)``, 128 bits, for
        /// addresses anyone may ask for); nil: the short log tag (``StreamKeyTag/tag(_:)``).
        public var mediaTagKey: [UInt8]?

        /// Creates a configuration with the defaults of `stream serve`.
        public init(listen: (host: String, port: Int)? = ("127.0.0.1", 1935),
                    tlsListen: (host: String, port: Int, tls: TLSServerConfiguration)? = nil,
                    recordDirectory: String? = nil, allowedKeys: KeyList? = nil, applications: Set<String> = [],
                    maxConnections: Int = 512, handshakeTimeout: Duration = .seconds(10),
                    idleTimeout: Duration = .seconds(30), maximumMessageSize: Int = 8 << 20,
                    playerQueueLimit: Int = 4 << 20, bufferBudget: Int = 64 << 20,
                    onEvent: @escaping @Sendable (ServerEvent) -> Void = { _ in }) {
            self.listen = listen
            self.tlsListen = tlsListen
            self.recordDirectory = recordDirectory
            self.allowedKeys = allowedKeys
            self.applications = applications
            self.maxConnections = maxConnections
            self.handshakeTimeout = handshakeTimeout
            self.idleTimeout = idleTimeout
            self.maximumMessageSize = maximumMessageSize
            self.playerQueueLimit = playerQueueLimit
            self.bufferBudget = bufferBudget
            self.onEvent = onEvent
        }
    }

    /// The ports actually bound.
    public struct BoundPorts: Sendable, Equatable {
        /// The RTMP port, if listening.
        public var rtmp: Int?
        /// The RTMPS port, if listening.
        public var rtmps: Int?
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let loop: EventLoop
    private let counter = ServerStatisticsCounter()
    private let state: Locked<LoopBound<ServerState>?> = Locked(nil)

    /// Creates a server; nothing listens until ``start()``.
    public init(configuration: Configuration) throws(IngestServerError) {
        self.configuration = configuration
        do {
            // A relay's loop batches: woken by a publisher's chunk header, it lets the publisher finish the message
            // before it runs (one wake-up for both; 16 % less CPU per delivered Mbit at 4 publishers x 1 player).
            loop = try EventLoop(name: "stream-serve", scheduling: .batch)
        } catch {
            throw IngestServerError(.startFailed, "cannot start the server's event loop: \(error)")
        }
    }

    /// Binds the listeners and starts accepting.
    /// - Returns: the bound ports.
    /// - Throws: ``IngestServerError`` when an address is in use, the certificate cannot be loaded, or the
    ///   recording directory cannot be written (said now, not at the first publish).
    @discardableResult
    public func start() async throws(IngestServerError) -> BoundPorts {
        let configuration = self.configuration
        if let directory = configuration.recordDirectory {
            try Self.checkWritable(directory)
        }
        let counter = self.counter
        let loop = self.loop
        do {
            let bound = try await loop.submit { () throws -> LoopBound<ServerState> in
                LoopBound(try ServerState(configuration: configuration, statistics: counter, loop: loop), loop: loop)
            }
            state.withLock { $0 = bound }
            return try await loop.submit { bound.value.ports }
        } catch let error as TransportError {
            throw IngestServerError(.startFailed, error.description)
        } catch {
            throw IngestServerError(.startFailed, "cannot start the server: \(error)")
        }
    }

    /// Disconnects the publishers the ``Configuration/publishGate`` admitted with these ids (an OBS key renewed, a
    /// show ended). Returns at once; they are cut on the server's loop within moments.
    public func disconnectPublishers(admittedAs ids: Set<UInt64>) {
        guard let bound = state.withLock({ $0 }) else { return }
        loop.execute { bound.value.hub.disconnectPublishers(admittedAs: ids) }
    }

    /// Counters: connections, publishers, players, bytes.
    public var statistics: ServerStatistics { counter.snapshot }

    /// Closes the listeners and every connection (recordings are closed cleanly), and stops the loop.
    public func stop() {
        let current = state.withLock { value -> LoopBound<ServerState>? in
            defer { value = nil }
            return value
        }
        if let current {
            // The loop runs submitted work in order: this close runs before the stop that shutdown() queues, and
            // shutdown() returns once the loop thread has ended, so every recording is closed when stop() returns.
            loop.execute { current.value.close() }
        }
        loop.shutdown()
    }

    /// Creates and removes a file in `directory`, so that a directory that cannot take recordings (missing,
    /// read-only, not ours) is reported when the server starts.
    static func checkWritable(_ directory: String) throws(IngestServerError) {
        let probe = "\(directory)/.stream-write-check-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let error = RecordingWriteError.system(errno, "record to", directory)
            throw IngestServerError(.recording, "\(error): choose a directory this user can write to, or record nothing")
        }
        close(fd)
        unlink(probe)
    }

    deinit {
        loop.shutdown()
    }
}

/// The loop-thread side: listeners and the stream hub.
final class ServerState {
    let hub: StreamHub
    private var listeners: [Listener] = []
    let ports: RTMPServer.BoundPorts
    private var refusals = RefusalLog()
    private var refusalFlush: Scheduled?

    init(configuration: RTMPServer.Configuration, statistics: ServerStatisticsCounter,
         loop: EventLoop) throws(TransportError) {
        let hub = StreamHub(configuration: configuration, statistics: statistics)
        self.hub = hub
        var ports = RTMPServer.BoundPorts()
        var listeners: [Listener] = []
        if let (host, port) = configuration.listen {
            let listener = try Listener.listen(host: host, port: port, maxConnections: configuration.maxConnections,
                                               handshakeTimeout: configuration.handshakeTimeout, on: loop) {
                hub.accept($0)
            }
            listeners.append(listener)
            ports.rtmp = listener.localPort
        }
        if let (host, port, tls) = configuration.tlsListen {
            do {
                let listener = try Listener.listen(host: host, port: port, tls: tls,
                                                   maxConnections: configuration.maxConnections,
                                                   handshakeTimeout: configuration.handshakeTimeout, on: loop) {
                    hub.accept($0)
                }
                listeners.append(listener)
                ports.rtmps = listener.localPort
            } catch {
                listeners.forEach { $0.close() }
                throw error
            }
        }
        self.listeners = listeners
        self.ports = ports
        for listener in listeners {
            listener.onRefuse = { [unowned self, unowned loop] peer in
                self.refused(peer: peer, limit: configuration.maxConnections, loop: loop)
            }
        }
    }

    /// A listener refused a peer: log it, a few lines per burst with counts.
    private func refused(peer: String, limit: Int, loop: EventLoop) {
        if let report = refusals.refused(peer: peer, at: .now) { emit(report, limit: limit) }
        armRefusalFlush(limit: limit, loop: loop)
    }

    /// Arms a timer for the refusals counted but not yet reported.
    private func armRefusalFlush(limit: Int, loop: EventLoop) {
        guard refusalFlush == nil, let deadline = refusals.flushDeadline else { return }
        refusalFlush = loop.scheduleOnLoop(after: ContinuousClock.now.duration(to: deadline)) { [weak self] in
            guard let self else { return }
            refusalFlush = nil
            if let report = refusals.flush(at: .now) { emit(report, limit: limit) }
            armRefusalFlush(limit: limit, loop: loop)
        }
    }

    private func emit(_ report: RefusalLog.Report, limit: Int) {
        hub.emit(.connectionsRefused(count: report.count, limit: limit, lastPeer: report.lastPeer,
                                     seconds: report.seconds))
    }

    func close() {
        refusalFlush?.cancel()
        listeners.forEach { $0.close() }
        listeners.removeAll()
        hub.closeAll()
    }
}
