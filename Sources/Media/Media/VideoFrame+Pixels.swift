/// Single-pixel reads and whole-frame fills, for tests and checks (not for hot paths).
extension VideoFrame {
    /// The pixel at (`x`, `y`) of a BGRA frame.
    /// - Precondition: the frame is BGRA and the point is inside it.
    public func bgra(x: Int, y: Int) -> BGRAColor {
        precondition(format == .bgra, "bgra(x:y:) needs a BGRA frame, not \(format)")
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) is outside \(layout)")
        return withUnsafePlanes { planes in
            let pixel = planes.baseAddress(ofPlane: 0) + y * planes.stride(ofPlane: 0) + x * 4
            return BGRAColor(b: pixel[0], g: pixel[1], r: pixel[2], a: pixel[3])
        }
    }

    /// The luma at (`x`, `y`) and the chroma of the 2×2 block containing it, for an I420 or NV12 frame.
    /// - Precondition: the frame is I420 or NV12 and the point is inside it.
    public func yuv(x: Int, y: Int) -> YUVColor {
        precondition(format != .bgra, "yuv(x:y:) needs an I420 or NV12 frame, not \(format)")
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) is outside \(layout)")
        let format = format
        return withUnsafePlanes { planes in
            let luma = planes.baseAddress(ofPlane: 0)[y * planes.stride(ofPlane: 0) + x]
            let chromaRow = y / 2 * planes.stride(ofPlane: 1)
            if format == .nv12 {
                let pair = planes.baseAddress(ofPlane: 1) + chromaRow + x / 2 * 2
                return YUVColor(y: luma, u: pair[0], v: pair[1])
            }
            let u = planes.baseAddress(ofPlane: 1)[chromaRow + x / 2]
            let v = planes.baseAddress(ofPlane: 2)[y / 2 * planes.stride(ofPlane: 2) + x / 2]
            return YUVColor(y: luma, u: u, v: v)
        }
    }

    /// Paints every pixel of a BGRA frame with `color`.
    /// - Precondition: the frame is BGRA and uniquely referenced.
    public mutating func fill(_ color: BGRAColor) {
        precondition(format == .bgra, "fill(BGRAColor) needs a BGRA frame, not \(format)")
        let word = color.word
        withUnsafeMutablePlanes { planes in
            for row in 0..<planes.layout.height {
                let start = UnsafeMutableRawPointer(planes.baseAddress(ofPlane: 0) + row * planes.stride(ofPlane: 0))
                start.assumingMemoryBound(to: UInt32.self).update(repeating: word, count: planes.layout.width)
            }
        }
    }

    /// Paints every pixel of an I420 or NV12 frame with `color`.
    /// - Precondition: the frame is I420 or NV12 and uniquely referenced.
    public mutating func fill(_ color: YUVColor) {
        precondition(format != .bgra, "fill(YUVColor) needs an I420 or NV12 frame, not \(format)")
        withUnsafeMutablePlanes { planes in
            planes.fillRect(x: 0, y: 0, width: planes.layout.width, height: planes.layout.height, color: color)
        }
    }
}

extension MutableVideoPlanes {
    /// Paints a rectangle of an I420 or NV12 frame. Chroma covers the 2×2 blocks the rectangle touches.
    func fillRect(x: Int, y: Int, width: Int, height: Int, color: YUVColor) {
        let luma = baseAddress(ofPlane: 0)
        let lumaStride = stride(ofPlane: 0)
        for row in y..<(y + height) {
            (luma + row * lumaStride + x).update(repeating: color.y, count: width)
        }
        let chromaX = x / 2
        let chromaWidth = (x + width + 1) / 2 - chromaX
        let chromaRows = (y / 2)..<((y + height + 1) / 2)
        if layout.format == .nv12 {
            let pair = UInt16(color.u) | UInt16(color.v) << 8
            let plane = baseAddress(ofPlane: 1)
            for row in chromaRows {
                let start = UnsafeMutableRawPointer(plane + row * stride(ofPlane: 1) + chromaX * 2)
                start.assumingMemoryBound(to: UInt16.self).update(repeating: pair, count: chromaWidth)
            }
        } else {
            for row in chromaRows {
                (baseAddress(ofPlane: 1) + row * stride(ofPlane: 1) + chromaX)
                    .update(repeating: color.u, count: chromaWidth)
                (baseAddress(ofPlane: 2) + row * stride(ofPlane: 2) + chromaX)
                    .update(repeating: color.v, count: chromaWidth)
            }
        }
    }

    /// Paints a rectangle of a BGRA frame.
    func fillRect(x: Int, y: Int, width: Int, height: Int, color: BGRAColor) {
        let word = color.word
        let plane = baseAddress(ofPlane: 0)
        let rowStride = stride(ofPlane: 0)
        for row in y..<(y + height) {
            let start = UnsafeMutableRawPointer(plane + row * rowStride + x * 4)
            start.assumingMemoryBound(to: UInt32.self).update(repeating: word, count: width)
        }
    }
}
