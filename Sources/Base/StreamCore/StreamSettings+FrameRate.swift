extension StreamSettings {
    /// The supported encode frame rates.
    public enum FrameRate: Int, Sendable, Equatable, CaseIterable, Codable {
        /// 24 frames per second.
        case fps24 = 24
        /// 30 frames per second (the default).
        case fps30 = 30
        /// 60 frames per second.
        case fps60 = 60

        /// The supported rate closest to `fps`; a tie goes to the lower rate (it costs less).
        /// - Parameter fps: any integer.
        public static func nearest(to fps: Int) -> FrameRate {
            // Every rate outside 0...1000 is nearest to the same end; clamping keeps the differences from
            // overflowing (a stored fps of -1e22 saturates to Int.min, and 24 - Int.min traps).
            let fps = min(max(fps, 0), 1000)
            var best = FrameRate.fps24
            for candidate in allCases where abs(candidate.rawValue - fps) < abs(best.rawValue - fps) {
                best = candidate
            }
            return best
        }
    }
}
