import ByteIO

/// What the request and the response decoders share (RFC 9112 §2.1): the bytes received, the scan for the end of a
/// head, and the body of the message in progress. Each decoder parses its own start line and says how the body that
/// follows is framed (``startBody(_:limits:)``).
struct HTTPMessageReader: Sendable {
    enum Part: Sendable, Equatable {
        /// A whole head, split into lines: the start line, then the field lines.
        case head([ArraySlice<UInt8>])
        /// Body bytes (never empty).
        case body([UInt8])
        /// The body is complete: the next bytes begin a head.
        case end
    }

    /// Bytes received and not yet decoded.
    var buffer = InputBuffer()
    private var scanner = HTTPHeadScanner()
    /// The body being read; nil while a head is.
    private var body: HTTPBodyDecoder?

    /// True while a head is read and none of it has been scanned yet.
    var isAtHeadStart: Bool { body == nil && scanner.isAtStart }

    /// True while a head is read (between messages, or inside a head).
    var isReadingHead: Bool { body == nil }

    /// True while reading a body that only the end of the connection ends.
    var bodyEndsWithConnection: Bool { body?.endsWithConnection ?? false }

    /// The next piece of a message, or nil when more bytes are needed. After `.head`, the caller calls
    /// ``startBody(_:limits:)`` before the next call.
    mutating func next(limits: HTTPLimits, isRequest: Bool) throws(HTTPError) -> Part? {
        guard var decoder = body else {
            guard !buffer.isEmpty, let length = try scanner.scan(buffer, limits: limits, isRequest: isRequest) else {
                return nil
            }
            let bytes = buffer.read(length)
            scanner.reset()
            return .head(HTTPHeadParser.lines(bytes))
        }
        let part = try decoder.next(from: &buffer)
        switch part {
        case .data(let bytes):
            body = decoder
            return .body(bytes)
        case .end:
            body = nil
            return .end
        case nil:
            body = decoder
            return nil
        }
    }

    /// The head just read is followed by a body framed as `framing`.
    mutating func startBody(_ framing: HTTPBodyFraming, limits: HTTPLimits) {
        body = HTTPBodyDecoder(framing, limits: limits)
    }

    /// Ends the body in progress (the connection closed a body that runs until the close).
    mutating func endBody() {
        body = nil
    }
}
