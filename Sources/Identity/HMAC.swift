import Digest

/// HMAC-SHA256 and a comparison whose time does not depend on where two codes differ.
enum HMAC {
    static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: key, message: message)
    }

    /// Whether two byte strings are equal, looking at every byte (a prober learns nothing from the time taken).
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
