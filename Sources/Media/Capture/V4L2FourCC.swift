/// A V4L2 pixel format code: four ASCII characters packed little-endian (`v4l2_fourcc('Y','U','Y','V')`).
public struct V4L2FourCC: Sendable, Hashable, CustomStringConvertible {
    /// The packed code as the kernel stores it.
    public let rawValue: UInt32

    /// Wraps a code from a kernel struct.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Packs four ASCII characters.
    /// - Precondition: `text` is exactly four ASCII characters.
    public init(_ text: StaticString) {
        let bytes = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        precondition(bytes.count == 4, "a fourcc has four characters")
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    /// Packed YUV 4:2:2, Y0 U Y1 V (what most USB webcams send uncompressed).
    public static let yuyv = V4L2FourCC("YUYV")
    /// Bi-planar YUV 4:2:0: a Y plane, then interleaved U, V.
    public static let nv12 = V4L2FourCC("NV12")
    /// Planar YUV 4:2:0.
    public static let yuv420 = V4L2FourCC("YU12")
    /// Motion JPEG (not decoded here).
    public static let mjpeg = V4L2FourCC("MJPG")

    /// The formats this capture converts, in order of preference (no conversion cost first).
    public static let supported: [V4L2FourCC] = [.yuv420, .nv12, .yuyv]

    /// The four characters, e.g. `YUYV` (non-printable bytes as `.`).
    public var description: String {
        String(decoding: (0..<4).map { index -> UInt8 in
            let byte = UInt8(truncatingIfNeeded: rawValue >> (8 * index))
            return (0x20...0x7E).contains(byte) ? byte : UInt8(ascii: ".")
        }, as: UTF8.self)
    }
}
