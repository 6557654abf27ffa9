import Locking

/// A bounded, thread-safe free list of equally sized buffers, shared by ``FramePool`` and ``PCMBufferPool``.
///
/// Buffers are allocated lazily up to `maxCount` and never freed while the pool lives; a returned buffer goes back
/// on the free list. Each live `PixelStorage` keeps the pool alive, so the pool outlives its last frame.
final class StoragePool: Sendable {
    let byteCount: Int
    let maxCount: Int

    private struct State {
        /// Free buffers as address bit patterns (plain integers cross the lock without region juggling).
        var free: [UInt]
        var statistics = PoolStatistics()
    }

    private let state: Locked<State>

    init(byteCount: Int, maxCount: Int) {
        precondition(maxCount > 0, "a pool needs room for at least one buffer")
        self.byteCount = byteCount
        self.maxCount = maxCount
        var free: [UInt] = []
        free.reserveCapacity(maxCount)  // returning a buffer never grows the array
        state = Locked(State(free: free))
    }

    var statistics: PoolStatistics {
        state.withLock { $0.statistics }
    }

    /// Checks out a buffer, or returns nil when `maxCount` buffers are already in use.
    func checkOut() -> PixelStorage? {
        let maxCount = maxCount
        let reused: UInt?? = state.withLock { state in
            guard state.statistics.inUse < maxCount else {
                state.statistics.exhaustions += 1
                return .none
            }
            state.statistics.inUse += 1
            state.statistics.peakInUse = max(state.statistics.peakInUse, state.statistics.inUse)
            if let address = state.free.popLast() {
                state.statistics.reuses += 1
                return .some(address)
            }
            state.statistics.allocations += 1
            return .some(nil)
        }
        switch reused {
        case .none:
            return nil
        case .some(.some(let address)):
            guard let base = UnsafeMutableRawPointer(bitPattern: address) else {
                preconditionFailure("a pooled buffer address cannot be zero")
            }
            return PixelStorage(base: base, byteCount: byteCount, pool: self)
        case .some(.none):
            let base = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1),
                                                        alignment: FrameLayout.rowAlignment)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
            return PixelStorage(base: base, byteCount: byteCount, pool: self)
        }
    }

    /// Puts a buffer back on the free list (called from `PixelStorage.deinit`).
    func recycle(_ base: UnsafeMutableRawPointer) {
        let address = UInt(bitPattern: base)
        state.withLock { state in
            state.free.append(address)
            state.statistics.inUse -= 1
        }
    }

    deinit {
        // Only free buffers remain: every checked-out buffer's storage holds a strong reference to this pool.
        state.withLock { state in
            for address in state.free {
                UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
            }
            state.free.removeAll()
        }
    }
}
