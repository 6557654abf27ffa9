import CEpoll
import CTCPInfo
import Glibc
import Locking

/// A TCP connection, optionally with TLS, driven by an ``EventLoop``.
///
/// A loop-thread object: create it, call its methods and read its properties only on its loop's thread (carry it
/// across threads in a ``LoopBound``). Events go to ``handler`` on that thread. Outgoing bytes are queued
/// (``queuedBytes``) up to ``writeBufferLimit``; reading can be paused for backpressure. It knows no protocol.
public final class Connection: EventSource, CustomStringConvertible {
    /// The loop that owns this connection.
    public let loop: EventLoop
    /// Receives this connection's events. Held strongly until the connection closes, then released.
    public var handler: (any ConnectionHandler)?
    /// "host:port" as dialled, or the peer's address for an accepted connection. Used in every error message.
    public let endpoint: String
    /// The peer's numeric address ("127.0.0.1:50000", "[::1]:1935") once a socket exists.
    public private(set) var remoteAddress: String?
    /// The most bytes ``queuedBytes`` may reach; ``write(_:)`` throws `.bufferLimitExceeded` beyond it.
    public var writeBufferLimit = 16 * 1024 * 1024
    /// ``ConnectionHandler/connectionDidDrain(_:)`` fires when ``queuedBytes`` falls to this value or below.
    public var lowWatermark = 64 * 1024
    /// The kernel send buffer (SO_SNDBUF) asked for on an outgoing socket; nil leaves Linux's auto-tuning, which
    /// grows it to megabytes on a fast link. A bounded buffer keeps the bytes the kernel holds (and so the delay
    /// before a slow network shows in ``queuedBytes``) in proportion to the stream.
    public private(set) var socketSendBufferSize: Int?
    /// Closes the connection with a `.timeout` error when no byte moves in either direction for this long.
    /// Nil (the default) disables it. Time spent with reading paused by us does not count.
    public var idleTimeout: Duration? {
        didSet { armIdleTimer() }
    }

    /// Bytes accepted by ``write(_:)`` and not yet handed to the kernel.
    public var queuedBytes: Int { outbound.count }

    /// Writes accepted by ``write(_:)`` and not yet wholly handed to the kernel. Each holds an allocation of its
    /// own, so many small writes (a WebSocket's pongs) cost far more memory than ``queuedBytes`` says.
    public var queuedWrites: Int { outbound.chunkCount }

    /// Fixes the kernel's send buffer of this connection's socket (SO_SNDBUF, at least 4 KiB; Linux doubles it and
    /// stops auto-tuning it), for example on an accepted connection whose reader may stall: without it the kernel
    /// may hold up to `net.ipv4.tcp_wmem`'s maximum (4 MiB by default) beyond ``queuedBytes``. Call on the loop.
    public func limitSocketSendBuffer(to bytes: Int) {
        let size = max(4096, bytes)
        socketSendBufferSize = size
        if fd >= 0 { setSendBufferSize(fd, size) }
    }
    /// Bytes the peer has acknowledged so far (the kernel's TCP_INFO), in wire bytes (TLS records included): what
    /// actually crossed the network, below the kernel's send buffer. Nil without a socket or where the kernel does
    /// not say.
    public var bytesAcknowledged: Int? {
        guard isOpen, fd >= 0 else { return nil }
        var acknowledged: UInt64 = 0
        guard stream_tcp_bytes_acked(fd, &acknowledged) == 0 else { return nil }
        return Int(clamping: acknowledged)
    }
    /// True from the end of the TLS handshake (or TCP connect) until a close starts.
    public var isOpen: Bool {
        if case .open = state { return true }
        return false
    }
    /// True while ``pauseReading()`` is in effect.
    public private(set) var isReadingPaused = false
    /// Set by the handler (in ``ConnectionHandler/connectionDidRead(_:buffer:)``) while it holds the start of a
    /// message whose rest has not come, such as a header without its body: a plain read that emptied the socket is
    /// then tried once more at once, instead of on the next loop turn. A peer that writes a header and its body
    /// apart under Nagle's algorithm (ffmpeg does) sends the body when our ACK of the header reaches it, and the
    /// read that took the header sent that ACK: from a peer on this host the body is in by the next read, which
    /// spares an `epoll_wait` and a loop turn per message. From farther away the extra read finds nothing (EAGAIN).
    public var awaitsRestOfMessage = false
    /// "Connection(endpoint)".
    public var description: String { "Connection(\(endpoint))" }

