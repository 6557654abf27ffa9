extension StreamSettings {
    /// The encode size's short edge; the long edge follows the source's aspect ratio (see `EncodeGeometry`).
    public enum Quality: String, Sendable, Equatable, CaseIterable, Codable {
        /// 480 pixels on the short edge.
        case p480 = "480p"
        /// 720 pixels on the short edge (the default: safe within a broadcast extension's memory budget).
        case p720 = "720p"
        /// 1080 pixels on the short edge.
        case p1080 = "1080p"

        /// The short edge in pixels.
        public var shortEdge: Int {
            switch self {
            case .p480: return 480
            case .p720: return 720
            case .p1080: return 1080
            }
        }

        /// The quality whose short edge is `shortEdge`, if any.
        /// - Parameter shortEdge: 480, 720 or 1080.
        public init?(shortEdge: Int) {
            guard let match = Self.allCases.first(where: { $0.shortEdge == shortEdge }) else { return nil }
            self = match
        }
    }
}
