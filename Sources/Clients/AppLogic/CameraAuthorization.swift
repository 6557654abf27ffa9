/// The camera permission, named after `AVAuthorizationStatus`.
public enum CameraAuthorization: String, Sendable, Hashable, CaseIterable {
    /// The user was never asked.
    case notDetermined
    /// Parental controls or a profile forbid the camera.
    case restricted
    /// The user said no.
    case denied
    /// The user allowed the camera.
    case authorized
}
