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

    /// The limits in force.
    public let limits: HTTPLimits
    private var reader = HTTPMessageReader()
    /// Set by the first error: every later call throws it again.
    private var failure: HTTPError?

    /// Creates a decoder.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { reader.buffer.count }

    /// True between requests: the last one ended and no byte of the next has been decoded.
    public var isAtMessageBoundary: Bool {
        failure == nil && reader.isReadingHead && reader.buffer.isEmpty
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        reader.buffer.append(bytes)
    }

    /// Removes and returns the bytes not decoded yet: after a request that switches protocols (WebSocket), they
    /// belong to the new protocol.
    public mutating func takeBufferedBytes() -> [UInt8] {
        reader.buffer.readAll()
    }

    /// The next piece of a request, or nil when more bytes are needed.
    /// - Throws: ``HTTPError``; its ``HTTPError/status`` is the answer (400, 413, 414, 431, 501, 505).
    public mutating func next() throws(HTTPError) -> Part? {
        if let failure { throw failure }
        do {
            return try decode()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func decode() throws(HTTPError) -> Part? {
        // RFC 9112 §2.2: ignore empty lines before the request line (some clients add CRLF after a body).
        if reader.isAtHeadStart {
            while reader.buffer.count >= 2 && reader.buffer[0] == HTTPSyntax.cr && reader.buffer[1] == HTTPSyntax.lf {
                reader.buffer.skip(2)
            }
            if reader.buffer.count == 1 && reader.buffer[0] == HTTPSyntax.cr { return nil }
        }
        switch try reader.next(limits: limits, isRequest: true) {
        case .head(let lines):
            let (method, target, version) = try HTTPHeadParser.requestLine(lines[0], limits: limits)
            let headers = try HTTPHeadParser.fields(lines[1...])
            let head = HTTPRequestHead(method: method, target: target, version: version, headers: headers)
            try Self.checkHost(head)
            let framing = try HTTPBodyFraming.request(head)
            reader.startBody(framing, limits: limits)
            return .head(head, framing)
        case .body(let bytes):
            return .body(bytes)
        case .end:
            return .end
        case nil:
            return nil
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field.
    private static func checkHost(_ head: HTTPRequestHead) throws(HTTPError) {
        let hosts = head.headers.count("Host")
        if hosts > 1 { throw .malformed("the request has more than one Host field") }
        if hosts == 0 && head.version.minor >= 1 { throw .malformed("an HTTP/1.1 request without a Host field") }
    }
}
