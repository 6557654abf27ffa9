/// A response's status line and header fields.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The protocol version.
    public var version: HTTPVersion
    /// The status.
    public var status: HTTPStatus
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a response head.
    public init(status: HTTPStatus, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
        self.version = version
        self.status = status
        self.headers = headers
    }

    /// The head as sent on the wire, ending with the empty line.
    /// - Parameter extraCapacity: room to leave after the head (a body about to be appended to the same array).
    public func encoded(extraCapacity: Int = 0) -> [UInt8] {
        encoded(after: .none, .none, extraCapacity: extraCapacity)
    }

    /// The head as sent on the wire, with fields encoded beforehand first (in the order given), then ``headers``.
    /// - Parameter extraCapacity: room to leave after the head (a body about to be appended to the same array).
    public func encoded(after first: HTTPEncodedFields, _ second: HTTPEncodedFields, extraCapacity: Int = 0) -> [UInt8] {
        // Byte by byte rather than by string interpolation: written for every response.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + first.count + second.count + extraCapacity)
        version.write(into: &bytes)
        bytes.append(HTTPSyntax.space)
        let code = min(max(status.code, 100), 999)
        bytes.append(UInt8(ascii: "0") + UInt8(code / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(code % 10))
        bytes.append(HTTPSyntax.space)
        HTTPHeaders.append(status.reasonPhrase, to: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        bytes.append(contentsOf: first.bytes)
        bytes.append(contentsOf: second.bytes)
        headers.write(into: &bytes)
        return bytes
    }
}
