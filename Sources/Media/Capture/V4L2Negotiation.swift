#if canImport(CV4L2)
import CV4L2

/// The pure half of V4L2 capture: reading the kernel's structs, choosing a format, checking what the driver
/// accepted and what it dequeued. The device class only runs ioctls and feeds these.
public enum V4L2Negotiation {
    /// `V4L2_BUF_TYPE_VIDEO_CAPTURE` (videodev2.h).
    public static let bufferTypeVideoCapture: UInt32 = 1
    /// `V4L2_MEMORY_MMAP`.
    public static let memoryMMap: UInt32 = 1
    /// `V4L2_CAP_VIDEO_CAPTURE`.
    public static let capabilityVideoCapture: UInt32 = 0x0000_0001
    /// `V4L2_CAP_STREAMING`.
    public static let capabilityStreaming: UInt32 = 0x0400_0000
    /// `V4L2_CAP_DEVICE_CAPS`: `device_caps` is valid and describes this node.
    public static let capabilityDeviceCaps: UInt32 = 0x8000_0000
    /// `V4L2_FMT_FLAG_COMPRESSED`.
    public static let formatFlagCompressed: UInt32 = 0x0001
    /// `V4L2_FRMSIZE_TYPE_DISCRETE`, `CONTINUOUS`, `STEPWISE`.
    public static let frameSizeDiscrete: UInt32 = 1
    /// `V4L2_FRMSIZE_TYPE_CONTINUOUS`.
    public static let frameSizeContinuous: UInt32 = 2
    /// `V4L2_FRMSIZE_TYPE_STEPWISE`.
    public static let frameSizeStepwise: UInt32 = 3
    /// `V4L2_BUF_FLAG_ERROR`: the frame was captured with errors (drop it, requeue the buffer).
    public static let bufferFlagError: UInt32 = 0x0040
    /// `V4L2_FIELD_NONE`: progressive frames.
    public static let fieldNone: UInt32 = 1

    /// The accepted capture format, as the driver set it.
    public struct StreamFormat: Sendable, Hashable {
        /// The pixel format.
        public var fourCC: V4L2FourCC
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Bytes per row of the first plane (the driver may pad).
        public var bytesPerLine: Int
        /// Bytes of a whole frame.
        public var imageSize: Int
    }

    /// The identity and capabilities from `VIDIOC_QUERYCAP`.
    /// - Returns: name, driver, bus, whether the node captures video and streams, using `device_caps` when the
    ///   driver fills it (a camera's metadata node shares the card's `capabilities`).
    public static func capabilities(_ capability: v4l2_capability)
        -> (name: String, driver: String, busInfo: String, canCapture: Bool, canStream: Bool) {
        var copy = capability
        let caps = capability.capabilities & capabilityDeviceCaps != 0 ? capability.device_caps
            : capability.capabilities
        return (string(&copy.card), string(&copy.driver), string(&copy.bus_info),
                caps & capabilityVideoCapture != 0, caps & capabilityStreaming != 0)
    }

    /// One entry of `VIDIOC_ENUM_FMT`.
    public static func format(_ description: v4l2_fmtdesc, sizes: [V4L2FrameSize]) -> V4L2DeviceInfo.Format {
        var copy = description
        return V4L2DeviceInfo.Format(fourCC: V4L2FourCC(rawValue: description.pixelformat).description,
                                     description: string(&copy.description),
                                     isCompressed: description.flags & formatFlagCompressed != 0, sizes: sizes)
    }

    /// One entry of `VIDIOC_ENUM_FRAMESIZES`: a discrete size, or the smallest and largest of a range.
    public static func frameSizes(_ entry: v4l2_frmsizeenum) -> [V4L2FrameSize] {
        switch entry.type {
        case frameSizeDiscrete:
            let size = entry.discrete
            return [V4L2FrameSize(width: Int(size.width), height: Int(size.height))]
        case frameSizeContinuous, frameSizeStepwise:
            let range = entry.stepwise
            return [V4L2FrameSize(width: Int(range.min_width), height: Int(range.min_height)),
                    V4L2FrameSize(width: Int(range.max_width), height: Int(range.max_height))]
        default:
            return []
        }
    }

    /// Picks the format and size to ask for: a supported uncompressed format (I420, then NV12, then YUYV), at the
    /// offered size nearest to the wanted one (by area, then by aspect).
    /// - Returns: nil when the device offers none of the supported formats.
    public static func choose(from formats: [V4L2DeviceInfo.Format], width: Int,
                              height: Int) -> (fourCC: V4L2FourCC, size: V4L2FrameSize)? {
        for wanted in V4L2FourCC.supported {
            guard let format = formats.first(where: { $0.fourCC == wanted.description }) else { continue }
            let target = V4L2FrameSize(width: width, height: height)
            let best = format.sizes.min { distance($0, target) < distance($1, target) } ?? target
            return (wanted, best)
        }
        return nil
    }

