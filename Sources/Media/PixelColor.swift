/// One BGRA pixel's components.
public struct BGRAColor: Sendable, Hashable, CustomStringConvertible {
    /// Blue.
    public var b: UInt8
    /// Green.
    public var g: UInt8
    /// Red.
    public var r: UInt8
    /// Alpha (255 = opaque).
    public var a: UInt8

    /// Creates a colour from its components.
    public init(b: UInt8, g: UInt8, r: UInt8, a: UInt8 = 255) {
        self.b = b
        self.g = g
        self.r = r
        self.a = a
    }

    /// The four bytes as one little-endian word, which is how they sit in memory.
    public var word: UInt32 {
        UInt32(b) | UInt32(g) << 8 | UInt32(r) << 16 | UInt32(a) << 24
    }

    /// For example "BGRA(0,0,255,255)".
    public var description: String { "BGRA(\(b),\(g),\(r),\(a))" }
}

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
