import HTTP
import TestSupport
import Testing

/// Parts of a decoded request stream, with the body pieces joined (their split depends on the feed).
private struct Decoded: Equatable {
    var heads: [HTTPRequestHead] = []
    var framings: [HTTPBodyFraming] = []
    var bodies: [[UInt8]] = []
    var ends = 0
    var error: HTTPError?
}

private func decode(_ vectors: [[UInt8]], _ mode: FeedMode, limits: HTTPLimits = HTTPLimits()) -> Decoded {
    var decoder = HTTPRequestDecoder(limits: limits)
    var result = Decoded()
    for piece in mode.pieces(vectors) {
        decoder.append(piece)
        do {
            while let part = try decoder.next() {
                switch part {
                case .head(let head, let framing):
                    result.heads.append(head)
                    result.framings.append(framing)
                    result.bodies.append([])
                case .body(let bytes):
                    result.bodies[result.bodies.count - 1] += bytes
                case .end:
                    result.ends += 1
                }
            }
        } catch {
            result.error = error
            return result
        }
    }
    return result
}

struct HTTPRequestDecoderTests {
    /// RFC 9112 §3's shape with RFC 9110 §5's fields, then a Content-Length body and a chunked body (the
    /// "Wikipedia in chunks" example), all on one connection.
    static let pipelined: [[UInt8]] = [
        bytes("GET /hello.txt HTTP/1.1\r\n"          // request line
              + "User-Agent: curl/7.64.1\r\n"        // fields
              + "Host: www.example.com\r\n"
              + "Accept-Language: en, mi\r\n"
              + "\r\n"),                             // end of head, no body
        bytes("POST /v1/items?x=1 HTTP/1.1\r\n"
              + "Host: a\r\n"
              + "Content-Length: 5\r\n"              // five body bytes follow
              + "\r\n"
              + "hello"),
        bytes("PUT /upload HTTP/1.1\r\n"
              + "Host: a\r\n"
              + "Transfer-Encoding: chunked\r\n"
              + "\r\n"
              + "4\r\nWiki\r\n"                        // chunk of 4
              + "5;name=value\r\npedia\r\n"            // chunk of 5 with an extension
              + "E\r\n in\r\n\r\nchunks.\r\n"          // chunk of 14 (upper-case hex)
              + "0\r\n"                                // last chunk
              + "Expires: never\r\n"                   // a trailer field
              + "\r\n"),
    ]

    @Test(arguments: FeedMode.allCases)
    func decodesPipelinedRequests(mode: FeedMode) {
        let result = decode(Self.pipelined, mode)
        #expect(result.error == nil)
        #expect(result.heads.map(\.method) == [.get, .post, .put])
        #expect(result.heads.map(\.target) == ["/hello.txt", "/v1/items?x=1", "/upload"])
        #expect(result.heads[0].headers["user-agent"] == "curl/7.64.1")
        #expect(result.heads[0].headers.values("Accept-Language") == ["en, mi"])
        #expect(result.framings == [.none, .length(5), .chunked])
        #expect(result.bodies == [[], bytes("hello"), bytes("Wikipedia in\r\n\r\nchunks.")])
        #expect(result.ends == 3)
    }

    @Test(arguments: FeedMode.allCases)
    func ignoresEmptyLinesBeforeARequest(mode: FeedMode) {
        let result = decode([bytes("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")], mode)
        #expect(result.error == nil)
        #expect(result.heads.count == 1)
    }

    @Test func trimsWhitespaceAroundValues() throws {
        let result = decode([bytes("GET / HTTP/1.1\r\nHost:a\r\nX-A: \t spaced \t\r\nX-B:\r\n\r\n")], .whole)
        #expect(result.heads.first?.headers["X-A"] == "spaced")
        #expect(result.heads.first?.headers["X-B"] == "")
    }

    @Test func acceptsHTTP10WithoutHostAndAbsoluteAndAsteriskTargets() {
        let result = decode([bytes("GET / HTTP/1.0\r\n\r\n"),
                             bytes("GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\n\r\n"),
                             bytes("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n")], .merged)
        #expect(result.error == nil)
        #expect(result.heads.map(\.version) == [.http1_0, .http1_1, .http1_1])
        #expect(result.heads[1].parsedTarget?.pathSegments == ["a"])
    }

