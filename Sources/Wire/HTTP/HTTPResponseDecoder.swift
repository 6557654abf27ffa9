/// Decodes the responses a client receives (RFC 9112): call ``expectResponse(to:)`` for each request sent, then
/// `append(_:)` bytes and `next()` until nil; ``connectionClosed()`` ends a body delimited by the close.
///
/// Interim 1xx responses are skipped, except 101 (Switching Protocols), after which the decoder stops: the
/// remaining bytes (``takeBufferedBytes()``) belong to the new protocol.
public struct HTTPResponseDecoder: Sendable {
    /// A piece of a response.
    public enum Part: Sendable, Equatable {
        /// The status line and fields.
        case head(HTTPResponseHead)
        /// Body bytes (never empty).
        case body([UInt8])
        /// The response is complete.
        case end
    }

    private enum State: Sendable {
        /// Reading responses.
        case reading
        /// After a 101 response: the remaining bytes belong to the new protocol.
        case switched
        case failed(HTTPError)
    }

    /// The limits in force.
    public let limits: HTTPLimits
    private var reader = HTTPMessageReader()
    private var state = State.reading
    private var methods: [HTTPMethod] = []

    /// Creates a decoder.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Says that a request with `method` was sent: its response is framed accordingly (a response to HEAD has no
    /// body). Responses are matched to requests in order.
    public mutating func expectResponse(to method: HTTPMethod) {
        methods.append(method)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        reader.buffer.append(bytes)
    }

    /// Removes and returns the bytes not decoded (after a 101 response).
    public mutating func takeBufferedBytes() -> [UInt8] {
        reader.buffer.readAll()
    }

    /// The next piece of a response, or nil when more bytes are needed.
    /// - Throws: ``HTTPError`` `.malformed`, `.headTooLarge` or `.unsupportedVersion`.
    public mutating func next() throws(HTTPError) -> Part? {
        switch state {
        case .failed(let error):
            throw error
        case .switched:
            return nil
        case .reading:
            do {
                return try decode()
            } catch {
                state = .failed(error)
                throw error
            }
        }
    }

    /// The peer closed the connection: ends a body that runs until the close.
    /// - Returns: `.end` when that completes a response, nil when the close came between responses.
    /// - Throws: `.truncated` when it cut a response short.
    public mutating func connectionClosed() throws(HTTPError) -> Part? {
        switch state {
        case .reading where reader.bodyEndsWithConnection:
            guard reader.buffer.isEmpty else { return try next() }
            reader.endBody()
            return .end
        case .reading where reader.isReadingHead:
            guard reader.buffer.isEmpty else {
                throw HTTPError(.truncated, "the connection closed inside a response head")
            }
            return nil
        case .reading:
            throw HTTPError(.truncated, "the connection closed before the response body was complete")
        case .switched:
            return nil
        case .failed(let error):
            throw error
        }
    }

    private mutating func decode() throws(HTTPError) -> Part? {
        // Interim responses (100 Continue, 103 Early Hints) come before the final one of the same request.
        while true {
            switch try reader.next(limits: limits, isRequest: false) {
            case .head(let lines):
                let (version, status) = try HTTPHeadParser.statusLine(lines[0])
                let head = HTTPResponseHead(status: status, version: version,
                                            headers: try HTTPHeadParser.fields(lines[1...]))
                if status.code == HTTPStatus.switchingProtocols.code {
                    state = .switched
                    return .head(head)
                }
                if status.isInformational { continue }
                let method = methods.isEmpty ? HTTPMethod.get : methods.removeFirst()
                reader.startBody(try HTTPBodyFraming.response(head, to: method), limits: limits)
                return .head(head)
            case .body(let bytes):
                return .body(bytes)
            case .end:
                return .end
            case nil:
                return nil
            }
        }
    }
}