    /// Where the connection is, with what only that phase needs.
    private enum State {
        /// Accepted by a ``Listener`` and not started yet: ``start(handshakeTimeout:)`` registers the socket, then
        /// runs the TLS handshake with this session or, without one, opens at once.
        case accepted(TLSSession?)
        /// Resolving the host name (an outgoing connection).
        case resolving(Dialling)
        /// Trying the resolved addresses in turn.
        case connecting(Dialling)
        /// The TLS handshake runs (either side).
        case handshaking(Handshaking)
        /// Bytes flow both ways.
        case open(Streaming)
        /// Sending what is queued before closing; reads are discarded.
        case closing(Streaming)
        /// Done; the descriptor is closed.
        case closed
    }

    /// An outgoing connection before TCP is up.
    private struct Dialling {
        /// What to run once TCP connects: the client TLS context and the name to verify, or nil for plain TCP.
        var clientTLS: (context: TLSContext, serverName: String)?
        /// Resolved addresses not tried yet.
        var pendingAddresses: [SocketAddress] = []
        /// Why the last address failed, reported when none is left.
        var lastError: TransportError?
    }

    /// The TLS handshake.
    private struct Handshaking {
        var tls: TLSSession
        /// OpenSSL wants the socket writable before the handshake can go on.
        var wantsWrite = false
    }

    /// An open (or closing) connection.
    private struct Streaming {
        /// The TLS session, or nil for plain TCP.
        var tls: TLSSession?
        /// A TLS read is waiting for the socket to be writable (a renegotiation or key update).
        var readWantsWrite = false
        /// A TLS write is waiting for the socket to be readable.
        var writeWantsRead = false
    }

    private var state: State
    private var id: UInt64 = 0
    private var fd: Int32 = -1
    private var descriptorAdded = false
    private var registeredEvents: UInt32 = 0
    private var readScheduled = false
    private var outbound = OutboundQueue()
    /// True while this connection waits in its loop's end-of-turn flush list.
    private var flushScheduled = false
    private var phaseTimer: Scheduled?
    private var idleTimer: Scheduled?
    /// ``MonotonicClock`` nanoseconds of the last read or flush, for the idle timeout. Reads and flushes note the
    /// start of their loop turn (``EventLoop/turnStarted``), read once per turn instead of once per system call.
    private var lastActivity = MonotonicClock.nanoseconds

    /// Called with the count of bytes that left the queue: sent, or dropped by a close (after the handler heard of
    /// the close). ``AsyncConnection`` keeps its thread-safe count with it.
    var onDequeued: ((Int) -> Void)?
    /// Called once when the connection closes, before the handler (for ``Listener``'s connection count).
    var onClosed: (() -> Void)?

    private init(loop: EventLoop, endpoint: String, state: State) {
        self.loop = loop
        self.endpoint = endpoint
        self.state = state
        self.id = loop.adopt(self)
    }

    // MARK: - Opening

