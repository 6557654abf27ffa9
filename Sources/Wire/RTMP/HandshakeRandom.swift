/// The random part of C1 and S1 (RTMP §5.2.3: 1528 bytes "should be random"): made here for every driver, client
/// and server, so that all of them take it from one place.
public enum HandshakeRandom {
    /// 1528 random bytes from `generator`.
    /// - Parameter generator: the source (a seeded one in tests).
    public static func bytes<Generator: RandomNumberGenerator>(using generator: inout Generator) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: ClientHandshake.randomSize)
        var index = 0
        while index < bytes.count {
            var word = generator.next()
            for _ in 0..<min(8, bytes.count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return bytes
    }

    /// 1528 bytes from the system's cryptographically secure generator.
    public static func bytes() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return bytes(using: &generator)
    }
}
