#if canImport(CV4L2)
import CV4L2
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Finds V4L2 cameras (`/dev/video*`) and describes their formats and sizes.
public enum V4L2DeviceLister {
    /// Every `/dev/videoN` node that captures video, sorted by number; unreadable nodes are skipped.
    /// - Parameter directory: where device nodes live (tests may point elsewhere).
    public static func list(directory: String = "/dev") -> [V4L2DeviceInfo] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let nodes = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, "\(directory)/\(name)")
        }.sorted { $0.0 < $1.0 }
        return nodes.compactMap { try? describe(path: $0.1) }.filter(\.canCapture)
    }

    /// Queries one device: capabilities, formats and frame sizes.
    /// - Throws: ``CaptureError`` when it cannot be opened or is not a V4L2 device.
    public static func describe(path: String) throws(CaptureError) -> V4L2DeviceInfo {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CaptureError.camera("cannot open camera \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var capability = v4l2_capability()
        try V4L2CameraSource.control(descriptor, stream_vidioc_querycap(), &capability,
                                     "query \(path) (is it a V4L2 device?)")
        let identity = V4L2Negotiation.capabilities(capability)
        var formats: [V4L2DeviceInfo.Format] = []
        var description = v4l2_fmtdesc()
        description.type = V4L2Negotiation.bufferTypeVideoCapture
        while identity.canCapture, stream_v4l2_ioctl(descriptor, stream_vidioc_enum_fmt(), &description) == 0 {
            var sizes: [V4L2FrameSize] = []
            var size = v4l2_frmsizeenum()
            size.pixel_format = description.pixelformat
            while stream_v4l2_ioctl(descriptor, stream_vidioc_enum_framesizes(), &size) == 0 {
                sizes += V4L2Negotiation.frameSizes(size)
                if size.type != V4L2Negotiation.frameSizeDiscrete { break }
                size.index += 1
            }
            formats.append(V4L2Negotiation.format(description, sizes: sizes))
            description.index += 1
        }
        return V4L2DeviceInfo(path: path, name: identity.name, driver: identity.driver, busInfo: identity.busInfo,
                              canCapture: identity.canCapture, canStream: identity.canStream, formats: formats)
    }
}
#endif
