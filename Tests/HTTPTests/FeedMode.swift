/// How byte vectors reach a streaming parser: each whole, one byte at a time, or all merged into one piece (so a
/// vector's end and the next one's start arrive together).
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

/// The bytes of a text with CRLF line ends written as "\r\n".
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
