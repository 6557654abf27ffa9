/// Bounds the decoder enforces so that a hostile peer cannot make it recurse or allocate without limit.
public struct AMF0Limits: Sendable, Equatable {
    /// How deeply objects and arrays may nest.
    public var maxDepth: Int
    /// How many elements one object, ECMA array or strict array may hold.
    public var maxCollectionCount: Int
    /// The largest string accepted, in UTF-8 bytes (a long string's length field allows 4 GiB).
    public var maxStringBytes: Int
    /// How many complex values (objects, arrays) may be remembered for references (AMF0 §2.9).
    public var maxReferences: Int
    /// How many values in total one decode may produce (bounds the work a reference cycle-free bomb can cause).
    public var maxTotalValues: Int

    /// Creates limits.
    public init(maxDepth: Int, maxCollectionCount: Int, maxStringBytes: Int, maxReferences: Int, maxTotalValues: Int) {
        self.maxDepth = maxDepth
        self.maxCollectionCount = maxCollectionCount
        self.maxStringBytes = maxStringBytes
        self.maxReferences = maxReferences
        self.maxTotalValues = maxTotalValues
    }

    /// Generous for RTMP commands and onMetaData, small enough to be harmless.
    public static let `default` = AMF0Limits(
        maxDepth: 32, maxCollectionCount: 65_536, maxStringBytes: 1 << 20, maxReferences: 1024, maxTotalValues: 262_144
    )
}
