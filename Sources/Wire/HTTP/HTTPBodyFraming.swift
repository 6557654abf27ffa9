/// How a message's body is delimited (RFC 9112 §6.3).
public enum HTTPBodyFraming: Sendable, Equatable {
    /// No body.
    case none
    /// Exactly this many bytes (`Content-Length`).
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Everything until the connection closes (responses only).
    case untilClose

    /// The framing of a request (RFC 9112 §6.3), strict where request smuggling lives.
    /// - Throws: `.malformed` for both `Content-Length` and `Transfer-Encoding`, `Transfer-Encoding` in
    ///   HTTP/1.0, chunked applied twice or not last, duplicate or non-numeric lengths; `.unsupportedTransferCoding`
    ///   for codings before chunked; `.bodyTooLarge` for a length too large to represent.
    public static func request(_ head: HTTPRequestHead) throws(HTTPError) -> HTTPBodyFraming {
        guard head.headers.contains("Transfer-Encoding") || head.headers.contains("Content-Length") else {
            return .none
        }
        let codings = head.headers.values("Transfer-Encoding")
        let lengths = head.headers.values("Content-Length")
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw .malformed("the request has both Content-Length and Transfer-Encoding")
            }
            guard head.version.minor >= 1 else {
                throw .malformed("Transfer-Encoding in an HTTP/1.0 request")
            }
            return try transferCoding(head.headers.listElements("Transfer-Encoding"), isRequest: true)
        }
        guard let length = lengths.first else { return .none }
        guard lengths.count == 1 else { throw .malformed("the request has more than one Content-Length") }
        let value = try contentLength(length)
        return value == 0 ? .none : .length(value)
    }

    /// The framing of a response to a request with `method` (RFC 9112 §6.3).
    /// - Throws: `.malformed` for conflicting or invalid lengths, or both a length and a coding.
    public static func response(_ head: HTTPResponseHead, to method: HTTPMethod) throws(HTTPError) -> HTTPBodyFraming {
        if method == .head || head.status.forbidsBody { return .none }
        if method == .connect && head.status.isSuccess { return .none }
        let codings = head.headers.listElements("Transfer-Encoding")
        let lengths = head.headers.listElements("Content-Length")
        if !head.headers.values("Transfer-Encoding").isEmpty {
            guard lengths.isEmpty else {
                throw .malformed("the response has both Content-Length and Transfer-Encoding")
            }
            return try transferCoding(codings, isRequest: false)
        }
        guard let first = lengths.first else { return .untilClose }
        // RFC 9110 §8.6: a list of identical lengths may be taken as one; differing ones are an error.
        guard lengths.allSatisfy({ $0 == first }) else {
            throw .malformed("the response has conflicting Content-Length values")
        }
        return .length(try contentLength(first))
    }

    private static func transferCoding(_ codings: [String], isRequest: Bool) throws(HTTPError) -> HTTPBodyFraming {
        let chunkedCount = codings.filter { HTTPHeaders.name($0, matches: "chunked") }.count
        guard let last = codings.last, HTTPHeaders.name(last, matches: "chunked") else {
            // RFC 9112 §6.3 rule 4: a request whose last coding is not chunked has no determinable length.
            if isRequest { throw .malformed("chunked is not the final transfer coding") }
            return .untilClose
        }
        guard chunkedCount == 1 else { throw .malformed("the chunked transfer coding is applied more than once") }
        guard codings.count == 1 else {
            throw HTTPError(.unsupportedTransferCoding, "transfer codings other than chunked are not supported: "
                                + codings.joined(separator: ", "))
        }
        return .chunked
    }

    /// RFC 9110 §8.6: Content-Length = 1*DIGIT.
    private static func contentLength(_ text: String) throws(HTTPError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .malformed("invalid Content-Length \"\(HTTPSyntax.excerpt(text.utf8))\"")
        }
        guard let value = Int(text) else {
            throw HTTPError(.bodyTooLarge, "Content-Length \(text.prefix(30)) is too large")
        }
        return value
    }
}
