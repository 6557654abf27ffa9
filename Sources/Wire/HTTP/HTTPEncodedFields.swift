/// Header fields encoded for the wire once ("Name: value" CRLF each) and sent as they are by every response that
/// carries them: a server answering many readers with the same fields (an LL-HLS part released to hundreds of held
/// requests) neither builds nor encodes them per response.
///
/// The framing fields (`Content-Length`, `Transfer-Encoding`, `Connection`) are the server's: they cannot be
/// encoded here.
public struct HTTPEncodedFields: Sendable, Equatable {
    /// The field lines, each ending in CRLF (without the head's final empty line).
    public let bytes: [UInt8]
    /// Whether a `Date` field is among them.
    public let hasDate: Bool
    /// Whether a `Server` field is among them.
    public let hasServer: Bool

    /// No field.
    public static let none = HTTPEncodedFields()

    private init() {
        bytes = []
        hasDate = false
        hasServer = false
    }

    /// Encodes `headers`.
    /// - Precondition: every name is a token, no value has a control character (CR, LF...), and no field is a framing
    ///   field.
    public init(_ headers: HTTPHeaders) {
        for field in headers {
            precondition(!field.name.isEmpty && field.name.utf8.allSatisfy(HTTPSyntax.isTokenCharacter),
                         "invalid header name \"\(field.name)\"")
            precondition(field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueCharacter),
                         "a control character in the value of \(field.name)")
            precondition(!HTTPHeaders.isFraming(field.name), "\(field.name) is set by the server")
        }
        var bytes: [UInt8] = []
        headers.writeFields(into: &bytes)
        self.bytes = bytes
        hasDate = headers.contains("Date")
        hasServer = headers.contains("Server")
    }

    /// The number of bytes.
    public var count: Int { bytes.count }
}
