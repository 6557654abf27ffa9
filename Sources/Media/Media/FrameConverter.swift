#if canImport(CYUV)
import CYUV

/// Pixel format conversion, scaling and mirroring through libyuv, writing into frames the caller owns (typically
/// from a ``FramePool``), so nothing is allocated per frame.
///
/// One-step operations: BGRA→I420, NV12→I420, I420→BGRA and I420→I420/BGRA→BGRA copies at equal sizes;
/// I420→I420 and BGRA→BGRA scaling; I420 horizontal mirroring. ``EncodeFrameConverter`` chains them for the rest.
/// YUV is BT.601 limited range, as x264 expects by default.
public enum FrameConverter {
    /// Converts and/or scales `source` into `destination`, and copies the timestamp.
    /// - Parameters:
    ///   - source: the input frame.
    ///   - destination: a uniquely referenced frame of the wanted format and size.
    ///   - filter: the scaling filter, used only when the sizes differ.
    /// - Throws: ``MediaError`` when the pair of formats needs more than one step, or libyuv fails.
    public static func convert(_ source: VideoFrame, into destination: inout VideoFrame,
                               filter: ScaleFilter = .bilinear) throws(MediaError) {
        let sameSize = source.width == destination.width && source.height == destination.height
        let width = Int32(source.width)
        let height = Int32(source.height)
        let status: Int32
        let function: String
        switch (source.format, destination.format, sameSize) {
        case (.bgra, .i420, true):
            function = "ARGBToI420"
            status = withPlanes(of: source, into: &destination) { src, dst in
                ARGBToI420(src.baseAddress(ofPlane: 0), src.stride32(0),
                           dst.baseAddress(ofPlane: 0), dst.stride32(0),
                           dst.baseAddress(ofPlane: 1), dst.stride32(1),
                           dst.baseAddress(ofPlane: 2), dst.stride32(2), width, height)
            }
        case (.nv12, .i420, true):
            function = "NV12ToI420"
            status = withPlanes(of: source, into: &destination) { src, dst in
                NV12ToI420(src.baseAddress(ofPlane: 0), src.stride32(0),
                           src.baseAddress(ofPlane: 1), src.stride32(1),
                           dst.baseAddress(ofPlane: 0), dst.stride32(0),
                           dst.baseAddress(ofPlane: 1), dst.stride32(1),
                           dst.baseAddress(ofPlane: 2), dst.stride32(2), width, height)
            }
        case (.i420, .bgra, true):
            function = "I420ToARGB"
            status = withPlanes(of: source, into: &destination) { src, dst in
                I420ToARGB(src.baseAddress(ofPlane: 0), src.stride32(0),
                           src.baseAddress(ofPlane: 1), src.stride32(1),
                           src.baseAddress(ofPlane: 2), src.stride32(2),
                           dst.baseAddress(ofPlane: 0), dst.stride32(0), width, height)
            }
        case (.i420, .i420, _):
            function = "I420Scale"
            let dstWidth = Int32(destination.width)
            let dstHeight = Int32(destination.height)
            status = withPlanes(of: source, into: &destination) { src, dst in
                I420Scale(src.baseAddress(ofPlane: 0), src.stride32(0),
                          src.baseAddress(ofPlane: 1), src.stride32(1),
                          src.baseAddress(ofPlane: 2), src.stride32(2), width, height,
                          dst.baseAddress(ofPlane: 0), dst.stride32(0),
                          dst.baseAddress(ofPlane: 1), dst.stride32(1),
                          dst.baseAddress(ofPlane: 2), dst.stride32(2), dstWidth, dstHeight,
                          filter.libyuv)
            }
        case (.bgra, .bgra, _):
            function = "ARGBScale"
            let dstWidth = Int32(destination.width)
            let dstHeight = Int32(destination.height)
            status = withPlanes(of: source, into: &destination) { src, dst in
                ARGBScale(src.baseAddress(ofPlane: 0), src.stride32(0), width, height,
                          dst.baseAddress(ofPlane: 0), dst.stride32(0), dstWidth, dstHeight, filter.libyuv)
            }
        case (.bgra, .i420, false), (.nv12, .i420, false), (.i420, .bgra, false), (.bgra, .nv12, _),
             (.i420, .nv12, _), (.nv12, .nv12, _), (.nv12, .bgra, _):
            throw .unsupportedConversion(from: source.format, to: destination.format, scaling: !sameSize)
        }
        guard status == 0 else { throw .libyuv(function, returned: status) }
        destination.pts = source.pts
    }

    /// Writes `source` flipped left-to-right into `destination` (the front camera's selfie view).
    /// - Throws: ``MediaError`` unless both are I420 of the same size, or when libyuv fails.
    public static func mirror(_ source: VideoFrame, into destination: inout VideoFrame) throws(MediaError) {
        guard source.format == .i420, destination.format == .i420 else {
            throw .unsupportedConversion(from: source.format, to: destination.format, scaling: false)
        }
        guard source.width == destination.width, source.height == destination.height else {
            throw .sizeMismatch("mirror destination", expected: (source.width, source.height),
                                actual: (destination.width, destination.height))
        }
        let width = Int32(source.width)
        let height = Int32(source.height)
        let status = withPlanes(of: source, into: &destination) { src, dst in
            I420Mirror(src.baseAddress(ofPlane: 0), src.stride32(0),
                       src.baseAddress(ofPlane: 1), src.stride32(1),
                       src.baseAddress(ofPlane: 2), src.stride32(2),
                       dst.baseAddress(ofPlane: 0), dst.stride32(0),
                       dst.baseAddress(ofPlane: 1), dst.stride32(1),
                       dst.baseAddress(ofPlane: 2), dst.stride32(2), width, height)
        }
        guard status == 0 else { throw .libyuv("I420Mirror", returned: status) }
        destination.pts = source.pts
    }

    /// Calls `body` with the planes of `source`, to read, and of `destination`, to write: the libyuv call that
    /// converts one into the other.
    private static func withPlanes(of source: VideoFrame, into destination: inout VideoFrame,
                                   _ body: (VideoPlanes, MutableVideoPlanes) -> Int32) -> Int32 {
        source.withUnsafePlanes { src in
            destination.withUnsafeMutablePlanes { dst in body(src, dst) }
        }
    }
}

extension ScaleFilter {
    var libyuv: FilterMode {
        switch self {
        case .none: kFilterNone
        case .linear: kFilterLinear
        case .bilinear: kFilterBilinear
        case .box: kFilterBox
        }
    }
}

extension VideoPlanes {
    /// A plane's stride as libyuv's `int` (strides are bounded by `FrameLayout.maximumDimension`).
    func stride32(_ plane: Int) -> Int32 { Int32(stride(ofPlane: plane)) }
}

extension MutableVideoPlanes {
    /// A plane's stride as libyuv's `int` (strides are bounded by `FrameLayout.maximumDimension`).
    func stride32(_ plane: Int) -> Int32 { Int32(stride(ofPlane: plane)) }
}
#endif