    /// Starts connecting to `host:port`: resolves it off the loop, tries each address, then runs the TLS
    /// handshake. The handler then gets ``ConnectionHandler/connectionDidOpen(_:)`` or
    /// ``ConnectionHandler/connectionDidClose(_:error:)`` with the reason (refused, DNS, TLS, timeout).
    /// Must be called on `loop`'s thread; bytes written before the open are sent after it.
    /// - Parameters:
    ///   - timeout: bounds resolving, connecting and the TLS handshake together.
    ///   - sendBufferSize: SO_SNDBUF for the socket (see ``socketSendBufferSize``); nil for the kernel's default.
    /// - Returns: the connection, not yet open.
    public static func connect(host: String, port: Int, tls: TLSClientConfiguration?, timeout: Duration,
                               sendBufferSize: Int? = nil, on loop: EventLoop,
                               handler: any ConnectionHandler) -> Connection {
        var dialling = Dialling()
        var failure: TransportError?
        if let tls {
            do {
                dialling.clientTLS = (try TLSContext.client(tls), tls.serverName)
            } catch {
                failure = error
            }
        }
        let connection = Connection(loop: loop, endpoint: endpointName(host: host, port: port),
                                    state: .resolving(dialling))
        connection.handler = handler
        connection.socketSendBufferSize = sendBufferSize.map { max(4096, $0) }
        connection.phaseTimer = connection.scheduleOnLoop(after: timeout) { $0.phaseDidTimeOut(after: timeout) }
        if let failure {
            connection.closeSoon(failure)
            return connection
        }
        let bound = LoopBound(connection, loop: loop)
        Resolver.resolve(host: host, port: port, timeout: timeout, loop: loop) { result in
            let connection = bound.value
            guard case .resolving(var dialling) = connection.state else { return }
            switch result {
            case .success(let addresses):
                dialling.pendingAddresses = addresses
                connection.state = .connecting(dialling)
                connection.connectNextAddress()
            case .failure(let error):
                connection.finishClose(error)
            }
        }
        return connection
    }

    /// Wraps a socket accepted by a ``Listener``; ``start(handshakeTimeout:)`` registers it.
    /// On a thrown error the caller still owns `fd`.
    init(accepted fd: Int32, peer: SocketAddress, loop: EventLoop, tls: TLSContext?) throws(TransportError) {
        let endpoint = peer.description
        let session = try tls.map { context throws(TransportError) in
            try TLSSession(serverContext: context, fd: fd, endpoint: endpoint)
        }
        self.loop = loop
        self.endpoint = endpoint
        self.remoteAddress = endpoint
        self.state = .accepted(session)
        self.fd = fd
        self.id = loop.adopt(self)
    }

    /// Registers an accepted socket and starts its TLS handshake, if any, bounded by `handshakeTimeout`.
    func start(handshakeTimeout: Duration) {
        guard case .accepted(let session) = state else { return }
        do {
            try loop.addDescriptor(fd, id: id, events: EpollEvents.input)
            descriptorAdded = true
            registeredEvents = EpollEvents.input
        } catch {
            finishClose(error)
            return
        }
        guard let session else {
            becomeOpen(Streaming())
            return
        }
        state = .handshaking(Handshaking(tls: session))
        phaseTimer = scheduleOnLoop(after: handshakeTimeout) { $0.phaseDidTimeOut(after: handshakeTimeout) }
        continueHandshake()
    }

    private func connectNextAddress() {
        guard case .connecting(var dialling) = state else { return }
        guard !dialling.pendingAddresses.isEmpty else {
            finishClose(dialling.lastError ?? .dns(host: endpoint, reason: "no address to connect to"))
            return
        }
        let address = dialling.pendingAddresses.removeFirst()
        state = .connecting(dialling)
        remoteAddress = address.description
        let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(address.family, socketType, 0)
        guard fd >= 0 else {
            addressFailed(.posix(errno, "creating a socket for", endpoint: endpoint))
            return
        }
        setNoDelay(fd)
        if let socketSendBufferSize { setSendBufferSize(fd, socketSendBufferSize) }
        let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        guard result == 0 || errno == EINPROGRESS else {
            let error = TransportError.posix(errno, "connecting to", endpoint: endpoint)
            Glibc.close(fd)
            addressFailed(error)
            return
        }
        self.fd = fd
        do {
            try loop.addDescriptor(fd, id: id, events: EpollEvents.output)
            descriptorAdded = true
            registeredEvents = EpollEvents.output
        } catch {
            finishClose(error)
        }
    }

    /// The address just tried failed: remember why and try the next one.
    private func addressFailed(_ error: TransportError) {
        guard case .connecting(var dialling) = state else { return }
        dialling.lastError = error
        state = .connecting(dialling)
        connectNextAddress()
    }

