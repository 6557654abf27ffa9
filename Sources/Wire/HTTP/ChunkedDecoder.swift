import ByteIO

/// Decodes a chunked body (RFC 9112 §7.1): `append(_:)` bytes, then `next()` until nil.
///
/// Strict: hex sizes without sign or prefix that fit in an `Int`, chunk extensions only after an optional run of
/// whitespace and a `;`, CRLF after every line and after each chunk's data, trailer fields checked like header
/// fields. The size line and the trailer section are bounded by ``HTTPLimits``; data is handed out as it arrives,
/// so a chunk of any declared size holds no more memory than one read.
public struct ChunkedDecoder: Sendable {
    /// A piece of the decoded body.
    public enum Part: Sendable, Equatable {
        /// Body bytes (never empty).
        case data([UInt8])
        /// The last chunk and its trailer fields: the body is complete.
        case end(trailers: HTTPHeaders)
    }

    private enum State: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers(fields: [HTTPHeaders.Field], bytes: Int)
        case done
    }

    private let limits: HTTPLimits
    private var state = State.size
    private var buffer = InputBuffer()

    /// Creates a decoder.
    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// True once the last chunk and the trailers have been decoded.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        buffer.append(bytes)
    }

    /// The next piece of the body, or nil when more bytes are needed (or the body is complete).
    /// - Throws: ``HTTPError`` `.malformed` or `.headTooLarge` (trailers); the decoder is then unusable.
    public mutating func next() throws(HTTPError) -> Part? {
        var local = InputBuffer()
        swap(&local, &buffer)
        defer { swap(&local, &buffer) }
        return try next(from: &local)
    }

    /// Bytes after the end of the body (the next message on the connection); call after `.end`.
    public mutating func takeRemainingBytes() -> [UInt8] {
        buffer.readAll()
    }

    /// Decodes from a buffer owned by someone else (the request and response decoders).
    mutating func next(from buffer: inout InputBuffer) throws(HTTPError) -> Part? {
        while true {
            switch state {
            case .size:
                guard let line = try takeLine(&buffer, limit: limits.maximumChunkLineLength, what: "chunk size") else {
                    return nil
                }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers(fields: [], bytes: 0) : .data(remaining: size)
            case .data(let remaining):
                guard !buffer.isEmpty else { return nil }
                let count = min(remaining, buffer.count)
                let bytes = buffer.read(count)
                state = remaining == count ? .dataEnd : .data(remaining: remaining - count)
                return .data(bytes)
            case .dataEnd:
                guard buffer.count >= 2 else {
                    if buffer.count == 1 && buffer[0] != HTTPSyntax.cr { throw Self.missingCRLF }
                    return nil
                }
                guard buffer[0] == HTTPSyntax.cr && buffer[1] == HTTPSyntax.lf else { throw Self.missingCRLF }
                buffer.skip(2)
                state = .size
            case .trailers(var fields, let bytes):
                let room = limits.maximumHeadSize - bytes
                guard let line = try takeLine(&buffer, limit: room, what: "trailer section") else { return nil }
                if line.isEmpty {
                    state = .done
                    return .end(trailers: HTTPHeaders(fields))
                }
                fields.append(try HTTPHeadParser.field(line[...]))
                guard fields.count <= limits.maximumFieldCount else {
                    throw HTTPError(.headTooLarge, "more than \(limits.maximumFieldCount) trailer fields")
                }
                state = .trailers(fields: fields, bytes: bytes + line.count + 2)
            case .done:
                return nil
            }
        }
    }

    private static let missingCRLF = HTTPError.malformed("chunk data is not followed by CRLF")

    /// Takes one CRLF-terminated line (without the CRLF) from the front of `buffer`.
    private func takeLine(_ buffer: inout InputBuffer, limit: Int, what: String) throws(HTTPError) -> [UInt8]? {
        guard let lf = buffer.firstIndex(of: HTTPSyntax.lf) else {
            guard buffer.count <= limit + 1 else {
                if case .trailers = state { throw HTTPError(.headTooLarge, "the \(what) is too large") }
                throw .malformed("the \(what) line is longer than \(limit) bytes")
            }
            return nil
        }
        guard lf > 0, buffer[lf - 1] == HTTPSyntax.cr else { throw .malformed("a \(what) line ends in a bare LF") }
        guard lf - 1 <= limit else {
            if case .trailers = state { throw HTTPError(.headTooLarge, "the \(what) is too large") }
            throw .malformed("the \(what) line is longer than \(limit) bytes")
        }
        let line = buffer.read(lf - 1)
        buffer.skip(2)
        guard !line.contains(HTTPSyntax.cr) else { throw .malformed("a bare CR in a \(what) line") }
        return line
    }

    /// RFC 9112 §7.1: `chunk-size [ chunk-ext ]`, where chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ).
    private static func chunkSize(_ line: [UInt8]) throws(HTTPError) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = HTTPSyntax.hexValue(line[index]) {
            guard size <= (Int.max - digit) >> 4 else { throw .malformed("the chunk size does not fit in 63 bits") }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw .malformed("invalid chunk size \"\(HTTPSyntax.excerpt(line))\"") }
        var rest = index
        while rest < line.count, HTTPSyntax.isWhitespace(line[rest]) { rest += 1 }
        if rest == line.count {
            guard rest == index else { throw .malformed("whitespace after the chunk size without an extension") }
            return size
        }
        guard line[rest] == UInt8(ascii: ";") else {
            throw .malformed("invalid chunk size \"\(HTTPSyntax.excerpt(line))\"")
        }
        guard line[(rest + 1)...].allSatisfy(HTTPSyntax.isFieldValueCharacter) else {
            throw .malformed("a control character in a chunk extension")
        }
        return size
    }
}
