import AVFoundation
import AppLogic

/// Reads the camera permission and the multitasking camera capability for `FacecamStatus` and `FacecamPlan`.
enum CameraAccess {
    /// Whether this build runs on the Simulator (no camera: the facecam paths are compiled out).
    static var isSimulator: Bool {
        #if targetEnvironment(simulator)
        return true
        #else
        return false
        #endif
    }

    /// The camera permission.
    static var authorization: CameraAuthorization {
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .notDetermined: return .notDetermined
        case .restricted: return .restricted
        case .denied: return .denied
        case .authorized: return .authorized
        @unknown default: return .denied
        }
    }

    /// `AVCaptureSession.isMultitaskingCameraAccessSupported` (false on the Simulator); a device capability, read once.
    static let multitaskingSupported: Bool = {
        #if targetEnvironment(simulator)
        return false
        #else
        return AVCaptureSession().isMultitaskingCameraAccessSupported
        #endif
    }()

    /// Asks for the camera (the broadcast extension cannot show the prompt itself).
    /// - Returns: whether access was granted.
    static func request() async -> Bool {
        await AVCaptureDevice.requestAccess(for: .video)
    }
}
