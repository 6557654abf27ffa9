/// The memory layout of a video frame's pixels.
public enum PixelFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 32-bit pixels stored B, G, R, A in memory (X11 ZPixmap, iOS `kCVPixelFormatType_32BGRA`).
    /// libyuv calls this byte order "ARGB" because it names formats by a little-endian 32-bit word.
    case bgra
    /// Planar YUV 4:2:0 (BT.601 limited range here): a full-size Y plane, then quarter-size U and V planes.
    /// This is what x264 encodes.
    case i420
    /// Bi-planar YUV 4:2:0: a full-size Y plane, then one quarter-size plane of interleaved U, V pairs
    /// (the iOS camera's `420v`/`420f`).
    case nv12

    /// How many separate planes a frame of this format has.
    public var planeCount: Int {
        switch self {
        case .bgra: 1
        case .i420: 3
        case .nv12: 2
        }
    }

    /// The format's conventional short name.
    public var description: String {
        switch self {
        case .bgra: "BGRA"
        case .i420: "I420"
        case .nv12: "NV12"
        }
    }
}