    /// Request smuggling and malformed heads (RFC 9112 §2.2, §3, §5, §6.1, §6.3, §7.1): each is answered with
    /// the status given, then the connection closes.
    @Test(arguments: [
        ("both lengths", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("TE in 1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("chunked twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400),
        ("chunked twice in two fields",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("chunked not last", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        ("no chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("TE obfuscated", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n", 400),
        ("empty TE", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n", 400),
        ("gzip then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("duplicate length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", 400),
        ("length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\n", 400),
        ("signed length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\n", 400),
        ("negative length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("hex length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\n", 400),
        ("spaced length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", 400),
        ("huge length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", 400),
        ("space before first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400),
        ("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
        ("space in name", "GET / HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n", 400),
        ("no colon", "GET / HTTP/1.1\r\nHost: a\r\nXA\r\n\r\n", 400),
        ("empty name", "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", 400),
        ("NUL in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\0c\r\n\r\n", 400),
        ("DEL in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{7F}\r\n\r\n", 400),
        ("bare CR in value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", 400),
        ("bare LF line end", "GET / HTTP/1.1\nHost: a\n\n", 400),
        ("bare LF after a field", "GET / HTTP/1.1\r\nHost: a\n\r\n", 400),
        ("no Host in 1.1", "GET / HTTP/1.1\r\n\r\n", 400),
        ("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("lower-case version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        ("long version", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
        ("HTTP/2", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("double space", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("tab separator", "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("relative target", "GET index.html HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("non-ASCII target", "GET /é HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("bad method", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("chunk size 0x",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 400),
        ("chunk size negative", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", 400),
        ("chunk size overflow",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", 400),
        ("chunk size with space",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n", 400),
        ("chunk without CRLF",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", 400),
        ("chunk line bare LF", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n", 400),
        ("chunk extension control",
         "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\u{1}\r\nhello\r\n", 400),
        ("bad trailer", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX A: b\r\n\r\n", 400),
    ])
    func refusesMalformedRequests(name: String, request: String, status: Int) {
        for mode in FeedMode.allCases {
            let result = decode([Array(request.utf8)], mode)
            #expect(result.error?.status.code == status, "\(name), \(mode)")
        }
    }

    @Test(arguments: FeedMode.allCases)
    func refusesAHeadLargerThanTheLimit(mode: FeedMode) {
        let big = "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "a", count: 17 * 1024) + "\r\n\r\n"
        #expect(decode([bytes(big)], mode).error?.code == .headTooLarge)
        // The limit is on the whole head: one byte under it passes.
        let fits = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 16 * 1024 - 32) + "\r\n\r\n"
        #expect(fits.utf8.count == 16 * 1024)
        #expect(decode([bytes(fits)], mode).error == nil)
    }

    @Test(arguments: FeedMode.allCases)
    func refusesAnOverlongTarget(mode: FeedMode) {
        let target = "/" + String(repeating: "a", count: 8 * 1024)
        #expect(decode([bytes("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n")], mode).error?.code == .uriTooLong)
        // Still arriving: refused once the line is longer than the target limit allows.
        #expect(decode([bytes("GET \(target)\(target)")], mode).error?.code == .uriTooLong)
        #expect(decode([bytes("GET /\(String(repeating: "a", count: 8 * 1024 - 1)) HTTP/1.1\r\nHost: a\r\n\r\n")],
                       mode).error == nil)
    }

    @Test func refusesNonHTTPBytes() {
        let noise = [UInt8](repeating: 0x41, count: 9000)
        #expect(decode([noise], .whole).error?.code == .malformed)
    }

    @Test func refusesTooManyFields() {
        let fields = (0..<101).map { "X-\($0): v\r\n" }.joined()
        #expect(decode([bytes("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n")], .whole).error?.code == .headTooLarge)
    }

    @Test func staysFailedAfterAnError() throws {
        var decoder = HTTPRequestDecoder()
        decoder.append(bytes("GET / HTTP/1.1\r\nHost : a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(throws: HTTPError.self) { try decoder.next() }
        #expect(throws: HTTPError.self) { try decoder.next() }
    }

    @Test func handsOverBytesAfterAnUpgradeRequest() throws {
        var decoder = HTTPRequestDecoder()
        decoder.append(bytes("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n") + [0x81, 0x80])
        guard case .head = try decoder.next() else { Issue.record("no head"); return }
        #expect(try decoder.next() == .end)
        #expect(decoder.takeBufferedBytes() == [0x81, 0x80])
    }
}
