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
    public func encoded(after first: HTTPEncodedFields, _ second: HTTPEncodedFields,
                        extraCapacity: Int = 0) -> [UInt8] {
        encoded(after: first, second, framing: Framing(), extraCapacity: extraCapacity)
    }

    /// The framing fields a server adds after a response's own (``HTTPServerMachine``), written without adding
    /// them to ``headers``.
    struct Framing {
        enum Connection {
            case close
            case keepAlive
        }

        /// `Content-Length`.
        var contentLength: Int?
        /// `Transfer-Encoding: chunked`.
        var chunked = false
        /// `Connection: close` or `Connection: keep-alive`.
        var connection: Connection?
    }

    /// The head as sent on the wire: the fields encoded beforehand, ``headers``, then the framing fields.
    func encoded(after first: HTTPEncodedFields, _ second: HTTPEncodedFields, framing: Framing,
                 extraCapacity: Int) -> [UInt8] {
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
        headers.writeFields(into: &bytes)
        if let length = framing.contentLength {
            Self.writeField("Content-Length: ", into: &bytes)
            Self.writeDecimal(length, into: &bytes)
            bytes.append(HTTPSyntax.cr)
            bytes.append(HTTPSyntax.lf)
        }
        if framing.chunked { Self.writeField("Transfer-Encoding: chunked\r\n", into: &bytes) }
        switch framing.connection {
        case .close: Self.writeField("Connection: close\r\n", into: &bytes)
        case .keepAlive: Self.writeField("Connection: keep-alive\r\n", into: &bytes)
        case nil: break
        }
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        return bytes
    }

    private static func writeField(_ text: StaticString, into bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A non-negative number in decimal.
    private static func writeDecimal(_ value: Int, into bytes: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = max(value, 0)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