    /// The `VIDIOC_S_FMT` request for a progressive capture of `fourCC` at `width` × `height`.
    public static func formatRequest(fourCC: V4L2FourCC, width: Int, height: Int) -> v4l2_format {
        var format = v4l2_format()
        format.type = bufferTypeVideoCapture
        format.fmt.pix.width = UInt32(clamping: width)
        format.fmt.pix.height = UInt32(clamping: height)
        format.fmt.pix.pixelformat = fourCC.rawValue
        format.fmt.pix.field = fieldNone
        return format
    }

    /// Checks the format the driver wrote back after `VIDIOC_S_FMT` (it may change size, padding or even format).
    /// - Throws: ``CaptureError`` when the format is unsupported or the sizes cannot hold a frame.
    public static func acceptedFormat(_ format: v4l2_format) throws(CaptureError) -> StreamFormat {
        let pix = format.fmt.pix
        let fourCC = V4L2FourCC(rawValue: pix.pixelformat)
        guard format.type == bufferTypeVideoCapture, V4L2FourCC.supported.contains(fourCC) else {
            let supported = V4L2FourCC.supported.map(\.description).joined(separator: ", ")
            throw CaptureError.camera("the camera switched to format \(fourCC), which cannot be converted; "
                                          + "supported: \(supported)")
        }
        let width = Int(pix.width)
        let height = Int(pix.height)
        guard (2...16_384).contains(width), (2...16_384).contains(height) else {
            throw CaptureError.camera("the camera set an unusable frame size \(width)x\(height)")
        }
        let minimumLine = fourCC == .yuyv ? width * 2 : width
        let bytesPerLine = max(Int(pix.bytesperline), minimumLine)
        let needed = fourCC == .yuyv ? bytesPerLine * height : bytesPerLine * height + bytesPerLine * ((height + 1) / 2)
        let imageSize = Int(pix.sizeimage)
        guard imageSize >= needed || imageSize == 0 else {
            throw CaptureError.camera("the camera's \(width)x\(height) \(fourCC) frames are \(imageSize) bytes, "
                                          + "less than the \(needed) they need")
        }
        return StreamFormat(fourCC: fourCC, width: width, height: height, bytesPerLine: bytesPerLine,
                            imageSize: max(imageSize, needed))
    }

    /// The `VIDIOC_REQBUFS` request for `count` mmap buffers.
    public static func bufferRequest(count: Int) -> v4l2_requestbuffers {
        var request = v4l2_requestbuffers()
        request.count = UInt32(clamping: count)
        request.type = bufferTypeVideoCapture
        request.memory = memoryMMap
        return request
    }

    /// An empty `v4l2_buffer` for `VIDIOC_QUERYBUF`, `QBUF` or `DQBUF` of mmap capture buffer `index`.
    public static func buffer(index: Int) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.type = bufferTypeVideoCapture
        buffer.memory = memoryMMap
        buffer.index = UInt32(clamping: index)
        return buffer
    }

    /// Checks a dequeued buffer against the buffers we mapped.
    /// - Parameters:
    ///   - buffer: what `VIDIOC_DQBUF` returned.
    ///   - mappedLengths: the length of each mapped buffer, by index.
    ///   - format: the accepted format.
    /// - Returns: the index and the bytes to convert, or nil for a frame flagged as broken (requeue it, skip it).
    /// - Throws: ``CaptureError`` when the driver names a buffer we do not have or overruns it.
    public static func dequeued(_ buffer: v4l2_buffer, mappedLengths: [Int],
                                format: StreamFormat) throws(CaptureError) -> (index: Int, byteCount: Int)? {
        let index = Int(buffer.index)
        guard buffer.type == bufferTypeVideoCapture, buffer.memory == memoryMMap,
              mappedLengths.indices.contains(index)
        else {
            throw CaptureError.camera("the camera returned buffer \(index), which was never queued")
        }
        let used = Int(buffer.bytesused)
        guard used <= mappedLengths[index] else {
            throw CaptureError.camera("the camera filled \(used) bytes into a \(mappedLengths[index])-byte buffer")
        }
        if buffer.flags & bufferFlagError != 0 { return nil }
        let needed = format.fourCC == .yuyv ? format.bytesPerLine * format.height
            : format.bytesPerLine * format.height + format.bytesPerLine * ((format.height + 1) / 2)
        // A short frame (a USB hiccup) is skipped like a flagged one.
        guard used >= needed || (used == 0 && mappedLengths[index] >= needed) else { return nil }
        return (index, used == 0 ? needed : used)
    }

    private static func distance(_ size: V4L2FrameSize, _ target: V4L2FrameSize) -> (Int, Double) {
        let area = abs(size.width * size.height - target.width * target.height)
        let aspect = abs(Double(size.width) / Double(size.height) - Double(target.width) / Double(target.height))
        return (area, aspect)
    }

    private static func string<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
#endif
