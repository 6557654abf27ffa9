import ByteIO

/// Finds the end of a message head (RFC 9112 §2.1: start line, field lines, an empty line) in received bytes,
/// checking line endings and size limits as bytes arrive, so a slow or huge head costs one pass over its bytes.
struct HTTPHeadScanner: Sendable {
    /// Bytes already checked, from the front of the buffer.
    private var scanned = 0
    private var lineStart = 0
    private var lineCount = 0

    /// True before any byte of a head has been scanned.
    var isAtStart: Bool { scanned == 0 }

    /// Forgets progress (the next head starts at the front of the buffer).
    mutating func reset() {
        self = HTTPHeadScanner()
    }

    /// Continues scanning `buffer`.
    /// - Parameters:
    ///   - isRequest: the start line is a request line, whose target has its own limit (414).
    /// - Returns: the head's length including the final empty line, or nil when more bytes are needed.
    /// - Throws: `.malformed` for a bare CR or LF (RFC 9112 §2.2: both are smuggling vectors, we accept only
    ///   CRLF), `.uriTooLong`, `.headTooLarge`.
    mutating func scan(_ buffer: InputBuffer, limits: HTTPLimits, isRequest: Bool) throws(HTTPError) -> Int? {
        let count = buffer.count
        var index = scanned
        // Limits are checked at the byte that passes them, so the refusal never depends on how bytes arrive.
        let requestLineBudget = limits.maximumURILength + Self.requestLineOverhead
        while index < count {
            if isRequest && lineCount == 0 && index - lineStart >= requestLineBudget {
                throw Self.overlongRequestLine(buffer, limits: limits, budget: requestLineBudget)
            }
            guard index < limits.maximumHeadSize else { throw Self.tooLarge(limits) }
            let byte = buffer[index]
            if byte == HTTPSyntax.lf {
                guard index > lineStart, buffer[index - 1] == HTTPSyntax.cr else {
                    throw .malformed("a line ends in a bare LF; HTTP/1.1 lines end in CRLF")
                }
                let length = index - 1 - lineStart
                if length == 0 {
                    guard lineCount > 0 else { throw .malformed("the message starts with an empty line") }
                    let headLength = index + 1
                    guard headLength <= limits.maximumHeadSize else { throw Self.tooLarge(limits) }
                    return headLength
                }
                lineCount += 1
                guard lineCount <= limits.maximumFieldCount + 1 else {
                    throw HTTPError(.headTooLarge, "more than \(limits.maximumFieldCount) header fields")
                }
                lineStart = index + 1
            } else if byte == HTTPSyntax.cr {
                // A CR at the end is checked again once its next byte arrives.
                if index + 1 == count { break }
                guard buffer[index + 1] == HTTPSyntax.lf else {
                    throw .malformed("a bare CR inside the head; CR may only come before LF")
                }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// A request line longer than the target limit allows: an over-long target, or no HTTP at all.
    private static func overlongRequestLine(_ buffer: InputBuffer, limits: HTTPLimits, budget: Int) -> HTTPError {
        let methodEnds = buffer.firstIndex(of: HTTPSyntax.space).map { $0 <= longestMethod } ?? false
        if methodEnds {
            return HTTPError(.uriTooLong, "the request target is longer than \(limits.maximumURILength) bytes")
        }
        return .malformed("no request line in the first \(budget) bytes")
    }

    /// Room for the method, two spaces, "HTTP/1.1" and CRLF around the target.
    static let requestLineOverhead = 64
    /// Methods longer than this are not taken for the start of a request line.
    static let longestMethod = 32

    private static func tooLarge(_ limits: HTTPLimits) -> HTTPError {
        HTTPError(.headTooLarge, "the message head is larger than \(limits.maximumHeadSize) bytes")
    }
}
