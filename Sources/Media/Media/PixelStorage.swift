/// One buffer of frame or sample memory. When the last frame referring to it goes away, `deinit` hands the memory
/// back to its pool (or frees it when it has none), so a frame's lifetime is the buffer's checkout.
///
/// `@unchecked Sendable` is safe because every stored property is an immutable `let` (the pool is itself
/// `Sendable`), and the bytes behind `base` are written only through `VideoFrame`/`PCMBuffer` mutating methods that
/// first check `isKnownUniquelyReferenced` on this object: a writer holds the only reference, so no other thread can
/// be reading the bytes while they change. Readers only ever receive the bytes after the writer has shared the frame.
final class PixelStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let byteCount: Int
    private let pool: StoragePool?

    init(base: UnsafeMutableRawPointer, byteCount: Int, pool: StoragePool?) {
        self.base = base
        self.byteCount = byteCount
        self.pool = pool
    }

    /// Memory owned by this storage alone, freed in `deinit` (for one-off frames outside any pool).
    convenience init(unpooledByteCount byteCount: Int) {
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1),
                                                    alignment: FrameLayout.rowAlignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        self.init(base: base, byteCount: byteCount, pool: nil)
    }

    deinit {
        if let pool {
            pool.recycle(base)
        } else {
            base.deallocate()
        }
    }
}
