import LiveProtocol
import RealtimeCalls

/// What the go-live screen lets the host do, decided from the show, the switches and the permissions. Pure.
public struct GoLiveScreenState: Sendable, Hashable {
    /// Where the host's own flow is.
    public enum Phase: Sendable, Hashable {
        /// Nothing started.
        case idle
        /// The camera preview runs.
        case previewing
        /// `goLive()` was called and has not returned.
        case goingLive
        /// Publishing.
        case live
        /// `end()` was called and has not returned.
        case ending
    }

    /// Whether the preview button is enabled.
    public var canPreview: Bool
    /// Whether the go-live button is enabled.
    public var canGoLive: Bool
    /// Whether the end button is enabled.
    public var canEnd: Bool
    /// Whether the camera and microphone switches are enabled.
    public var canToggle: Bool
    /// The line under the preview.
    public var status: String
    /// What to tell the user about permissions, nil when both are granted or can still be asked.
    public var permissionHint: String?

    /// Decides.
    /// - Parameters:
    ///   - role: this session's role (only a host goes live).
    ///   - state: the show's state.
    ///   - media: the connection.
    ///   - phase: the host's flow.
    ///   - camera: the camera permission.
    ///   - microphone: the microphone permission (named as AVFoundation names it too).
    public init(role: Role?, state: ShowState, media: MediaState, phase: Phase, camera: CameraAuthorization,
                microphone: CameraAuthorization) {
        let host = role == .host
        let connected = media == .live
        let blocked = [camera, microphone].contains { $0 == .denied || $0 == .restricted }
        canToggle = host && !blocked && phase != .goingLive && phase != .ending
        canPreview = host && !blocked && phase == .idle
        canGoLive = host && connected && !blocked && (phase == .idle || phase == .previewing)
        canEnd = host && connected && (phase == .live || state == .live)
        if !host {
            status = "Only the host can go live here."
        } else if !connected {
            status = media == .reconnecting ? "Reconnecting…" : "Not connected"
        } else {
            switch phase {
            case .idle: status = state == .ended ? "The show has ended; go live to reopen it." : "Ready"
            case .previewing: status = "Preview: only you see this"
            case .goingLive: status = "Going live…"
            case .live: status = state == .live ? "Live" : "Starting the picture…"
            case .ending: status = "Ending…"
            }
        }
        if camera == .denied || microphone == .denied {
            permissionHint = "Allow the camera and microphone for Stream in Settings to go live."
        } else if camera == .restricted || microphone == .restricted {
            permissionHint = "The camera or microphone is restricted on this device."
        } else {
            permissionHint = nil
        }
    }
}
