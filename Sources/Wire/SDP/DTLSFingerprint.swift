import ByteIO

/// A certificate fingerprint as SDP carries it (RFC 8122 §5): `a=fingerprint:sha-256 AB:CD:...`.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Hash functions a fingerprint may use, with their digest sizes.
    public static let digestSizes = ["sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64]

    /// The hash function's name in lower case, e.g. `sha-256`.
    public var algorithm: String
    /// The digest of the DER-encoded certificate.
    public var digest: [UInt8]

    /// Creates a fingerprint.
    public init(algorithm: String, digest: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.digest = digest
    }

    /// Parses the attribute value `<hash-func> <hex pairs separated by colons>`.
    /// - Throws: ``SDPError`` `.malformed` or `.unsupported` (an unknown hash function).
    public init(parsing value: String) throws(SDPError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2 else {
            throw SDPError(.malformed, "fingerprint \"\(value.prefix(120))\" is not \"<hash> <hex>\"")
        }
        let algorithm = fields[0].lowercased()
        guard let size = Self.digestSizes[algorithm] else {
            throw SDPError(.unsupported, "fingerprint hash \"\(fields[0])\" is not one of "
                + Self.digestSizes.keys.sorted().joined(separator: ", "))
        }
        var digest: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw SDPError(.malformed, "fingerprint \"\(value.prefix(120))\": \"\(pair)\" is not a hex byte")
            }
            digest.append(byte)
        }
        guard digest.count == size else {
            throw SDPError(.malformed, "a \(algorithm) fingerprint has \(size) bytes, not \(digest.count)")
        }
        self.init(algorithm: algorithm, digest: digest)
    }

    /// The attribute value, upper-case hex as RFC 8122 §5 writes it.
    public var description: String {
        return algorithm + " " + digest.map { Hex.encode([$0], uppercase: true) }.joined(separator: ":")
    }
}