    private func finishConnecting() {
        guard case .connecting(let dialling) = state else { return }
        let error = socketError()
        guard error == 0 else {
            releaseDescriptor()
            addressFailed(.posix(error, "connecting to", endpoint: endpoint))
            return
        }
        guard let clientTLS = dialling.clientTLS else {
            becomeOpen(Streaming())
            return
        }
        do {
            state = .handshaking(Handshaking(tls: try TLSSession(
                clientContext: clientTLS.context, fd: fd, serverName: clientTLS.serverName, endpoint: endpoint)))
        } catch {
            finishClose(error)
            return
        }
        continueHandshake()
    }

    private func continueHandshake() {
        guard case .handshaking(var handshaking) = state else { return }
        switch handshaking.tls.handshake() {
        case .done:
            becomeOpen(Streaming(tls: handshaking.tls))
        case .wantRead:
            handshaking.wantsWrite = false
            state = .handshaking(handshaking)
            updateInterest()
        case .wantWrite:
            handshaking.wantsWrite = true
            state = .handshaking(handshaking)
            updateInterest()
        case .closedByPeer:
            finishClose(.peerClosed(endpoint, "closed the connection during the TLS handshake: is it a TLS server "
                                        + "on that port?"))
        case .failed(let error):
            finishClose(error)
        }
    }

    private func becomeOpen(_ streaming: Streaming) {
        phaseTimer?.cancel()
        phaseTimer = nil
        state = .open(streaming)
        lastActivity = MonotonicClock.nanoseconds
        updateInterest()
        handler?.connectionDidOpen(self)
        guard isOpen else { return }
        if !outbound.isEmpty { flush() }
        // The peer's first bytes may have arrived with the last handshake record and wait inside OpenSSL.
        if streaming.tls != nil { scheduleRead() }
    }

    /// The open or closing connection's state, if it is in one of those.
    private var streaming: Streaming? {
        switch state {
        case .open(let streaming), .closing(let streaming): streaming
        case .accepted, .resolving, .connecting, .handshaking, .closed: nil
        }
    }

    /// Changes the open or closing connection's state in place; does nothing in the other states.
    private func updateStreaming(_ body: (inout Streaming) -> Void) {
        switch state {
        case .open(var streaming):
            body(&streaming)
            state = .open(streaming)
        case .closing(var streaming):
            body(&streaming)
            state = .closing(streaming)
        case .accepted, .resolving, .connecting, .handshaking, .closed:
            break
        }
    }

    private func phaseDidTimeOut(after timeout: Duration) {
        switch state {
        case .resolving:
            finishClose(.timedOut("resolving \(endpoint)", after: timeout))
        case .connecting:
            finishClose(.timedOut("connecting to \(endpoint)", after: timeout))
        case .handshaking:
            finishClose(.timedOut("the TLS handshake with \(endpoint)", after: timeout))
        case .closing:
            finishClose(.timedOut("sending the last \(outbound.count) bytes to \(endpoint) before closing",
                                  after: timeout))
        case .accepted, .open, .closed:
            break
        }
    }

    // MARK: - Writing

