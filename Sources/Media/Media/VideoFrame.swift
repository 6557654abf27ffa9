/// One video picture: pixels in a pooled buffer, the layout of its planes and a presentation timestamp.
///
/// A value type with reference-counted storage. Copies share the pixels; writing requires the only reference
/// (``withUnsafeMutablePlanes(_:)`` checks it), so a frame handed to another thread is never changed underneath it.
public struct VideoFrame: Sendable {
    /// Format, size, and plane offsets and strides.
    public let layout: FrameLayout
    /// Presentation timestamp in nanoseconds on a monotonic clock.
    public var pts: Int64
    var storage: PixelStorage

    init(layout: FrameLayout, pts: Int64, storage: PixelStorage) {
        precondition(storage.byteCount >= layout.byteCount, "buffer is smaller than the frame layout")
        self.layout = layout
        self.pts = pts
        self.storage = storage
    }

    /// A one-off frame with its own zeroed memory, outside any pool (for tests and rare setup work).
    public init(layout: FrameLayout, pts: Int64 = 0) {
        self.init(layout: layout, pts: pts, storage: PixelStorage(unpooledByteCount: layout.byteCount))
    }

    /// The pixel format.
    public var format: PixelFormat { layout.format }
    /// Width in pixels.
    public var width: Int { layout.width }
    /// Height in pixels.
    public var height: Int { layout.height }

    /// Whether this value holds the only reference to its pixels (so writing needs no copy).
    public var isUniquelyReferenced: Bool {
        mutating get { isKnownUniquelyReferenced(&storage) }
    }

    /// Whether both frames use the same pixel memory (a passthrough, not a copy).
    public func sharesStorage(with other: VideoFrame) -> Bool {
        storage === other.storage
    }

    /// Calls `body` with read-only pointers to the planes; the pointers are valid only inside `body`.
    public func withUnsafePlanes<Result, Failure: Error>(
        _ body: (VideoPlanes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(storage) { () throws(Failure) -> Result in
            try body(VideoPlanes(base: UnsafeRawPointer(storage.base), layout: layout))
        }
    }

    /// Calls `body` with writable pointers to the planes; the pointers are valid only inside `body`.
    /// - Precondition: this value holds the only reference to its storage (``isUniquelyReferenced``); pass frames
    ///   on with `consume` before writing. Writing a shared frame would race with its readers.
    public mutating func withUnsafeMutablePlanes<Result, Failure: Error>(
        _ body: (MutableVideoPlanes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(isKnownUniquelyReferenced(&storage), "writing a \(layout) frame that is shared with others")
        let planes = MutableVideoPlanes(base: storage.base, layout: layout)
        return try withExtendedLifetime(storage) { () throws(Failure) -> Result in try body(planes) }
    }
}
