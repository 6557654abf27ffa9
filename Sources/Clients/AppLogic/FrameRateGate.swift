/// Thins screen frames to the configured frame rate: ReplayKit may deliver up to 60 frames per second, and a frame
/// the encoder does not need should not be composited or encoded.
///
/// A frame is kept when at least one frame interval (minus a 10 % tolerance for jitter) has passed since the last
/// kept frame's time slot; the slot advances by whole intervals so the average rate never exceeds the target.
public struct FrameRateGate: Sendable, Hashable {
    /// Frames per second to keep.
    public let framesPerSecond: Int
    private var nextSlot: Double?

    /// Creates a gate.
    /// - Parameter framesPerSecond: the target rate, at least 1.
    public init(framesPerSecond: Int) {
        self.framesPerSecond = max(framesPerSecond, 1)
    }

    /// Whether to keep a frame.
    /// - Parameter seconds: the frame's presentation time in seconds (any origin, increasing).
    /// - Returns: true when the frame is due.
    public mutating func shouldKeep(atSeconds seconds: Double) -> Bool {
        guard seconds.isFinite else { return false }
        let interval = 1.0 / Double(framesPerSecond)
        guard let slot = nextSlot else {
            nextSlot = seconds + interval
            return true
        }
        guard seconds >= slot - interval * 0.1 else { return false }
        // A long gap (a pause, a static screen) restarts the slots instead of letting frames catch up in a burst.
        nextSlot = seconds - slot > interval ? seconds + interval : slot + interval
        return true
    }
}
