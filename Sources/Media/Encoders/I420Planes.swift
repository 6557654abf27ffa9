/// A borrowed view of one 8-bit I420 (YUV 4:2:0 planar) picture: a full-size luma plane and two half-size chroma
/// planes, each with its own stride in bytes.
///
/// The pointers are only valid while their owner keeps them alive (typically inside a `withUnsafe...` closure),
/// so this view is deliberately not `Sendable`: it is built, handed to `encode`, and dropped.
public struct I420Planes {
    /// Width of the picture in pixels (luma samples).
    public var width: Int
    /// Height of the picture in pixels (luma rows).
    public var height: Int
    /// First byte of the luma plane.
    public var y: UnsafePointer<UInt8>
    /// Bytes from one luma row to the next (at least `width`).
    public var yStride: Int
    /// First byte of the Cb plane (`(width + 1) / 2` by `(height + 1) / 2` samples).
    public var u: UnsafePointer<UInt8>
    /// Bytes from one Cb row to the next.
    public var uStride: Int
    /// First byte of the Cr plane (same size as Cb).
    public var v: UnsafePointer<UInt8>
    /// Bytes from one Cr row to the next.
    public var vStride: Int

    /// Creates a view over three planes.
    /// - Parameters:
    ///   - width: picture width in pixels.
    ///   - height: picture height in pixels.
    ///   - y: luma plane; `yStride` bytes per row, `height` rows.
    ///   - yStride: luma row pitch in bytes.
    ///   - u: Cb plane; `uStride` bytes per row, `(height + 1) / 2` rows.
    ///   - uStride: Cb row pitch in bytes.
    ///   - v: Cr plane; `vStride` bytes per row, `(height + 1) / 2` rows.
    ///   - vStride: Cr row pitch in bytes.
    public init(
        width: Int, height: Int,
        y: UnsafePointer<UInt8>, yStride: Int,
        u: UnsafePointer<UInt8>, uStride: Int,
        v: UnsafePointer<UInt8>, vStride: Int
    ) {
        self.width = width
        self.height = height
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
    }

    /// Width of each chroma plane in samples.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Height of each chroma plane in rows.
    public var chromaHeight: Int { (height + 1) / 2 }
}

extension I420Planes {
    /// Copies the picture row by row into another picture's three planes (a pooled pixel buffer's), whose rows may
    /// be longer.
    /// - Parameter destination: plane 0 (Y), 1 (U) or 2 (V)'s base address and bytes per row, or nil if it has none.
    /// - Returns: false when a plane has no destination (the planes before it were copied).
    public func copy(to destination: (Int) -> (base: UnsafeMutableRawPointer, stride: Int)?) -> Bool {
        let planes = [(y, yStride, width, height), (u, uStride, chromaWidth, chromaHeight),
                      (v, vStride, chromaWidth, chromaHeight)]
        for (index, (source, stride, rowBytes, rows)) in planes.enumerated() {
            guard let (base, destinationStride) = destination(index) else { return false }
            for row in 0..<rows {
                (base + row * destinationStride).copyMemory(from: source + row * stride, byteCount: rowBytes)
            }
        }
        return true
    }
}
