#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock, with `Synchronization.Mutex`'s `withLock` shape, on a `pthread_mutex_t`.
///
/// Why not `Mutex`: on Linux a contended `Mutex` waits in the Swift runtime's futex code, which ThreadSanitizer
/// does not see, so TSan reports every access to a contended `Mutex`'s value as a data race (`make
/// sanitize-thread` found one more Mutex-owned state each run, each needing a suppression that also hid real
/// races in that code). TSan intercepts `pthread_mutex_lock` and `unlock`, so code under a `Locked` is checked for
/// real. Uncontended, both cost an atomic exchange.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written between pthread_mutex_lock and pthread_mutex_unlock on
    // `mutex`, which lives (at a stable address) as long as the object.
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates the lock holding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock (not reentrant: `body` must not take it again).
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
