/// How byte vectors reach a streaming parser: whole, one byte at a time, or merged into one piece.
enum FeedMode: Sendable, CaseIterable, CustomStringConvertible {
    case whole
    case byteByByte
    case merged

    /// The pieces to append, in order.
    func pieces(_ vectors: [[UInt8]]) -> [[UInt8]] {
        switch self {
        case .whole: vectors
        case .byteByByte: vectors.flatMap { $0.map { [$0] } }
        case .merged: [vectors.flatMap { $0 }]
        }
    }

    var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .merged: "merged"
        }
    }
}

/// A deterministic generator for masking keys in tests (a 64-bit LCG).
struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
