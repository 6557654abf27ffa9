import Media

/// Copies packed planes (rows back to back) into a frame's padded planes.
enum PlaneCopy {
    /// Copies packed I420 (Y, U, V with rows of `width` and `(width + 1) / 2` bytes) into an I420 frame.
    /// - Precondition: `bytes` holds at least a whole packed frame of the frame's size.
    static func copyPackedI420(_ bytes: UnsafeRawBufferPointer, into frame: inout VideoFrame) {
        precondition(frame.format == .i420, "copyPackedI420 needs an I420 frame")
        frame.withUnsafeMutablePlanes { planes in
            var offset = 0
            for plane in 0..<3 {
                let rowBytes = planes.layout.rowBytes(ofPlane: plane)
                let rows = planes.layout.rows(ofPlane: plane)
                precondition(bytes.count >= offset + rowBytes * rows, "packed I420 data is too short")
                let destination = planes.baseAddress(ofPlane: plane)
                let stride = planes.stride(ofPlane: plane)
                for row in 0..<rows {
                    (destination + row * stride).update(
                        from: bytes.baseAddress!.advanced(by: offset + row * rowBytes)
                            .assumingMemoryBound(to: UInt8.self),
                        count: rowBytes)
                }
                offset += rowBytes * rows
            }
        }
    }
}