    /// Queues `bytes` for sending; they go out in order, as fast as the peer takes them.
    /// Bytes written before the connection opens are sent once it does.
    /// - Throws: ``TransportError`` `.bufferLimitExceeded` (nothing is queued; the connection stays open) or
    ///   `.closed` after a close started.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        loop.assertInEventLoop()
        switch state {
        case .closing, .closed:
            throw .closed(endpoint)
        case .accepted, .resolving, .connecting, .handshaking, .open:
            break
        }
        guard !bytes.isEmpty else { return }
        guard outbound.count + bytes.count <= writeBufferLimit else {
            throw .bufferFull(endpoint, queued: outbound.count, adding: bytes.count, limit: writeBufferLimit)
        }
        let wasEmpty = outbound.isEmpty
        // TLS takes one buffer per write: small chunks are merged for it. Plain sockets write queued chunks together
        // (``OutboundQueue/writeGathered(_:)``), so arrays shared with other connections are never copied.
        outbound.append(bytes, merging: streaming?.tls != nil)
        if isOpen && wasEmpty && !flushScheduled {
            // Sent at the end of this loop turn with whatever else this turn writes here: one system call for all.
            flushScheduled = true
            loop.flushAtEndOfTurn(self)
        }
    }

    /// The loop's end-of-turn flush of what ``write(_:)`` queued during the turn.
    func flushDeferred() {
        guard flushScheduled else { return }
        flushScheduled = false
        guard !isClosed, !outbound.isEmpty else { return }
        flush()
    }

    /// Writes queued bytes until the socket would block.
    /// - Parameter insideWrite: true when called from ``write(_:)``: then the handler hears of nothing during the
    ///   call (a failure closes the connection on a later loop turn; a drain cannot happen, the queue was empty).
    private func flush(insideWrite: Bool = false) {
        guard let streaming, fd >= 0 else { return }
        let tls = streaming.tls
        let before = outbound.count
        var writeWantsRead = false
        var failure: TransportError?
        while !outbound.isEmpty {
            let written: Int
            if let tls {
                // TLS: one record per call, from the head chunk.
                written = outbound.writeHead { bytes -> Int in
                    switch tls.write(bytes) {
                    case .done(let count):
                        return count
                    case .wantWrite:
                        return -1
                    case .wantRead:
                        writeWantsRead = true
                        return -1
                    case .closedByPeer:
                        failure = .peerClosed(endpoint, "closed the TLS session while we were sending")
                        return -1
                    case .failed(let error):
                        failure = error
                        return -1
                    }
                }
            } else {
                // Plain TCP: every queued chunk (up to the gather limit) in one sendmsg.
                written = outbound.writeGathered { vectors -> Int in
                    var message = msghdr()
                    message.msg_iov = UnsafeMutablePointer(mutating: vectors.baseAddress)
                    message.msg_iovlen = vectors.count
                    let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                    if count >= 0 { return count }
                    if errno == EAGAIN || errno == EWOULDBLOCK { return -1 }
                    if errno == EINTR { return 0 }
                    failure = .posix(errno, "sending to", endpoint: endpoint)
                    return -1
                }
            }
            if written < 0 || failure != nil { break }
        }
        updateStreaming { $0.writeWantsRead = writeWantsRead }
        if let failure {
            if insideWrite {
                closeSoon(failure)
            } else {
                finishClose(failure)
            }
            return
        }
        let flushed = before - outbound.count
        updateInterest()
        guard flushed > 0 else { return }
        lastActivity = loop.turnStarted
        onDequeued?(flushed)
        if !insideWrite && isOpen && before > lowWatermark && outbound.count <= lowWatermark {
            handler?.connectionDidDrain(self)
        }
        if case .closing = state, outbound.isEmpty { finishClose(nil) }
    }

    // MARK: - Reading

    /// Stops reading from the socket (backpressure): the kernel buffer fills and the peer slows down.
    public func pauseReading() {
        loop.assertInEventLoop()
        guard !isReadingPaused else { return }
        isReadingPaused = true
        updateInterest()
    }

    /// Starts reading again after ``pauseReading()``. Bytes arrive in a later callback, never inside this call.
    public func resumeReading() {
        loop.assertInEventLoop()
        guard isReadingPaused else { return }
        isReadingPaused = false
        lastActivity = MonotonicClock.nanoseconds
        updateInterest()
        if streaming?.tls != nil { scheduleRead() }
    }

    private enum ReadOutcome {
        case bytes, wouldBlock, endOfStream, failed(TransportError)
    }

    private var wantsToRead: Bool {
        switch state {
        case .open: !isReadingPaused
        case .closing: true
        case .accepted, .resolving, .connecting, .handshaking, .closed: false
        }
    }

    private func readAvailable() {
        // A bounded number of reads per wake-up keeps one fast peer from starving the others.
        var rounds = 0
        while wantsToRead && rounds < 4 {
            rounds += 1
            switch readOnce() {
            case .bytes:
                continue
            case .wouldBlock:
                return
            case .endOfStream:
                // The end of the peer's stream ends the connection (no TCP half-close).
                if outbound.isEmpty {
                    finishClose(nil)
                } else {
                    finishClose(.peerClosed(endpoint, "closed the connection with \(outbound.count) bytes of ours "
                                                + "still unsent"))
                }
                return
            case .failed(let error):
                finishClose(error)
                return
            }
        }
        // Level-triggered epoll reports what is left in the kernel, but not what OpenSSL already decrypted.
        if wantsToRead, let tls = streaming?.tls, tls.hasPendingBytes { scheduleRead() }
    }

    /// Reads once into the loop's buffer and lends the bytes to the handler.
    /// - Returns: `.bytes` when the caller may read again at once; `.wouldBlock` when the socket (or TLS) has nothing
    ///   more now: a plain read that did not fill the buffer took everything the kernel had, and level-triggered
    ///   epoll reports any later bytes, so the read that would only say EAGAIN is skipped (unless the handler
    ///   ``awaitsRestOfMessage``).
    private func readOnce() -> ReadOutcome {
        let tls = streaming?.tls
        return loop.withReadBuffer { buffer -> ReadOutcome in
            let count: Int
            if let tls {
                switch tls.read(into: buffer) {
                case .done(let done):
                    count = done
                case .wantRead:
                    return .wouldBlock
                case .wantWrite:
                    updateStreaming { $0.readWantsWrite = true }
                    return .wouldBlock
                case .closedByPeer:
                    return .endOfStream
                case .failed(let error):
                    return .failed(error)
                }
            } else {
                count = recv(fd, buffer.baseAddress, buffer.count, 0)
                if count == 0 { return .endOfStream }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock }
                    return .failed(.posix(errno, "reading from", endpoint: endpoint))
                }
            }
            lastActivity = loop.turnStarted
            if isOpen { handler?.connectionDidRead(self, buffer: UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
            return tls == nil && count < buffer.count && !awaitsRestOfMessage ? .wouldBlock : .bytes
        }
    }

    private func scheduleRead() {
        guard !readScheduled else { return }
        readScheduled = true
        _ = scheduleOnLoop(after: .zero) { connection in
            connection.readScheduled = false
            connection.readAvailable()
            connection.updateInterest()
        }
    }

    // MARK: - Events

    func handleEvents(_ events: UInt32) {
        switch state {
        case .accepted, .resolving, .closed:
            return
        case .connecting:
            finishConnecting()
        case .handshaking:
            continueHandshake()
        case .open, .closing:
            if events & EpollEvents.error != 0 {
                let error = socketError()
                if error != 0 {
                    finishClose(.posix(error, "connection to", endpoint: endpoint))
                    return
                }
            }
            if events & (EpollEvents.input | EpollEvents.hangUp) != 0 {
                if streaming?.writeWantsRead == true { flush() }
                if wantsToRead {
                    readAvailable()
                } else if events & EpollEvents.hangUp != 0 {
                    finishClose(.peerClosed(endpoint, "closed the connection"))
                    return
                }
            }
            if events & EpollEvents.output != 0 {
                if streaming?.readWantsWrite == true {
                    updateStreaming { $0.readWantsWrite = false }
                    readAvailable()
                }
                flush()
            }
            updateInterest()
        }
    }

    private func updateInterest() {
        guard descriptorAdded else { return }
        var events: UInt32 = 0
        switch state {
        case .accepted, .resolving, .closed:
            return
        case .connecting:
            events = EpollEvents.output
        case .handshaking(let handshaking):
            events = handshaking.wantsWrite ? EpollEvents.output : EpollEvents.input
        case .open(let streaming), .closing(let streaming):
            if wantsToRead || streaming.writeWantsRead { events |= EpollEvents.input }
            if !outbound.isEmpty || streaming.readWantsWrite { events |= EpollEvents.output }
        }
        guard events != registeredEvents else { return }
        registeredEvents = events
        loop.modifyDescriptor(fd, id: id, events: events)
    }

    private func socketError() -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    // MARK: - Idle timeout

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    private func armIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard let idleTimeout, !isClosed else { return }
        lastActivity = MonotonicClock.nanoseconds
        scheduleIdleCheck(after: idleTimeout)
    }

    private func scheduleIdleCheck(after delay: Duration) {
        idleTimer = scheduleOnLoop(after: delay) { $0.checkIdle() }
    }

    /// Runs `work` with this connection after `delay`, unless it closed by then. The timer names the connection by
    /// its id in the loop, not by a weak reference: a weak reference gives the object a side table, and every retain
    /// and release of it (several per relayed message) then takes the runtime's slow path. The loop forgets the id
    /// when the connection closes.
    private func scheduleOnLoop(after delay: Duration, _ work: @escaping (Connection) -> Void) -> Scheduled {
        loop.scheduleOnLoop(after: delay) { [loop, id] in
            if let connection = loop.source(id) as? Connection { work(connection) }
        }
    }

    private func checkIdle() {
        guard let idleTimeout, !isClosed else { return }
        if isReadingPaused { lastActivity = MonotonicClock.nanoseconds }
        // The activity noted is its turn's start, a little before it: the idle time can come out longer than it was
        // by the length of that turn (well under a millisecond), against timeouts of seconds.
        let idle = Duration.nanoseconds(max(0, MonotonicClock.nanoseconds - lastActivity))
        if idle >= idleTimeout {
            finishClose(TransportError(.timeout, "no data moved to or from \(endpoint) for "
                                           + "\(idleTimeout.formattedSeconds) (idle timeout): the peer is stalled "
                                           + "or gone"))
        } else {
            scheduleIdleCheck(after: idleTimeout - idle)
        }
    }

    // MARK: - Closing

    /// Closes now, dropping queued bytes; with TLS, sends close_notify if the socket takes it at once.
    /// The handler gets ``ConnectionHandler/connectionDidClose(_:error:)`` with a nil error, inside this call.
    public func close() {
        loop.assertInEventLoop()
        // Bytes written earlier in this loop turn have not been offered to the socket yet: offer them now, as an
        // immediate write would have, before closing.
        if flushScheduled && isOpen {
            flushScheduled = false
            flush(insideWrite: true)
        }
        finishClose(nil)
    }

    /// Stops accepting writes, sends what is queued, then closes. If that takes longer than `timeout`, closes
    /// with a `.timeout` error. Reads after this call are discarded.
    public func closeAfterFlush(timeout: Duration) {
        loop.assertInEventLoop()
        switch state {
        case .open(let streaming):
            guard !outbound.isEmpty else {
                finishClose(nil)
                return
            }
            state = .closing(streaming)
            phaseTimer?.cancel()
            phaseTimer = scheduleOnLoop(after: timeout) { $0.phaseDidTimeOut(after: timeout) }
            updateInterest()
        case .accepted, .resolving, .connecting, .handshaking:
            finishClose(nil)
        case .closing, .closed:
            break
        }
    }

    func loopDidShutDown() {
        finishClose(.loopShutDown)
    }

    /// Closes from a later loop turn, so that a handler never hears of a close before the call that caused it returns.
    private func closeSoon(_ error: TransportError) {
        _ = loop.scheduleOnLoop(after: .zero) { [self] in finishClose(error) }
    }

    private func releaseDescriptor() {
        guard fd >= 0 else { return }
        if descriptorAdded { loop.removeDescriptor(fd) }
        descriptorAdded = false
        registeredEvents = 0
        Glibc.close(fd)
        fd = -1
    }

    private func finishClose(_ error: TransportError?) {
        guard !isClosed else { return }
        let open = streaming
        state = .closed
        phaseTimer?.cancel()
        idleTimer?.cancel()
        if error == nil, let tls = open?.tls { tls.shutdown() }
        releaseDescriptor()
        let dropped = outbound.count
        outbound.removeAll()
        loop.release(id)
        let handler = self.handler
        self.handler = nil
        let onDequeued = self.onDequeued
        self.onDequeued = nil
        let onClosed = self.onClosed
        self.onClosed = nil
        onClosed?()
        handler?.connectionDidClose(self, error: error)
        if dropped > 0 { onDequeued?(dropped) }
    }
}

/// Turns off Nagle's algorithm: protocols on this transport write whole messages and want them sent at once.
func setNoDelay(_ fd: Int32) {
    var one: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

/// Fixes the socket's send buffer (Linux doubles the value for its bookkeeping and stops auto-tuning it).
func setSendBufferSize(_ fd: Int32, _ bytes: Int) {
    var size = Int32(clamping: bytes)
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
}
