extension StreamSettings {
    /// The corner of the frame the camera overlay sits in.
    public enum PiPCorner: String, Sendable, Equatable, CaseIterable, Codable {
        /// Top left.
        case topLeft
        /// Top right.
        case topRight
        /// Bottom left.
        case bottomLeft
        /// Bottom right (the default: least likely to cover status bars).
        case bottomRight
    }

    /// The camera that feeds the overlay.
    public enum CameraPosition: String, Sendable, Equatable, CaseIterable, Codable {
        /// The selfie camera (mirrored in the overlay).
        case front
        /// The rear camera.
        case back
    }
}
