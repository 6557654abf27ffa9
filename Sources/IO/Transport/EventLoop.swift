import CEpoll
import Glibc
import Locking
import Synchronization

/// One thread running an epoll set, with eventfd wake-ups and timers.
///
/// Sockets (``Connection``, ``Listener``) belong to one loop and are touched only on its thread; their handler
/// callbacks run there too. Other threads hand work to the loop with ``execute(_:)`` or ``submit(_:)``.
/// The running thread keeps the loop alive: call ``shutdown()`` to stop it.
public final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: the state shared between threads is `shared` (a Locked), `loopThread` and `hasTasks`
    // (Atomics); `sources`, `timers`, `freeSlots`, `running`, `readBufferLent` (and the bytes of `readBuffer`)
    // and the flush lists are read and written only on the loop thread, which every entry point that touches them
    // checks with `assertInEventLoop()` (`schedule(after:)` hops there with `execute` when called elsewhere).
    // `thread` is written once in `init`, before the object is visible to any other thread, and read once in
    // `shutdown()`.

    /// How the kernel schedules a loop's thread.
    public enum Scheduling: Sendable {
        /// The kernel's default policy: a loop woken by a socket may preempt the task running on its core at once.
        case interactive
        /// Linux's `SCHED_BATCH`: a woken loop does not preempt the task running on its core; it runs at that task's
        /// next scheduling point (within its time slice, a few milliseconds), or at once on an idle core. A relay
        /// woken by a publisher's chunk header then often finds the chunk's body (and the next messages) already
        /// there: fewer wake-ups and context switches per message, for a delay that only a busy core imposes.
        case batch
    }

    /// The name given at creation, used for the thread name and in messages.
    public let name: String
    /// The policy the loop's thread runs under.
    public let scheduling: Scheduling

    private let epollFD: Int32
    private let wakeFD: Int32
    private let shared = Locked(Shared())
    private let loopThread = Atomic<UInt>(0)
    /// Set (under the lock) whenever a task joins `shared.tasks`; the loop clears it before taking the tasks.
    private let hasTasks = Atomic<Bool>(false)
    private var thread: pthread_t = 0

    /// Adopted sources by slot: a source's id is its slot + 1 in the low 32 bits and the slot's generation in the
    /// high 32 (bumped when the slot is released, so that an old id, say in a pending timer, finds nothing). A lookup
    /// per epoll event is then an index, where a dictionary hashed the id (~1 % of a relay's samples).
    private var sources: [SourceSlot] = []
    private var freeSlots: [Int] = []
    private var timers = TimerHeap()
    /// The time the timers count in when a test drives it; nil (always, outside tests) for ``MonotonicClock``.
    private let manualClock: ManualClock?
    private var running = true
    /// The scratch buffer for socket reads: one allocation for the loop's life (freed in deinit), so lending it
    /// involves no exclusive access to a property (a nested lend gets a buffer of its own).
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: EventLoop.readBufferSize,
                                                                    alignment: 16)
    private var readBufferLent = false
    /// Linux's SCHED_BATCH (<sched.h> defines it only under _GNU_SOURCE).
    private static let schedulerBatch: Int32 = 3
    /// The size of one socket read.
    static let readBufferSize = 64 * 1024
    /// Connections written to during this loop turn, flushed together at its end.
    private var pendingFlushes: [Connection] = []
    private var flushing: [Connection] = []
    /// ``MonotonicClock`` nanoseconds when this turn's events came (loop thread only): connections note their last
    /// activity with it, for idle timeouts of seconds, where a clock read per read and flush cost ~1 % of a relay.
    private(set) var turnStarted = MonotonicClock.nanoseconds

    /// A task from another thread. In a struct, not bare in the array: an array of closures keeps each one behind a
    /// reabstraction thunk, allocated on every append (one allocation per task, hundreds per LL-HLS part released).
    private struct QueuedWork {
        let work: @Sendable () -> Void
    }

    private struct SourceSlot {
        var generation: UInt32 = 0
        var source: (any EventSource)?
    }

    private struct Shared {
        var tasks: [QueuedWork] = []
        var acceptsWork = true
        var joined = false
    }

    /// The epoll user-data value that marks the wake-up eventfd.
    private static let wakeSourceID: UInt64 = 0

    /// Creates the epoll set and starts the loop's thread.
    /// - Parameters:
    ///   - name: a short name for the thread (Linux shows the first 15 bytes).
    ///   - scheduling: the kernel's policy for the thread.
    /// - Throws: ``TransportError`` with code `.io` if the kernel refuses an epoll set, an eventfd or a thread.
    public convenience init(name: String, scheduling: Scheduling = .interactive) throws(TransportError) {
        try self.init(name: name, scheduling: scheduling, clock: nil)
    }

    /// A loop whose timers count in `clock` (a test's ``ManualClock``) instead of the monotonic clock.
    init(name: String, scheduling: Scheduling = .interactive, clock: ManualClock?) throws(TransportError) {
        self.name = name
        self.scheduling = scheduling
        manualClock = clock
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .posix(errno, "creating an epoll set for", endpoint: "event loop \(name)") }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = errno
            close(epollFD)
            throw .posix(error, "creating an eventfd for", endpoint: "event loop \(name)")
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        var event = epoll_event()
        event.events = EpollEvents.input
        event.data.u64 = Self.wakeSourceID
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)

        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let loop = Unmanaged<EventLoop>.fromOpaque(context).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            close(wakeFD)
            close(epollFD)
            throw .posix(result, "starting the thread of", endpoint: "event loop \(name)")
        }
        self.thread = thread
    }

    deinit {
        close(wakeFD)
        close(epollFD)
        readBuffer.deallocate()
    }

    /// True when called on this loop's thread.
    public var inEventLoop: Bool {
        pthread_equal(pthread_self(), loopThread.load(ordering: .acquiring)) != 0
    }

    /// Runs `work` on the loop thread, after the current event batch. Dropped if the loop has shut down.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        _ = tryExecute(work)
    }

    /// Runs `work` on the loop thread and returns its result.
    /// - Throws: what `work` throws, or ``TransportError`` `.closed` if the loop has shut down.
    public func submit<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let accepted = tryExecute {
                continuation.resume(with: Swift.Result { try work() })
            }
            if !accepted { continuation.resume(throwing: TransportError.loopShutDown) }
        }
    }

    /// Runs `work` on the loop thread once `delay` has passed, unless cancelled first.
    /// - Returns: a handle whose ``Scheduled/cancel()`` stops the work from running.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> Scheduled {
        let scheduled = Scheduled()
        if inEventLoop {
            insertTimer(after: delay, scheduled: scheduled, work: work)
        } else {
            execute { self.insertTimer(after: delay, scheduled: scheduled, work: work) }
        }
        return scheduled
    }

    /// Closes every connection and listener of this loop (their handlers see `.closed`), stops the thread and
    /// waits for it to finish. Work submitted afterwards is dropped. Must not be called on the loop thread.
    public func shutdown() {
        precondition(!inEventLoop, "EventLoop.shutdown() called on its own thread; it would wait for itself")
        let join = shared.withLock { shared -> Bool in
            guard !shared.joined else { return false }
            shared.joined = true
            shared.acceptsWork = false
            shared.tasks.append(QueuedWork { [unowned self] in self.stop() })
            hasTasks.store(true, ordering: .releasing)
            return true
        }
        guard join else { return }
        wake()
        pthread_join(thread, nil)
    }

    /// The time timers count in: ``MonotonicClock`` nanoseconds, or the test's ``ManualClock``.
    private var timerNow: Int64 {
        manualClock?.nanoseconds ?? MonotonicClock.nanoseconds
    }

    /// Adds a timer due `delay` from now (loop thread only).
    private func insertTimer(after delay: Duration, scheduled: Scheduled, work: @escaping () -> Void) {
        timers.insert(deadline: MonotonicClock.deadline(after: delay, from: timerNow), scheduled: scheduled, work: work)
    }

    // MARK: - Loop-thread API for sockets

    func assertInEventLoop(_ function: StaticString = #function) {
        precondition(inEventLoop, "\(function) must run on event loop \(name)")
    }

    /// Like ``execute(_:)`` but says whether the work was accepted.
    func tryExecute(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, wasEmpty) = shared.withLock { shared -> (Bool, Bool) in
            guard shared.acceptsWork else { return (false, false) }
            shared.tasks.append(QueuedWork(work: work))
            hasTasks.store(true, ordering: .releasing)
            return (true, shared.tasks.count == 1)
        }
        if accepted && wasEmpty { wake() }
        return accepted
    }

    /// Runs `work` on the loop thread once `delay` has passed, unless cancelled first. Because it must be called
    /// on the loop thread, `work` may capture loop-thread objects (connections, protocol state machines): the
    /// way for a protocol driver to get its timer events.
    /// - Returns: a handle whose ``Scheduled/cancel()`` stops the work from running.
    @discardableResult
    public func scheduleOnLoop(after delay: Duration, _ work: @escaping () -> Void) -> Scheduled {
        assertInEventLoop()
        let scheduled = Scheduled()
        insertTimer(after: delay, scheduled: scheduled, work: work)
        return scheduled
    }

    /// Makes the loop own `source` until ``release(_:)``: it is closed if the loop shuts down first.
    /// Returns the id that names it in the other calls.
    func adopt(_ source: any EventSource) -> UInt64 {
        assertInEventLoop()
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            sources[slot].source = source
        } else {
            slot = sources.count
            sources.append(SourceSlot(source: source))
        }
        return UInt64(sources[slot].generation) << 32 | UInt64(slot + 1)
    }

    /// The adopted source with this id, until it is released.
    func source(_ id: UInt64) -> (any EventSource)? {
        assertInEventLoop()
        return lookUp(id)
    }

    /// Forgets an adopted source (after it closed).
    func release(_ id: UInt64) {
        assertInEventLoop()
        guard let slot = slot(of: id) else { return }
        sources[slot].source = nil
        sources[slot].generation &+= 1
        freeSlots.append(slot)
    }

    /// The source `id` names, if it is still adopted (loop thread only).
    private func lookUp(_ id: UInt64) -> (any EventSource)? {
        slot(of: id).flatMap { sources[$0].source }
    }

    /// The slot of the source `id` names, if it is still adopted: an id is the slot + 1 in its low 32 bits and the
    /// slot's generation in its high 32 (see ``adopt(_:)``).
    private func slot(of id: UInt64) -> Int? {
        let slot = Int(truncatingIfNeeded: id & 0xFFFF_FFFF) - 1
        guard slot >= 0, slot < sources.count, sources[slot].generation == UInt32(truncatingIfNeeded: id >> 32),
              sources[slot].source != nil else { return nil }
        return slot
    }

    /// Adds an adopted source's descriptor to the epoll set.
    func addDescriptor(_ fd: Int32, id: UInt64, events: UInt32) throws(TransportError) {
        assertInEventLoop()
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw .posix(errno, "registering a socket with", endpoint: "event loop \(name)")
        }
    }

    /// Changes the events a registered descriptor waits for.
    func modifyDescriptor(_ fd: Int32, id: UInt64, events: UInt32) {
        assertInEventLoop()
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Removes a descriptor from the epoll set (before it is closed).
    func removeDescriptor(_ fd: Int32) {
        assertInEventLoop()
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    /// Calls `body` with the loop's scratch buffer for socket reads; the bytes are valid only during the call (the
    /// next read overwrites them). A call made while the buffer is lent gets a temporary buffer of its own.
    func withReadBuffer<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        assertInEventLoop()
        guard !readBufferLent else {
            let temporary = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 16)
            defer { temporary.deallocate() }
            return body(temporary)
        }
        readBufferLent = true
        defer { readBufferLent = false }
        return body(readBuffer)
    }

    // MARK: - The loop

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    private func stop() {
        let all = sources.compactMap(\.source)
        sources.removeAll()
        freeSlots.removeAll()
        for source in all { source.loopDidShutDown() }
        // Timers never fire after shutdown; their closures hold connections, which hold this loop: drop them, or
        // the loop and everything a pending timer reaches leak as a cycle (found by LeakSanitizer).
        timers = TimerHeap()
        running = false
    }

    private func run() {
        loopThread.store(pthread_self(), ordering: .releasing)
        // A peer that closes while we write must be an error on that connection, not the death of the process.
        // Plain sockets use send(MSG_NOSIGNAL), but OpenSSL's socket BIO writes with write(2), which raises
        // SIGPIPE in the writing thread. Every socket write happens on this thread, so blocking SIGPIPE here
        // (and only here) turns it into the EPIPE that the write already reports.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        switch scheduling {
        case .interactive:
            break
        case .batch:
            // Pid 0 is the calling thread. SCHED_BATCH needs no privilege; if refused, the default policy stays.
            var parameters = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, EventLoop.schedulerBatch, &parameters)
        }
        let capacity = 128
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        while running {
            let timeout = timers.nextDeadline.map { deadline -> Int32 in
                // A manual clock moves only when its test moves it (and wakes the loop): no timeout can pass.
                if let manualClock { return deadline <= manualClock.nanoseconds ? 0 : -1 }
                return MonotonicClock.milliseconds(until: deadline, from: MonotonicClock.nanoseconds)
            } ?? -1
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32(capacity), timeout)
            }
            turnStarted = MonotonicClock.nanoseconds
            if count > 0 {
                for index in 0..<Int(count) {
                    let id = events[index].data.u64
                    if id == Self.wakeSourceID {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, MemoryLayout<UInt64>.size)
                    } else {
                        // Looked up per event: an earlier event of this batch may have closed this source.
                        lookUp(id)?.handleEvents(events[index].events)
                    }
                }
            }
            let now = timerNow
            while let work = timers.popExpired(now: now) { work() }
            // Most turns have no task from another thread: the flag spares them the lock.
            if hasTasks.exchange(false, ordering: .acquiringAndReleasing) {
                let tasks = shared.withLock { shared -> [QueuedWork] in
                    let tasks = shared.tasks
                    shared.tasks.removeAll(keepingCapacity: true)
                    return tasks
                }
                for task in tasks { task.work() }
            }
            flushPendingWrites()
        }
    }

    /// Has `connection` flushed at the end of this loop turn (loop thread only): everything written to it during
    /// the turn (a relay's audio and video for one player, say) then leaves in one system call instead of one each.
    func flushAtEndOfTurn(_ connection: Connection) {
        assertInEventLoop()
        pendingFlushes.append(connection)
    }

    /// Flushes the connections written to in this turn; a flush that makes more writes (a handler answering a
    /// drain) has those flushed too before the loop sleeps.
    private func flushPendingWrites() {
        while !pendingFlushes.isEmpty {
            swap(&pendingFlushes, &flushing)
            for connection in flushing { connection.flushDeferred() }
            flushing.removeAll(keepingCapacity: true)
        }
    }
}

/// Epoll event bits as `UInt32`, the type of `epoll_event.events`.
enum EpollEvents {
    static let input = UInt32(EPOLLIN.rawValue)
    static let output = UInt32(EPOLLOUT.rawValue)
    static let error = UInt32(EPOLLERR.rawValue)
    static let hangUp = UInt32(EPOLLHUP.rawValue)
}

/// A file descriptor registered with an ``EventLoop``. Loop-thread only.
protocol EventSource: AnyObject {
    /// The descriptor is ready: `events` is the epoll bit set.
    func handleEvents(_ events: UInt32)
    /// The loop is shutting down: release the descriptor and tell whoever waits.
    func loopDidShutDown()
}
