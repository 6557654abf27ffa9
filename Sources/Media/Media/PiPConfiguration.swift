/// How the facecam picture-in-picture is drawn. Values outside their range are clamped when used.
public struct PiPConfiguration: Sendable, Hashable {
    /// Whether the picture is drawn at all; off means screen frames pass through untouched.
    public var isEnabled: Bool
    /// Which corner it sits in.
    public var corner: PiPCorner
    /// Picture width as a fraction of the frame width, clamped to `PiPLayout.minimumScale...maximumScale`.
    public var scale: Double
    /// Which camera feeds it; the front camera is mirrored.
    public var camera: PiPCamera
    /// Distance from the two nearest frame edges, in points.
    public var insetPoints: Double
    /// Pixels per point in the composited frame (screen scale × encode width / screen width; 1 on Linux).
    public var displayScale: Double
    /// Corner radius as a fraction of the picture's short side.
    public var cornerRadiusFraction: Double
    /// How long without a camera frame (by timestamps) before compositing stops and the screen shows alone.
    public var cameraTimeoutNanoseconds: Int64
    /// The filter used to scale the camera picture.
    public var filter: ScaleFilter

    /// The default corner radius: 12 % of the picture's short side.
    public static let defaultCornerRadiusFraction = 0.12
    /// The default camera timeout: one second.
    public static let defaultCameraTimeoutNanoseconds: Int64 = 1_000_000_000

    /// Creates a configuration.
    public init(isEnabled: Bool = true, corner: PiPCorner = .bottomRight, scale: Double = 0.25,
                camera: PiPCamera = .front, insetPoints: Double = PiPLayout.defaultInsetPoints,
                displayScale: Double = 1, cornerRadiusFraction: Double = defaultCornerRadiusFraction,
                cameraTimeoutNanoseconds: Int64 = defaultCameraTimeoutNanoseconds, filter: ScaleFilter = .bilinear) {
        self.isEnabled = isEnabled
        self.corner = corner
        self.scale = scale
        self.camera = camera
        self.insetPoints = insetPoints
        self.displayScale = displayScale
        self.cornerRadiusFraction = cornerRadiusFraction
        self.cameraTimeoutNanoseconds = cameraTimeoutNanoseconds
        self.filter = filter
    }

    /// PiP switched off: every frame passes through.
    public static let disabled = PiPConfiguration(isEnabled: false)
}
