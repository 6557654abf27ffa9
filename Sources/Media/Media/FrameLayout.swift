/// Where each plane of a video frame lives in one contiguous buffer: per-plane offsets, strides and row counts.
///
/// Strides are padded to ``rowAlignment`` bytes and planes start on that alignment, which keeps libyuv's SIMD rows
/// aligned; consumers must always use ``stride(ofPlane:)``, never assume `width × bytes per pixel`.
public struct FrameLayout: Sendable, Hashable, CustomStringConvertible {
    /// Row and plane alignment in bytes (a cache line; also enough for AVX2/NEON loads).
    public static let rowAlignment = 64
    /// The largest accepted width or height: larger than any screen or camera we capture.
    public static let maximumDimension = 16_384

    /// The pixel format.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Total bytes of the buffer holding all planes.
    public let byteCount: Int

    private let offset0: Int
    private let offset1: Int
    private let offset2: Int
    private let stride0: Int
    private let stride1: Int
    private let stride2: Int

    /// Lays out a frame of `format` at `width` × `height`.
    ///
    /// Odd sizes are allowed; 4:2:0 chroma planes then cover `(width + 1) / 2` × `(height + 1) / 2` samples.
    /// - Precondition: `width` and `height` are in `1...maximumDimension` (sizes come from our own configuration).
    public init(format: PixelFormat, width: Int, height: Int) {
        precondition((1...Self.maximumDimension).contains(width) && (1...Self.maximumDimension).contains(height),
                     "frame size \(width)x\(height) is outside 1...\(Self.maximumDimension)")
        self.format = format
        self.width = width
        self.height = height
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        switch format {
        case .bgra:
            stride0 = Self.aligned(width * 4)
            stride1 = 0
            stride2 = 0
            offset0 = 0
            offset1 = 0
            offset2 = 0
            byteCount = stride0 * height
        case .i420:
            stride0 = Self.aligned(width)
            stride1 = Self.aligned(chromaWidth)
            stride2 = stride1
            offset0 = 0
            offset1 = Self.aligned(stride0 * height)
            offset2 = offset1 + Self.aligned(stride1 * chromaHeight)
            byteCount = offset2 + stride2 * chromaHeight
        case .nv12:
            stride0 = Self.aligned(width)
            stride1 = Self.aligned(chromaWidth * 2)
            stride2 = 0
            offset0 = 0
            offset1 = Self.aligned(stride0 * height)
            offset2 = 0
            byteCount = offset1 + stride1 * chromaHeight
        }
    }

    /// Bytes from the start of one row of `plane` to the next.
    public func stride(ofPlane plane: Int) -> Int {
        precondition(plane >= 0 && plane < format.planeCount, "plane \(plane) does not exist in \(format)")
        switch plane {
        case 0: return stride0
        case 1: return stride1
        default: return stride2
        }
    }

    /// Byte offset of `plane` from the start of the buffer.
    public func offset(ofPlane plane: Int) -> Int {
        precondition(plane >= 0 && plane < format.planeCount, "plane \(plane) does not exist in \(format)")
        switch plane {
        case 0: return offset0
        case 1: return offset1
        default: return offset2
        }
    }

    /// Number of rows in `plane`.
    public func rows(ofPlane plane: Int) -> Int {
        precondition(plane >= 0 && plane < format.planeCount, "plane \(plane) does not exist in \(format)")
        return plane == 0 ? height : (height + 1) / 2
    }

    /// Meaningful bytes in one row of `plane` (the rest of the stride is padding).
    public func rowBytes(ofPlane plane: Int) -> Int {
        precondition(plane >= 0 && plane < format.planeCount, "plane \(plane) does not exist in \(format)")
        let chromaWidth = (width + 1) / 2
        switch (format, plane) {
        case (.bgra, _): return width * 4
        case (_, 0): return width
        case (.nv12, _): return chromaWidth * 2
        case (.i420, _): return chromaWidth
        }
    }

    /// For example "I420 1280x720".
    public var description: String { "\(format) \(width)x\(height)" }

    private static func aligned(_ value: Int) -> Int {
        (value + rowAlignment - 1) / rowAlignment * rowAlignment
    }
}
