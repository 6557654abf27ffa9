/// Whether the broadcast extension starts the camera, decided once in `broadcastStarted`.
public enum FacecamPlan: Sendable, Hashable {
    /// Start the capture session with `isMultitaskingCameraAccessEnabled = true`, camera at `position`.
    case startCamera(position: CameraSide)
    /// Do not touch the camera: every frame is the screen alone.
    case screenOnly(reason: String)

    /// The camera to open, named after `AVCaptureDevice.Position`.
    public enum CameraSide: String, Sendable, Hashable {
        /// `.front`, mirrored in the overlay.
        case front
        /// `.back`.
        case back
    }

    /// Decides from the settings and the device.
    /// - Parameters:
    ///   - pipEnabled: `StreamSettings.pipEnabled`.
    ///   - front: whether `StreamSettings.cameraPosition` is `.front`.
    ///   - multitaskingCameraAccessSupported: `AVCaptureSession.isMultitaskingCameraAccessSupported`.
    ///   - authorization: the camera permission granted in the app.
    public init(pipEnabled: Bool, front: Bool, multitaskingCameraAccessSupported: Bool,
                authorization: CameraAuthorization) {
        if !pipEnabled {
            self = .screenOnly(reason: "picture-in-picture is off")
        } else if authorization != .authorized {
            self = .screenOnly(reason: "camera permission is \(authorization.rawValue); grant it in the Stream app")
        } else if !multitaskingCameraAccessSupported {
            self = .screenOnly(reason: "this device has no multitasking camera access")
        } else {
            self = .startCamera(position: front ? .front : .back)
        }
    }

    /// Whether the camera starts.
    public var startsCamera: Bool {
        if case .startCamera = self { return true }
        return false
    }
}
