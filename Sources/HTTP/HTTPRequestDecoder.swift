import ByteIO

/// Decodes requests from a connection's bytes (RFC 9112), one after another (pipelining): `append(_:)` bytes, then
/// `next()` until nil.
///
/// Each request comes out as `.head`, any `.body` pieces, then `.end`. Errors carry the status a server answers
/// before closing (``HTTPError/status``); after one, the decoder stays failed. Bodies are handed out as they
/// arrive: the caller enforces its own body limit (``HTTPServerMachine`` does).
public struct HTTPRequestDecoder: Sendable {
    /// A piece of a request.
    public enum Part: Sendable, Equatable {
        /// The head and how its body is framed.
        case head(HTTPRequestHead, HTTPBodyFraming)
        /// Body bytes (never empty).
        case body([UInt8])
        /// The request is complete.
        case end
    }

    private enum State: Sendable {
        case head
        case body(HTTPBodyDecoder)
        case failed(HTTPError)
    }

    /// The limits in force.
    public let limits: HTTPLimits
    private var buffer = InputBuffer()
    private var scanner = HTTPHeadScanner()
    private var state = State.head

    /// Creates a decoder.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { buffer.count }

    /// True between requests: the last one ended and no byte of the next has been decoded.
    public var isAtMessageBoundary: Bool {
        if case .head = state { return buffer.isEmpty }
        return false
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        buffer.append(bytes)
    }

    /// Removes and returns the bytes not decoded yet: after a request that switches protocols (WebSocket), they
    /// belong to the new protocol.
    public mutating func takeBufferedBytes() -> [UInt8] {
        buffer.readAll()
    }

    /// The next piece of a request, or nil when more bytes are needed.
    /// - Throws: ``HTTPError``; its ``HTTPError/status`` is the answer (400, 413, 414, 431, 501, 505).
    public mutating func next() throws(HTTPError) -> Part? {
        do {
            return try decode()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func decode() throws(HTTPError) -> Part? {
        switch state {
        case .failed(let error):
            throw error
        case .head:
            return try decodeHead()
        case .body(var body):
            let part = try body.next(from: &buffer)
            state = .body(body)
            switch part {
            case .data(let bytes):
                return .body(bytes)
            case .end:
                state = .head
                return .end
            case nil:
                return nil
            }
        }
    }

    private mutating func decodeHead() throws(HTTPError) -> Part? {
        // RFC 9112 §2.2: ignore empty lines before the request line (some clients add CRLF after a body).
        if scannerAtStart {
            while buffer.count >= 2 && buffer[0] == HTTPSyntax.cr && buffer[1] == HTTPSyntax.lf { buffer.skip(2) }
            if buffer.count == 1 && buffer[0] == HTTPSyntax.cr { return nil }
        }
        guard !buffer.isEmpty, let length = try scanner.scan(buffer, limits: limits, isRequest: true) else {
            return nil
        }
        let bytes = buffer.read(length)
        scanner.reset()
        let lines = HTTPHeadParser.lines(bytes)
        let (method, target, version) = try HTTPHeadParser.requestLine(lines[0], limits: limits)
        let headers = try HTTPHeadParser.fields(lines[1...])
        let head = HTTPRequestHead(method: method, target: target, version: version, headers: headers)
        try Self.checkHost(head)
        let framing = try HTTPBodyFraming.request(head)
        state = .body(HTTPBodyDecoder(framing, limits: limits))
        return .head(head, framing)
    }

    private var scannerAtStart: Bool {
        if case .head = state { return scanner.isAtStart }
        return false
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field.
    private static func checkHost(_ head: HTTPRequestHead) throws(HTTPError) {
        let hosts = head.headers.count("Host")
        if hosts > 1 { throw .malformed("the request has more than one Host field") }
        if hosts == 0 && head.version.minor >= 1 { throw .malformed("an HTTP/1.1 request without a Host field") }
    }
}
