/// SHA-256 (FIPS 180-4 §6.2), in pure Swift so the protocol modules stay free of C.
///
/// The RTMP digest handshake (a few kilobytes per connection), stream key tags and HMAC-signed tokens use it:
/// contiguous input is hashed where it lies, with the message schedule on the stack (no allocation per block).
public struct SHA256: Sendable {
    /// FIPS 180-4 §5.3.3: the initial hash value H(0).
    private static let initialHash: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// FIPS 180-4 §4.2.2: the sixty-four round constants K.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// SHA-256 works on 64-byte blocks.
    public static let blockSize = 64
    /// A SHA-256 digest is 32 bytes.
    public static let digestSize = 32

    private var hash: [UInt32] = SHA256.initialHash
    private var buffer = BlockBuffer()

    /// Creates a hasher with nothing absorbed yet.
    public init() {}

    /// Absorbs more input.
    /// - Parameter bytes: the next bytes of the message.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        var hash = self.hash
        buffer.update(bytes) { SHA256.compress($0, into: &hash) }
        self.hash = hash
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 32-byte digest.
    public consuming func finalize() -> [UInt8] {
        var hash = self.hash
        buffer.finish { SHA256.compress($0, into: &hash) }
        return BlockBuffer.bigEndianBytes(hash)
    }

    /// Hashes a whole message at once.
    /// - Parameter bytes: the message.
    /// - Returns: its 32-byte SHA-256 digest.
    public static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// FIPS 180-4 §6.2.2: one round of the compression function over a 64-byte block.
    private static func compress(_ block: UnsafeRawBufferPointer, into hash: inout [UInt32]) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            BlockBuffer.words(of: block, into: schedule)
            for t in 16..<64 {
                let s0 = rotr(schedule[t - 15], 7) ^ rotr(schedule[t - 15], 18) ^ (schedule[t - 15] >> 3)
                let s1 = rotr(schedule[t - 2], 17) ^ rotr(schedule[t - 2], 19) ^ (schedule[t - 2] >> 10)
                schedule[t] = schedule[t - 16] &+ s0 &+ schedule[t - 7] &+ s1
            }
            var a = hash[0], b = hash[1], c = hash[2], d = hash[3]
            var e = hash[4], f = hash[5], g = hash[6], h = hash[7]
            for t in 0..<64 {
                let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let choose = (e & f) ^ (~e & g)
                let temp1 = h &+ sigma1 &+ choose &+ SHA256.roundConstants[t] &+ schedule[t]
                let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sigma0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ temp1
                d = c
                c = b
                b = a
                a = temp1 &+ temp2
            }
            hash[0] &+= a
            hash[1] &+= b
            hash[2] &+= c
            hash[3] &+= d
            hash[4] &+= e
            hash[5] &+= f
            hash[6] &+= g
            hash[7] &+= h
        }
    }

    private static func rotr(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
