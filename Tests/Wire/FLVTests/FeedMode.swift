@testable import FLV

/// How a byte vector is handed to a streaming parser: whole, one byte at a time, or in fixed-size chunks.
enum FeedMode: Sendable, CustomStringConvertible, CaseIterable {
    case whole
    case byteByByte
    case chunksOf7

    func chunks(_ bytes: [UInt8]) -> [[UInt8]] {
        let size: Int
        switch self {
        case .whole: return [bytes]
        case .byteByByte: size = 1
        case .chunksOf7: size = 7
        }
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .chunksOf7: "7-byte chunks"
        }
    }
}

extension FLVReader {
    /// Appends `bytes` as `mode` says, draining tags after every append.
    mutating func readAll(_ bytes: [UInt8], _ mode: FeedMode) throws(FLVError) -> [FLVTag] {
        var tags: [FLVTag] = []
        for chunk in mode.chunks(bytes) {
            append(chunk)
            while let tag = try next() {
                tags.append(tag)
            }
        }
        return tags
    }
}

extension FLVTag {
    /// The fields as plain values, for comparison with `FLVVectors`.
    var values: FLVTagValues { FLVTagValues(type: type.rawValue, timestamp: timestamp, body: body) }
}
