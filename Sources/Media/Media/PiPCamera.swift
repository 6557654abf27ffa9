/// Which camera feeds the facecam; the front camera's picture is mirrored so it reads like a mirror.
public enum PiPCamera: String, Sendable, Hashable, CaseIterable, Codable {
    /// The selfie camera (mirrored).
    case front
    /// The rear camera (not mirrored).
    case back

    /// Whether the picture is flipped left-to-right.
    public var isMirrored: Bool { self == .front }
}
