/// Why a token was refused or could not be made. The description never contains the token or the secret.
public struct TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Equatable {
        /// Not three base64url parts, or a part that is not the JSON it should be.
        case malformed
        /// The header names an algorithm other than HS256, or extensions we do not understand.
        case unsupportedAlgorithm
        /// The signature does not match: another secret, or an altered token.
        case badSignature
        /// `exp` has passed.
        case expired
        /// `nbf` has not come yet.
        case notYetValid
        /// A claim is missing or of the wrong type.
        case invalidClaim
        /// The secret is too short for HS256.
        case weakSecret
    }

    /// The kind of failure.
    public let code: Code
    /// What is wrong, for the `unauthorized` reason sent back.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
