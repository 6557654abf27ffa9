/// RFC 6455 §5.3: client-to-server payloads are XORed with a 4-byte masking key, byte i with key[i mod 4].
public enum WebSocketMasking {
    /// XORs `bytes` with `key`, starting at key position `offset` (the payload bytes masked before these).
    public static func apply(key: UInt32, offset: Int, to bytes: UnsafeMutableRawBufferPointer) {
        let keyBytes: [UInt8] = (0..<4).map { position in
            UInt8(truncatingIfNeeded: key >> UInt32(24 - 8 * ((offset + position) % 4)))
        }
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { raw in
            for index in 0..<8 { raw[index] = keyBytes[index % 4] }
        }
        var index = 0
        let count = bytes.count
        // Eight bytes at a time: the pattern repeats every four, so it lines up at any multiple of eight.
        while index + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: word ^ pattern, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            bytes[index] ^= keyBytes[index % 4]
            index += 1
        }
    }

    /// XORs an array in place.
    public static func apply(key: UInt32, offset: Int = 0, to bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { apply(key: key, offset: offset, to: $0) }
    }
}
