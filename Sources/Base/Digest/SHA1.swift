/// SHA-1 (RFC 3174), for the WebSocket opening handshake (RFC 6455 §4.2.2: `Sec-WebSocket-Accept` is the base64
/// of the SHA-1 of the client's key and a fixed GUID).
///
/// SHA-1 is broken for collision resistance: use it only where a protocol names it, never for anything secret.
public struct SHA1: Sendable {
    /// RFC 3174 §6.1: the initial H0...H4.
    private static let initialHash: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]

    /// A SHA-1 digest is 20 bytes.
    public static let digestSize = 20

    private var hash: [UInt32] = SHA1.initialHash
    private var buffer = BlockBuffer()

    /// Creates a hasher with nothing absorbed yet.
    public init() {}

    /// Absorbs more input.
    /// - Parameter bytes: the next bytes of the message.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        var hash = self.hash
        buffer.update(bytes) { SHA1.compress($0, into: &hash) }
        self.hash = hash
    }

    /// Pads the message (RFC 3174 §4) and returns the 20-byte digest.
    public consuming func finalize() -> [UInt8] {
        var hash = self.hash
        buffer.finish { SHA1.compress($0, into: &hash) }
        return BlockBuffer.bigEndianBytes(hash)
    }

    /// Hashes a whole message at once.
    /// - Parameter bytes: the message.
    /// - Returns: its 20-byte SHA-1 digest.
    public static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// RFC 3174 §6.1: processes one 64-byte block (method 1, an 80-word schedule).
    private static func compress(_ block: UnsafeRawBufferPointer, into hash: inout [UInt32]) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { schedule in
            BlockBuffer.words(of: block, into: schedule)
            for t in 16..<80 {
                schedule[t] = rotl(schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16], 1)
            }
            var a = hash[0], b = hash[1], c = hash[2], d = hash[3], e = hash[4]
            for t in 0..<80 {
                // RFC 3174 §5: the function f(t) and constant K(t) of each group of twenty rounds.
                let (f, k): (UInt32, UInt32)
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotl(a, 5) &+ f &+ e &+ schedule[t] &+ k
                e = d
                d = c
                c = rotl(b, 30)
                b = a
                a = temp
            }
            hash[0] &+= a
            hash[1] &+= b
            hash[2] &+= c
            hash[3] &+= d
            hash[4] &+= e
        }
    }

    private static func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
