import HTTP
import TestSupport
import Testing

private struct Response: Equatable {
    var heads: [HTTPResponseHead] = []
    var bodies: [[UInt8]] = []
    var ends = 0
}

private func decodeResponses(_ vectors: [[UInt8]], _ mode: FeedMode, methods: [HTTPMethod],
                             closeAtEnd: Bool = false) throws -> Response {
    var decoder = HTTPResponseDecoder()
    for method in methods { decoder.expectResponse(to: method) }
    var result = Response()
    func take(_ part: HTTPResponseDecoder.Part) {
        switch part {
        case .head(let head):
            result.heads.append(head)
            result.bodies.append([])
        case .body(let bytes):
            result.bodies[result.bodies.count - 1] += bytes
        case .end:
            result.ends += 1
        }
    }
    for piece in mode.pieces(vectors) {
        decoder.append(piece)
        while let part = try decoder.next() { take(part) }
    }
    if closeAtEnd, let part = try decoder.connectionClosed() { take(part) }
    return result
}

struct HTTPResponseDecoderTests {
    static let responses: [[UInt8]] = [
        bytes("HTTP/1.1 100 Continue\r\n\r\n"),                          // interim: skipped
        bytes("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"),
        bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"),            // answer to HEAD: no body
        bytes("HTTP/1.1 204 No Content\r\n\r\n"),
        bytes("HTTP/1.1 201 Created\r\nLocation: /x/1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"),
        bytes("HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n\r\n"),
        bytes("HTTP/1.0 200\r\n\r\nuntil the end"),                       // no reason phrase, read until close
    ]

    @Test(arguments: FeedMode.allCases)
    func decodesResponsesInOrder(mode: FeedMode) throws {
        let result = try decodeResponses(Self.responses, mode, methods: [.get, .head, .delete, .post, .get, .get],
                                         closeAtEnd: true)
        #expect(result.heads.map(\.status.code) == [200, 200, 204, 201, 304, 200])
        #expect(result.heads[3].headers["location"] == "/x/1")
        #expect(result.bodies == [bytes("abc"), [], [], bytes("ok"), [], bytes("until the end")])
        #expect(result.ends == 6)
    }

    @Test func stopsAtSwitchingProtocols() throws {
        var decoder = HTTPResponseDecoder()
        decoder.expectResponse(to: .get)
        decoder.append(bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n") + [0x81, 0x00])
        guard case .head(let head) = try decoder.next() else { Issue.record("no head"); return }
        #expect(head.status == .switchingProtocols)
        #expect(try decoder.next() == nil)
        #expect(decoder.takeBufferedBytes() == [0x81, 0x00])
    }

    @Test func reportsATruncatedBody() throws {
        var decoder = HTTPResponseDecoder()
        decoder.expectResponse(to: .get)
        decoder.append(bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))
        _ = try decoder.next()
        _ = try decoder.next()
        #expect(throws: HTTPError.self) { try decoder.connectionClosed() }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/1.1 200OK\r\n\r\n",
        "HTTP/3.0 200 OK\r\n\r\n",
        "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
    ])
    func refusesMalformedResponses(response: String) {
        var decoder = HTTPResponseDecoder()
        decoder.expectResponse(to: .get)
        decoder.append(bytes(response))
        #expect(throws: HTTPError.self) { try decoder.next() }
    }

    @Test func acceptsRepeatedEqualLengths() throws {
        let result = try decodeResponses([bytes("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok")], .whole,
                                         methods: [.get])
        #expect(result.bodies == [bytes("ok")])
    }
}
