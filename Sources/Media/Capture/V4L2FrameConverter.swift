#if canImport(CV4L2)
import CYUV
import Media

/// Converts one captured V4L2 frame (YUYV, NV12 or I420 with the driver's row padding) into an I420 frame.
public enum V4L2FrameConverter {
    /// Converts `bytes` laid out as `format` into `frame`.
    /// - Precondition: `frame` is I420 at the format's size and uniquely referenced; `bytes` holds a whole frame
    ///   (``V4L2Negotiation/dequeued(_:mappedLengths:format:)`` checks that).
    /// - Throws: ``CaptureError`` when libyuv refuses the sizes.
    public static func convert(_ bytes: UnsafeRawBufferPointer, format: V4L2Negotiation.StreamFormat,
                               into frame: inout VideoFrame) throws(CaptureError) {
        precondition(frame.format == .i420 && frame.width == format.width && frame.height == format.height,
                     "\(frame.layout) cannot hold a \(format.width)x\(format.height) camera frame")
        let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let line = Int32(format.bytesPerLine)
        let width = Int32(format.width)
        let height = Int32(format.height)
        let chroma = source + format.bytesPerLine * format.height
        let status: Int32 = frame.withUnsafeMutablePlanes { planes in
            let y = planes.baseAddress(ofPlane: 0)
            let u = planes.baseAddress(ofPlane: 1)
            let v = planes.baseAddress(ofPlane: 2)
            let yStride = Int32(planes.stride(ofPlane: 0))
            let uStride = Int32(planes.stride(ofPlane: 1))
            let vStride = Int32(planes.stride(ofPlane: 2))
            switch format.fourCC {
            case .yuyv:
                return YUY2ToI420(source, line, y, yStride, u, uStride, v, vStride, width, height)
            case .nv12:
                return NV12ToI420(source, line, chroma, line, y, yStride, u, uStride, v, vStride, width, height)
            default:
                // I420: the chroma planes follow with half the luma padding.
                let chromaLine = (format.bytesPerLine + 1) / 2
                let vPlane = chroma + chromaLine * ((format.height + 1) / 2)
                return I420Copy(source, line, chroma, Int32(chromaLine), vPlane, Int32(chromaLine),
                                y, yStride, u, uStride, v, vStride, width, height)
            }
        }
        guard status == 0 else {
            throw CaptureError.camera("converting a \(format.width)x\(format.height) \(format.fourCC) camera frame "
                                          + "failed (libyuv status \(status))")
        }
    }
}
#endif
