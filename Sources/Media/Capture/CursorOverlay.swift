import Media

/// Draws a pointer image (X11 XFixes format: premultiplied ARGB words) over a BGRA frame.
public enum CursorOverlay {
    /// Blends `pixels` (`width` × `height` premultiplied ARGB, one `UInt32` per pixel) onto `frame` with its
    /// top-left corner at (`x`, `y`) in frame coordinates; parts outside the frame are clipped.
    /// - Precondition: `frame` is BGRA and uniquely referenced; `pixels` holds `width * height` words.
    public static func draw(_ pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, x: Int, y: Int,
                            into frame: inout VideoFrame) {
        precondition(frame.format == .bgra, "the cursor is drawn on BGRA frames")
        precondition(pixels.count >= width * height, "cursor image is smaller than its size")
        let left = max(0, x)
        let top = max(0, y)
        let right = min(frame.width, x + width)
        let bottom = min(frame.height, y + height)
        guard left < right, top < bottom else { return }
        frame.withUnsafeMutablePlanes { planes in
            let stride = planes.stride(ofPlane: 0)
            let base = planes.baseAddress(ofPlane: 0)
            for row in top..<bottom {
                let destination = UnsafeMutableRawPointer(base + row * stride).assumingMemoryBound(to: UInt32.self)
                let sourceRow = (row - y) * width
                for column in left..<right {
                    let source = pixels[sourceRow + column - x]
                    let alpha = source >> 24
                    if alpha == 0 && source == 0 { continue }
                    destination[column] = blend(source, over: destination[column], alpha: alpha)
                }
            }
        }
    }

    /// `source + destination × (255 − alpha) / 255` per channel, for a premultiplied source; the result is opaque
    /// when the destination was.
    static func blend(_ source: UInt32, over destination: UInt32, alpha: UInt32) -> UInt32 {
        let inverse = 255 - alpha
        var result: UInt32 = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let s = (source >> shift) & 0xFF
            let d = (destination >> shift) & 0xFF
            let mixed = min(255, s + (d * inverse + 127) / 255)
            result |= mixed << shift
        }
        return result
    }
}
