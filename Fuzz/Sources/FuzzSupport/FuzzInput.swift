/// A fuzzer's input as a cursor: the first bytes steer the harness (limits, piece sizes), the rest is the payload.
///
/// Taking from an exhausted input yields zeros, so every input, however short, is a valid run.
public struct FuzzInput {
    /// All bytes of the input.
    public let bytes: [UInt8]
    private var index = 0

    /// Copies libFuzzer's buffer.
    /// - Parameters:
    ///   - data: `LLVMFuzzerTestOneInput`'s data pointer (nil when the size is 0).
    ///   - size: its size.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    /// Wraps bytes (for MakeCorpus and tests).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Takes one steering byte (0 when exhausted).
    public mutating func takeByte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Takes a big-endian 16-bit steering value.
    public mutating func takeUInt16() -> UInt16 {
        UInt16(takeByte()) << 8 | UInt16(takeByte())
    }

    /// The bytes not taken yet.
    public var rest: [UInt8] { index < bytes.count ? Array(bytes[index...]) : [] }
}

/// Splits bytes into pieces whose sizes cycle through `sizes` (each at least 1), the way a socket delivers them.
/// - Parameters:
///   - bytes: the whole stream.
///   - sizes: the piece sizes to cycle through; empty or zero means one byte.
/// - Returns: the pieces in order; joined they are `bytes`.
public func pieces(of bytes: [UInt8], sizes: [Int]) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var start = 0
    var turn = 0
    while start < bytes.count {
        let size = sizes.isEmpty ? 1 : max(1, sizes[turn % sizes.count])
        let end = min(bytes.count, start + size)
        result.append(Array(bytes[start..<end]))
        start = end
        turn += 1
    }
    return result
}
