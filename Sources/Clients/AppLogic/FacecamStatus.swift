/// The live status line of the Picture in Picture settings section, and what the app asks for when PiP turns on.
public struct FacecamStatus: Sendable, Hashable {
    /// The colour of the status line.
    public enum Tone: String, Sendable, Hashable {
        /// Green: the facecam will appear in the broadcast.
        case ready
        /// Orange: the facecam will not appear; the broadcast falls back to screen only.
        case warning
        /// Secondary text: PiP is off, nothing to report.
        case neutral
    }

    /// The status text.
    public var text: String
    /// The status colour.
    public var tone: Tone

    /// The status for the current device and settings.
    /// - Parameters:
    ///   - pipEnabled: the PiP toggle.
    ///   - multitaskingCameraAccessSupported: `AVCaptureSession.isMultitaskingCameraAccessSupported`.
    ///   - authorization: the camera permission.
    ///   - isSimulator: whether this is the Simulator (no camera; the facecam is compiled out).
    public init(pipEnabled: Bool, multitaskingCameraAccessSupported: Bool, authorization: CameraAuthorization,
                isSimulator: Bool) {
        guard pipEnabled else {
            self.init(text: "Facecam off: the broadcast shows the screen only.", tone: .neutral)
            return
        }
        if isSimulator {
            self.init(text: "The Simulator has no camera: run on a device to use the facecam.", tone: .warning)
            return
        }
        switch authorization {
        case .denied:
            self.init(text: "Camera access is denied: allow it in Settings › Privacy & Security › Camera.",
                      tone: .warning)
            return
        case .restricted:
            self.init(text: "Camera access is restricted on this device (Screen Time or a profile).", tone: .warning)
            return
        case .notDetermined:
            self.init(text: "Camera permission not granted yet: allow it when asked.", tone: .warning)
            return
        case .authorized:
            break
        }
        if multitaskingCameraAccessSupported {
            self.init(text: "Facecam ready", tone: .ready)
        } else {
            self.init(text: "This device can't run the camera during a broadcast (no multitasking camera access): "
                          + "the stream falls back to screen only.", tone: .warning)
        }
    }

    private init(text: String, tone: Tone) {
        self.text = text
        self.tone = tone
    }

    /// Whether turning PiP on must ask for the camera now: the extension cannot show the prompt itself.
    /// - Parameters:
    ///   - pipEnabled: the toggle's new value.
    ///   - authorization: the current permission.
    public static func shouldRequestCameraAccess(pipEnabled: Bool, authorization: CameraAuthorization) -> Bool {
        pipEnabled && authorization == .notDetermined
    }
}
