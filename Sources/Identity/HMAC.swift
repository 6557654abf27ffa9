import Digest

/// HMAC-SHA256, the one MAC of HS256.
enum HMAC {
    static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: key, message: message)
    }

}
