/// The bookkeeping of a ``ByteStream`` over a transport that reports by callbacks (Network.framework's
/// `NWConnection` on iOS): who waits for what, what a write, a read or a drain wait gets at once, and who hears of
/// the first failure.
///
/// Pure and transport-agnostic: `Waiter` is whatever the driver resumes (its continuations; names in the tests).
/// The driver calls one method per event under its lock and, after releasing it, resumes each returned waiter with
/// its ``Outcome``. The first failure ends the stream: every waiter then and every later call hears of it; a close
/// before any failure ends it quietly (reads return the end, writes are refused as closed).
public struct ByteStreamMachine<Waiter> {
    /// What a waiter is resumed with.
    public enum Outcome: Sendable, Hashable {
        /// The connection is open, or the queue fell below the threshold waited for.
        case ready
        /// The read's bytes arrived (the driver holds them).
        case data
        /// The stream ended: the peer finished it, or it was closed.
        case end
        /// The stream failed with this error.
        case failure(LinkError)
    }

    /// A waiter and what it is resumed with.
    public typealias Resumption = (waiter: Waiter, outcome: Outcome)

    private enum Phase {
        case open
        /// Closed by our side before any failure.
        case closed
        /// Ended by its first failure (a close after it keeps it).
        case failed(LinkError)
    }

    /// "host:port", for messages.
    public let endpoint: String
    /// Bytes written and not yet processed by the transport.
    public private(set) var queuedBytes = 0
    private var phase = Phase.open
    private var opener: Waiter?
    private var reader: Waiter?
    private var drainWaiters: [(threshold: Int, waiter: Waiter)] = []

    /// Creates the machine of a stream that is being opened.
    /// - Parameter endpoint: "host:port", never a stream key.
    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    /// Whether the open is still waited for (a timer that fires then fails the stream).
    public var isOpening: Bool { opener != nil }

    /// The open starts: `waiter` hears when the transport is ready or fails.
    public mutating func opening(_ waiter: Waiter) -> [Resumption] {
        if let ended = endedOutcome { return [(waiter, ended)] }
        opener = waiter
        return []
    }

    /// The transport is ready.
    public mutating func ready() -> [Resumption] {
        defer { opener = nil }
        return opener.map { [($0, .ready)] } ?? []
    }

    /// Bytes are to be written.
    /// - Parameter count: how many.
    /// - Returns: nil when the transport is to send them (they are counted as queued), else why not.
    public mutating func write(count: Int) -> LinkError? {
        switch phase {
        case .failed(let failure): return failure
        case .closed: return LinkError(.closed, "the connection to \(endpoint) is closed")
        case .open:
            queuedBytes += count
            return nil
        }
    }

    /// The transport processed written bytes.
    /// - Returns: the drain waiters whose threshold the queue is now below.
    public mutating func processed(count: Int) -> [Resumption] {
        queuedBytes -= count
        var ready: [Resumption] = []
        drainWaiters.removeAll { entry in
            guard queuedBytes < entry.threshold else { return false }
            ready.append((entry.waiter, .ready))
            return true
        }
        return ready
    }

    /// A read starts: it is answered at once when the stream has ended, else `waiter` waits for `received`.
    /// - Returns: the read's answer now, or nothing when the driver is to ask the transport for bytes.
    public mutating func reading(_ waiter: Waiter) -> [Resumption] {
        if let ended = endedOutcome { return [(waiter, ended)] }
        reader = waiter
        return []
    }

    /// The transport answered the read.
    /// - Parameters:
    ///   - hasData: whether bytes came.
    ///   - done: whether the peer finished the stream.
    ///   - error: the transport's error, if any (bytes win over it, as the transport may report both).
    public mutating func received(hasData: Bool, done: Bool, error: LinkError?) -> [Resumption] {
        if hasData {
            defer { reader = nil }
            return reader.map { [($0, .data)] } ?? []
        }
        if case .closed = phase {
            defer { reader = nil }
            return reader.map { [($0, .end)] } ?? []
        }
        if !done, let error { return fail(error) }
        defer { reader = nil }
        return reader.map { [($0, .end)] } ?? []
    }

    /// Waits until fewer than `threshold` bytes are queued.
    /// - Returns: the answer now (ready, or the failure), or nothing while `waiter` waits for `processed`.
    public mutating func drainWait(below threshold: Int, _ waiter: Waiter) -> [Resumption] {
        if case .failed(let failure) = phase { return [(waiter, .failure(failure))] }
        if queuedBytes < threshold { return [(waiter, .ready)] }
        drainWaiters.append((threshold, waiter))
        return []
    }

    /// The transport failed, or the open timed out: the first failure ends the stream (unless it was closed
    /// before), and every waiter hears of it.
    public mutating func fail(_ error: LinkError) -> [Resumption] {
        if case .open = phase { phase = .failed(error) }
        let failure: LinkError
        if case .failed(let first) = phase { failure = first } else { failure = error }
        let waiting = [opener, reader].compactMap { $0 } + drainWaiters.map(\.waiter)
        opener = nil
        reader = nil
        drainWaiters = []
        return waiting.map { ($0, .failure(failure)) }
    }

    /// Our side closes: a waiting read returns the end.
    public mutating func close() -> [Resumption] {
        if case .open = phase { phase = .closed }
        defer { reader = nil }
        return reader.map { [($0, .end)] } ?? []
    }

    /// What a new read or open gets once the stream has ended.
    private var endedOutcome: Outcome? {
        switch phase {
        case .open: nil
        case .closed: .end
        case .failed(let failure): .failure(failure)
        }
    }
}
