#if canImport(CMalloc)
import CMalloc
#endif

/// Hands the memory that closed connections freed back to the system.
///
/// glibc keeps freed blocks in its arenas, and after a large block is freed it raises its mmap threshold, so later
/// large buffers come from the arenas too: without help, the server's resident memory stays at its peak after a
/// burst of peers has left. `malloc_trim` releases every whole free page. It runs once, a moment after
/// connections close (a burst of closes gives one trim), on the loop thread. A loop-thread object, used by the
/// RTMP ingest and the HTTP server.
public final class MemoryTrim {
    /// How long after a close the trim runs, so that a burst of closes is trimmed once.
    public static let delay: Duration = .milliseconds(500)
    private var isScheduled = false

    /// Creates one; a server keeps one per loop.
    public init() {}

    /// A connection closed: trims shortly, unless a trim is already due.
    public func connectionClosed(on loop: EventLoop) {
        guard !isScheduled else { return }
        isScheduled = true
        loop.scheduleOnLoop(after: Self.delay) { [weak self] in
            self?.isScheduled = false
            #if canImport(CMalloc)
            _ = malloc_trim(0)
            #endif
        }
    }
}
