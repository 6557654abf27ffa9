/// Parses a complete head (as found by ``HTTPHeadScanner``: every line ends in CRLF) into its parts.
enum HTTPHeadParser {
    /// The lines of a head without their CRLF, the final empty line left out.
    static func lines(_ head: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        // Room for a usual request's lines at once (growing one line at a time reallocated on every request).
        lines.reserveCapacity(8)
        var start = 0
        var index = 0
        while index + 1 < head.count {
            if head[index] == HTTPSyntax.cr && head[index + 1] == HTTPSyntax.lf {
                if index == start { break }
                lines.append(head[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        return lines
    }

    /// Parses field lines (RFC 9112 §5).
    /// - Throws: `.malformed` for obsolete line folding, a missing colon, whitespace before the colon, a bad
    ///   name or a control character in a value.
    static func fields(_ lines: ArraySlice<ArraySlice<UInt8>>) throws(HTTPError) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(lines.count)
        for line in lines {
            fields.append(try field(line))
        }
        return HTTPHeaders(fields)
    }

    /// Parses one `name: value` line.
    static func field(_ line: ArraySlice<UInt8>) throws(HTTPError) -> HTTPHeaders.Field {
        guard let first = line.first, !HTTPSyntax.isWhitespace(first) else {
            // RFC 9112 §5.2: obs-fold (or whitespace before the first field) is rejected, not unfolded.
            throw .malformed("a header line starts with whitespace (obsolete line folding)")
        }
        guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
            throw .malformed("a header line has no colon: \(HTTPSyntax.excerpt(line))")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(HTTPSyntax.isTokenCharacter) else {
            // RFC 9112 §5.1: no whitespace is allowed between the name and the colon.
            throw .malformed("invalid header name \"\(HTTPSyntax.excerpt(name))\"")
        }
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, HTTPSyntax.isWhitespace(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, HTTPSyntax.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        guard value.allSatisfy(HTTPSyntax.isFieldValueCharacter) else {
            throw .malformed("a control character in the value of \(String(decoding: name, as: UTF8.self))")
        }
        return HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self),
                                 value: String(decoding: value, as: UTF8.self))
    }

    /// Parses "HTTP/x.y" (RFC 9112 §2.3).
    /// - Throws: `.malformed` when it is not that shape, `.unsupportedVersion` for a major version other than 1.
    static func version(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        guard bytes.count == 8, bytes.prefix(5).elementsEqual("HTTP/".utf8),
              bytes[bytes.startIndex + 6] == UInt8(ascii: "."),
              let major = digit(bytes[bytes.startIndex + 5]), let minor = digit(bytes[bytes.startIndex + 7]) else {
            throw .malformed("not an HTTP version: \"\(HTTPSyntax.excerpt(bytes))\"")
        }
        guard major == 1 else {
            throw HTTPError(.unsupportedVersion, "HTTP/\(major).\(minor) is not supported; this server speaks HTTP/1.1")
        }
        return HTTPVersion(major: major, minor: minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// Parses a request line: `method SP request-target SP HTTP-version` (RFC 9112 §3), single spaces only.
    static func requestLine(_ line: ArraySlice<UInt8>,
                            limits: HTTPLimits) throws(HTTPError) -> (HTTPMethod, String, HTTPVersion) {
        guard let firstSpace = line.firstIndex(of: HTTPSyntax.space) else {
            throw .malformed("not a request line: \"\(HTTPSyntax.excerpt(line))\"")
        }
        let method = line[line.startIndex..<firstSpace]
        guard !method.isEmpty, method.allSatisfy(HTTPSyntax.isTokenCharacter) else {
            throw .malformed("invalid method \"\(HTTPSyntax.excerpt(method))\"")
        }
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.lastIndex(of: HTTPSyntax.space) else {
            throw .malformed("the request line has no HTTP version")
        }
        let target = line[(firstSpace + 1)..<secondSpace]
        guard target.count <= limits.maximumURILength else {
            throw HTTPError(.uriTooLong, "the request target is longer than \(limits.maximumURILength) bytes")
        }
        // RFC 9112 §3.2: the target has no whitespace and no controls; non-ASCII must be percent-encoded.
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed("invalid request target \"\(HTTPSyntax.excerpt(target))\"")
        }
        let version = try version(line[(secondSpace + 1)...])
        let targetText = String(decoding: target, as: UTF8.self)
        let methodValue = HTTPMethod(rawValue: String(decoding: method, as: UTF8.self))
        try checkTargetForm(targetText, method: methodValue)
        return (methodValue, targetText, version)
    }

    /// RFC 9112 §3.2: origin-form ("/path?query"), absolute-form ("http://host/path"), asterisk-form ("*", for
    /// OPTIONS) and authority-form ("host:port", for CONNECT).
    private static func checkTargetForm(_ target: String, method: HTTPMethod) throws(HTTPError) {
        if target.hasPrefix("/") { return }
        if target == "*" && method == .options { return }
        if method == .connect { return }
        let lowered = target.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return }
        throw .malformed("the request target \"\(HTTPSyntax.excerpt(target.utf8))\" is not a path or absolute URL")
    }

    /// Parses a status line: `HTTP-version SP status-code SP [reason-phrase]` (RFC 9112 §4). A missing space
    /// after the code is tolerated (some servers send "HTTP/1.1 200").
    static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (HTTPVersion, HTTPStatus) {
        guard line.count >= 12, line[line.startIndex + 8] == HTTPSyntax.space else {
            throw .malformed("not a status line: \"\(HTTPSyntax.excerpt(line))\"")
        }
        let version = try version(line.prefix(8))
        var code = 0
        for byte in line[(line.startIndex + 9)..<(line.startIndex + 12)] {
            guard let value = digit(byte) else {
                throw .malformed("invalid status code in \"\(HTTPSyntax.excerpt(line))\"")
            }
            code = code * 10 + value
        }
        guard code >= 100 else { throw .malformed("status code \(code) is below 100") }
        var reason = line[(line.startIndex + 12)...]
        if let first = reason.first {
            guard first == HTTPSyntax.space else { throw .malformed("no space after the status code") }
            reason = reason.dropFirst()
        }
        guard reason.allSatisfy(HTTPSyntax.isFieldValueCharacter) else {
            throw .malformed("a control character in the reason phrase")
        }
        return (version, HTTPStatus(code: code, reasonPhrase: String(decoding: reason, as: UTF8.self)))
    }
}
