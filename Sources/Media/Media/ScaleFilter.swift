/// How a scaler samples its source, fastest first (libyuv's `FilterMode`).
public enum ScaleFilter: Sendable, Hashable, CaseIterable {
    /// Nearest neighbour: fastest, blocky.
    case none
    /// Horizontal interpolation only.
    case linear
    /// Bilinear: a good speed/quality balance, slightly soft when shrinking a lot.
    case bilinear
    /// Box averaging: best when shrinking, slowest.
    case box
}
