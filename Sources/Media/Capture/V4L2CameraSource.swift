#if canImport(CV4L2)
import CV4L2
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import Media

/// Captures a V4L2 camera (`/dev/videoN`) with mmap streaming into pooled I420 frames.
///
/// `init` negotiates the format (I420, NV12 or YUYV near the wanted size), asks for the frame rate, maps
/// ``bufferCount`` kernel buffers and starts streaming; ``nextFrame(pts:)`` waits for the next filled buffer,
/// converts it and gives the buffer back to the driver. Not thread-safe: use from one thread or actor.
public final class V4L2CameraSource: CameraSource {
    /// How many kernel buffers are mapped (enough to absorb scheduling hiccups at 30 fps).
    public static let bufferCount = 4
    /// How long ``nextFrame(pts:)`` waits for a frame before reporting the camera as stalled.
    public static let frameTimeoutMilliseconds: Int32 = 2_000

    /// The device path.
    public let path: String
    /// The format the driver accepted.
    public let format: V4L2Negotiation.StreamFormat
    /// The frame rate asked for (the driver may deliver another).
    public let frameRate: Double
    private let descriptor: Int32
    private var mappings: [(address: UnsafeMutableRawPointer, length: Int)] = []
    private let pool: FramePool

    /// Opens and starts a camera.
    /// - Parameters:
    ///   - path: the device node, e.g. `/dev/video0`.
    ///   - width: the wanted width (the nearest offered size is used).
    ///   - height: the wanted height.
    ///   - frameRate: the wanted frames per second.
    ///   - poolSize: how many frames may be alive downstream.
    /// - Throws: ``CaptureError`` when the device is missing, busy, not a camera, or offers no usable format.
    public init(path: String, width: Int = 1280, height: Int = 720, frameRate: Double = 30,
                poolSize: Int = 4) throws(CaptureError) {
        self.path = path
        self.frameRate = frameRate
        let info = try V4L2DeviceLister.describe(path: path)
        guard info.canCapture, info.canStream else {
            throw CaptureError.camera("\(path) (\(info.name)) is not a streaming video capture device")
        }
        guard let choice = V4L2Negotiation.choose(from: info.formats, width: width, height: height) else {
            throw CaptureError.camera("\(path) (\(info.name)) offers only \(info.formats.map(\.fourCC)); "
                                          + "YUYV, NV12 or YU12 is needed")
        }
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CaptureError.camera("cannot open camera \(path): \(String(cString: strerror(errno)))")
        }
        do throws(CaptureError) {
            var request = V4L2Negotiation.formatRequest(fourCC: choice.fourCC, width: choice.size.width,
                                                        height: choice.size.height)
            try Self.control(descriptor, stream_vidioc_s_fmt(), &request, "set the format of \(path)")
            format = try V4L2Negotiation.acceptedFormat(request)
            var parameters = v4l2_streamparm()
            parameters.type = V4L2Negotiation.bufferTypeVideoCapture
            parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1000,
                                                              denominator: UInt32(max(1, frameRate * 1000)))
            _ = stream_v4l2_ioctl(descriptor, stream_vidioc_s_parm(), &parameters)  // best effort: not all drivers
            var buffers = V4L2Negotiation.bufferRequest(count: Self.bufferCount)
            try Self.control(descriptor, stream_vidioc_reqbufs(), &buffers, "allocate buffers on \(path)")
            guard buffers.count > 0 else { throw CaptureError.camera("\(path) granted no capture buffers") }
            pool = FramePool(format: .i420, width: format.width, height: format.height, maxCount: max(1, poolSize))
            for index in 0..<Int(buffers.count) {
                var buffer = V4L2Negotiation.buffer(index: index)
                try Self.control(descriptor, stream_vidioc_querybuf(), &buffer, "query buffer \(index) of \(path)")
                let length = Int(buffer.length)
                let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor,
                                   off_t(buffer.m.offset))
                guard let address, address != MAP_FAILED else {
                    let reason = String(cString: strerror(errno))
                    throw CaptureError.camera("cannot map buffer \(index) of \(path): \(reason)")
                }
                mappings.append((address, length))
                try Self.control(descriptor, stream_vidioc_qbuf(), &buffer, "queue buffer \(index) of \(path)")
            }
            var type = Int32(V4L2Negotiation.bufferTypeVideoCapture)
            try Self.control(descriptor, stream_vidioc_streamon(), &type, "start streaming \(path)")
        } catch {
            for mapping in mappings { munmap(mapping.address, mapping.length) }
            close(descriptor)
            throw error
        }
    }

    deinit {
        var type = Int32(V4L2Negotiation.bufferTypeVideoCapture)
        _ = stream_v4l2_ioctl(descriptor, stream_vidioc_streamoff(), &type)
        for mapping in mappings { munmap(mapping.address, mapping.length) }
        close(descriptor)
    }

    /// Width of the frames in pixels.
    public var width: Int { format.width }
    /// Height of the frames in pixels.
    public var height: Int { format.height }
    /// Pool counters (allocations, reuse, exhaustions).
    public var poolStatistics: PoolStatistics { pool.statistics }
    /// True: reads wait for the camera's next frame.
    public var pacesItself: Bool { true }

    /// Waits for the next frame, converts it to I420 and returns the kernel buffer to the driver.
    /// - Throws: ``CaptureError`` when the camera stalls, is unplugged, or breaks the buffer protocol.
    public func nextFrame(pts: Int64) throws(CaptureError) -> CameraRead {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Self.frameTimeoutMilliseconds)
        guard ready > 0 else {
            if ready < 0 && errno == EINTR { return .dropped }
            throw CaptureError.camera("camera \(path) sent no frame for \(Self.frameTimeoutMilliseconds) ms; "
                                          + "is it unplugged or used by another program?")
        }
        var buffer = V4L2Negotiation.buffer(index: 0)
        try Self.control(descriptor, stream_vidioc_dqbuf(), &buffer, "dequeue a frame from \(path)")
        defer { _ = stream_v4l2_ioctl(descriptor, stream_vidioc_qbuf(), &buffer) }
        guard let filled = try V4L2Negotiation.dequeued(buffer, mappedLengths: mappings.map(\.length),
                                                        format: format)
        else { return .dropped }
        guard var frame = pool.makeFrame(pts: pts) else { return .dropped }
        let bytes = UnsafeRawBufferPointer(start: mappings[filled.index].address, count: filled.byteCount)
        try V4L2FrameConverter.convert(bytes, format: format, into: &frame)
        return .frame(frame)
    }

    /// Runs one ioctl, turning failure into an error naming `what`.
    static func control(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer,
                        _ what: String) throws(CaptureError) {
        guard stream_v4l2_ioctl(descriptor, request, argument) == 0 else {
            throw CaptureError.camera("cannot \(what): \(String(cString: strerror(errno)))")
        }
    }
}
#endif
