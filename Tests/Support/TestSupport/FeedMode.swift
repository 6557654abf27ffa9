/// How byte vectors reach a streaming parser in a test: each whole, one byte at a time, or all merged into one piece
/// (so a vector's end and the next one's start arrive together).
public enum FeedMode: Sendable, CaseIterable, CustomStringConvertible {
    case whole
    case byteByByte
    case merged

    /// The pieces to append, in order.
    public func pieces(_ vectors: [[UInt8]]) -> [[UInt8]] {
        switch self {
        case .whole: vectors
        case .byteByByte: vectors.flatMap { $0.map { [$0] } }
        case .merged: [vectors.flatMap { $0 }]
        }
    }

    public var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .merged: "merged"
        }
    }
}
