@testable import RTMP

/// Parses a hex string ("ba78 16bf", spaces ignored) into bytes.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.map { $0 }
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// Deterministic pseudo-random bytes (a 32-bit LCG), so handshake vectors are reproducible.
func pseudoRandomBytes(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

/// The three ways every parser vector is fed: whole, one byte at a time, and merged with the next vector.
enum Feeding: String, CaseIterable, Sendable, CustomStringConvertible {
    case whole
    case byteByByte
    case merged

    var description: String { rawValue }

    /// Splits `bytes` (followed by `next`, for `.merged`) into the pieces to append.
    func pieces(_ bytes: [UInt8], next: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: [bytes, next]
        case .byteByByte: (bytes + next).map { [$0] }
        case .merged: [bytes + next]
        }
    }
}

/// Decodes every message from chunk bytes fed in pieces, calling `next()` after every append.
func decodeAll(_ pieces: [[UInt8]], decoder: inout ChunkDecoder) throws(RTMPError) -> [RTMPMessage] {
    var messages: [RTMPMessage] = []
    for piece in pieces {
        decoder.append(piece)
        while let message = try decoder.next() {
            messages.append(message)
        }
    }
    return messages
}
