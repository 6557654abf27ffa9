/// Writable pointers to a frame's planes, valid inside `VideoFrame.withUnsafeMutablePlanes`.
public struct MutableVideoPlanes {
    /// The frame's layout.
    public let layout: FrameLayout
    private let base: UnsafeMutableRawPointer

    init(base: UnsafeMutableRawPointer, layout: FrameLayout) {
        self.base = base
        self.layout = layout
    }

    /// The first byte of `plane` (0: Y or BGRA, 1: U or interleaved UV, 2: V).
    public func baseAddress(ofPlane plane: Int) -> UnsafeMutablePointer<UInt8> {
        (base + layout.offset(ofPlane: plane)).assumingMemoryBound(to: UInt8.self)
    }

    /// Bytes between rows of `plane`.
    public func stride(ofPlane plane: Int) -> Int {
        layout.stride(ofPlane: plane)
    }
}
