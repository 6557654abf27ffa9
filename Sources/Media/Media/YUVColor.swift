/// One YUV sample triple (BT.601 limited range: Y 16...235, U and V 16...240).
public struct YUVColor: Sendable, Hashable, CustomStringConvertible {
    /// Luma.
    public var y: UInt8
    /// Blue-difference chroma.
    public var u: UInt8
    /// Red-difference chroma.
    public var v: UInt8

    /// Creates a colour from its components.
    public init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    /// For example "YUV(81,90,240)".
    public var description: String { "YUV(\(y),\(u),\(v))" }

    /// Whether every component is within `tolerance` of `other`'s.
    public func isClose(to other: YUVColor, tolerance: Int) -> Bool {
        abs(Int(y) - Int(other.y)) <= tolerance && abs(Int(u) - Int(other.u)) <= tolerance
            && abs(Int(v) - Int(other.v)) <= tolerance
    }
}
