/// How a ReplayKit frame is oriented, as `RPVideoSampleOrientationKey` reports it: the raw values of
/// `CGImagePropertyOrientation` (EXIF orientation 1–8).
public enum ImageOrientation: UInt32, Sendable, Hashable, CaseIterable {
    /// 1: upright.
    case up = 1
    /// 2: mirrored horizontally.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored vertically.
    case downMirrored = 4
    /// 5: mirrored and rotated; width and height swap.
    case leftMirrored = 5
    /// 6: rotated 90°; width and height swap.
    case right = 6
    /// 7: mirrored and rotated; width and height swap.
    case rightMirrored = 7
    /// 8: rotated 90° the other way; width and height swap.
    case left = 8

    /// The orientation for a raw attachment value; a missing or unknown value means upright.
    /// - Parameter rawValue: the attachment's number, or nil.
    public init(attachment rawValue: UInt32?) {
        self = rawValue.flatMap(ImageOrientation.init(rawValue:)) ?? .up
    }

    /// Whether the upright picture's width is the buffer's height.
    public var swapsAxes: Bool { rawValue >= 5 }
}
