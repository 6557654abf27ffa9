#if canImport(CMalloc)
import CMalloc
#endif
import Transport

/// Hands the memory that closed connections freed back to the system.
///
/// glibc keeps freed blocks in its arenas, and after a large block is freed it raises its mmap threshold, so later
/// large buffers come from the arenas too: without help, the server's resident memory stays at its peak after a
/// burst of peers has left. `malloc_trim` releases every whole free page. It runs once, a moment after
/// connections close (a burst of closes gives one trim), on the loop thread. A loop-thread object.
final class MemoryTrim {
    /// How long after a close the trim runs, so that a burst of closes is trimmed once.
    static let delay: Duration = .milliseconds(500)
    private var isScheduled = false

    /// A connection closed: trims shortly, unless a trim is already due.
    func connectionClosed(on loop: EventLoop) {
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
