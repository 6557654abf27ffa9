/// What a V4L2 device says about itself: identity, capabilities, and the formats and sizes it can capture.
public struct V4L2DeviceInfo: Sendable, Hashable, Codable {
    /// One pixel format with its frame sizes.
    public struct Format: Sendable, Hashable, Codable {
        /// The pixel format code, e.g. `YUYV`.
        public var fourCC: String
        /// The driver's description, e.g. "YUYV 4:2:2".
        public var description: String
        /// Whether the format is compressed (MJPEG, H.264).
        public var isCompressed: Bool
        /// Frame sizes: discrete sizes, or the corners of a stepwise range.
        public var sizes: [V4L2FrameSize]

        /// Describes a format.
        public init(fourCC: String, description: String, isCompressed: Bool, sizes: [V4L2FrameSize]) {
            self.fourCC = fourCC
            self.description = description
            self.isCompressed = isCompressed
            self.sizes = sizes
        }
    }

    /// The device node, e.g. `/dev/video0`: the camera's id.
    public var path: String
    /// The human name (`card`), e.g. "Integrated Camera".
    public var name: String
    /// The driver, e.g. `uvcvideo`.
    public var driver: String
    /// Where it is attached, e.g. `usb-0000:00:14.0-5`.
    public var busInfo: String
    /// Whether the node captures video (metadata nodes of the same camera do not).
    public var canCapture: Bool
    /// Whether it supports mmap streaming I/O.
    public var canStream: Bool
    /// The formats it offers.
    public var formats: [Format]

    /// Describes a device.
    public init(path: String, name: String, driver: String, busInfo: String, canCapture: Bool, canStream: Bool,
                formats: [Format]) {
        self.path = path
        self.name = name
        self.driver = driver
        self.busInfo = busInfo
        self.canCapture = canCapture
        self.canStream = canStream
        self.formats = formats
    }
}

/// A frame size a V4L2 device offers.
public struct V4L2FrameSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Describes a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}
