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
    public func encoded() -> [UInt8] {
        var text = "\(version) \(status.code) \(status.reasonPhrase)\r\n"
        headers.write(into: &text)
        text += "\r\n"
        return Array(text.utf8)
    }
}
