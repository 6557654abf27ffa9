/// The corner of the frame the facecam picture sits in.
public enum PiPCorner: String, Sendable, Hashable, CaseIterable, Codable {
    /// Top left.
    case topLeft
    /// Top right.
    case topRight
    /// Bottom left.
    case bottomLeft
    /// Bottom right.
    case bottomRight

    /// Whether the corner is on the left edge.
    public var isLeft: Bool { self == .topLeft || self == .bottomLeft }
    /// Whether the corner is on the top edge.
    public var isTop: Bool { self == .topLeft || self == .topRight }
}
