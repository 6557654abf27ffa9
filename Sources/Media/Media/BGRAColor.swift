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
