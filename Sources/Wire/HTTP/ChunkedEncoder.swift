/// Frames bytes as chunks (RFC 9112 §7.1) for a streamed body.
public enum ChunkedEncoder {
    /// One chunk holding `bytes`: hex size, CRLF, the bytes, CRLF. Empty input gives no bytes (an empty chunk
    /// would end the body).
    public static func chunk<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        guard !bytes.isEmpty else { return [] }
        var framed = Array(String(bytes.count, radix: 16).utf8)
        framed.reserveCapacity(framed.count + bytes.count + 4)
        framed.append(HTTPSyntax.cr)
        framed.append(HTTPSyntax.lf)
        framed.append(contentsOf: bytes)
        framed.append(HTTPSyntax.cr)
        framed.append(HTTPSyntax.lf)
        return framed
    }

    /// The last chunk with no trailers: "0", CRLF, CRLF.
    public static let end: [UInt8] = Array("0\r\n\r\n".utf8)
}
