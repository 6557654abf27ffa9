import HTTP
import TestSupport
import Testing

private let anyLimit: @Sendable (HTTPRequestHead) -> Int = { _ in 1024 }

/// The requests a machine handed out and the bytes it wrote, answering every request with `body`.
private struct Exchange {
    var machine = HTTPServerMachine()
    var requests: [(HTTPRequestHead, [UInt8])] = []
    var written: [UInt8] = []
    var closed: Bool?
    var rejections: [HTTPError] = []

    mutating func run(_ actions: [HTTPServerMachine.Action], answer body: String = "ok") {
        var pending = actions
        while !pending.isEmpty {
            let action = pending.removeFirst()
            switch action {
            case .write(let bytes):
                written += bytes
            case .request(let head, let requestBody):
                requests.append((head, requestBody))
                written += machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: body.utf8.count)
                written += machine.responseBody(Array(body.utf8))
                pending += machine.endResponse(bodyLimit: anyLimit)
            case .reject(let error):
                rejections.append(error)
                written += machine.startResponse(HTTPResponseHead(status: error.status), bodyLength: 0)
                pending += machine.endResponse(bodyLimit: anyLimit)
            case .close(let linger):
                closed = linger
            }
        }
    }

    var text: String { String(decoding: written, as: UTF8.self) }
}

struct HTTPServerMachineTests {
    @Test(arguments: FeedMode.allCases)
    func answersPipelinedRequestsInOrderOnOneConnection(mode: FeedMode) {
        var exchange = Exchange()
        let vectors = [bytes("GET /a HTTP/1.1\r\nHost: h\r\n\r\n"),
                       bytes("POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"),
                       bytes("GET /c HTTP/1.1\r\nHost: h\r\n\r\n")]
        for piece in mode.pieces(vectors) {
            exchange.run(exchange.machine.received(piece, bodyLimit: anyLimit))
        }
        #expect(exchange.requests.map(\.0.target) == ["/a", "/b", "/c"])
        #expect(exchange.requests.map(\.1) == [[], bytes("hi"), []])
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        #expect(exchange.text == String(repeating: answer, count: 3))
        #expect(exchange.closed == nil)
        #expect(exchange.machine.phase == .idle)
    }

    @Test func closesAfterConnectionClose() {
        var exchange = Exchange()
        exchange.run(exchange.machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
                                               bodyLimit: anyLimit))
        #expect(exchange.text == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        #expect(exchange.closed == false)
    }

    @Test func http10ClosesUnlessKeepAliveIsAskedFor() {
        var plain = Exchange()
        plain.run(plain.machine.received(bytes("GET / HTTP/1.0\r\n\r\n"), bodyLimit: anyLimit))
        #expect(plain.text.contains("Connection: close\r\n"))
        #expect(plain.closed == false)
        var kept = Exchange()
        kept.run(kept.machine.received(bytes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), bodyLimit: anyLimit))
        #expect(kept.text.contains("Connection: keep-alive\r\n"))
        #expect(kept.closed == nil)
    }

    @Test func sendsContinueBeforeReadingAnExpectedBody() {
        var exchange = Exchange()
        exchange.run(exchange.machine.received(
            bytes("PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"),
            bodyLimit: anyLimit))
        #expect(exchange.text == "HTTP/1.1 100 Continue\r\n\r\n")
        exchange.run(exchange.machine.received(bytes("abc"), bodyLimit: anyLimit))
        #expect(exchange.requests.map(\.1) == [bytes("abc")])
    }

    @Test func refusesAnOversizedBodyBeforeReadingIt() {
        var exchange = Exchange()
        exchange.run(exchange.machine.received(
            bytes("PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"),
            bodyLimit: anyLimit))
        #expect(exchange.rejections.map(\.status) == [.contentTooLarge])
        #expect(exchange.text.hasPrefix("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close"))
        #expect(!exchange.text.contains("100 Continue"))
        #expect(exchange.closed == true)
        // What follows is discarded.
        #expect(exchange.machine.received([UInt8](repeating: 0, count: 5000), bodyLimit: anyLimit).isEmpty)
    }

    @Test func refusesAChunkedBodyThatGrowsPastTheLimit() {
        var exchange = Exchange()
        let chunk = ChunkedEncoder.chunk([UInt8](repeating: 1, count: 600))
        exchange.run(exchange.machine.received(
            bytes("POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n") + chunk + chunk,
            bodyLimit: anyLimit))
        #expect(exchange.rejections.map(\.status) == [.contentTooLarge])
        #expect(exchange.requests.isEmpty)
    }

    @Test func refusesAnUnknownExpectation() {
        var exchange = Exchange()
        exchange.run(exchange.machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\nExpect: magic\r\n\r\n"),
                                               bodyLimit: anyLimit))
        #expect(exchange.rejections.map(\.status) == [.expectationFailed])
    }

    @Test func malformedRequestsAreRejectedAndLingerClosed() {
        var exchange = Exchange()
        exchange.run(exchange.machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n"),
                                               bodyLimit: anyLimit))
        #expect(exchange.rejections.map(\.status) == [.badRequest])
        #expect(exchange.closed == true)
        #expect(exchange.machine.phase == .done)
    }

    @Test func answersHeadWithoutABodyAndStreamsChunked() {
        var machine = HTTPServerMachine()
        guard case .request = machine.received(bytes("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n"), bodyLimit: anyLimit).first
        else { Issue.record("no request"); return }
        var written = machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: 5)
        written += machine.responseBody(bytes("hello"))
        #expect(machine.endResponse(bodyLimit: anyLimit).isEmpty)
        #expect(String(decoding: written, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")

        guard case .request = machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), bodyLimit: anyLimit).first
        else { Issue.record("no request"); return }
        written = machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: nil)
        written += machine.responseBody(bytes("ab")) + machine.responseBody(bytes("c"))
        #expect(machine.endResponse(bodyLimit: anyLimit) == [.write(ChunkedEncoder.end)])
        #expect(String(decoding: written, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n")
    }

    @Test func sendsFieldsEncodedBeforehandFirstThenTheHeadsAndTheFraming() {
        let shared = HTTPEncodedFields(["Content-Type": "video/mp4", "Cache-Control": "immutable"])
        let server = HTTPEncodedFields(["Date": "Tue, 01 Dec 2026 12:00:00 GMT", "Server": "stream"])
        #expect(server.hasDate && server.hasServer && !shared.hasDate && !shared.hasServer)
        var machine = HTTPServerMachine()
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), bodyLimit: anyLimit)
        let head = machine.startResponse(HTTPResponseHead(status: .ok, headers: ["X-Extra": "1"]),
                                         encodedFields: shared, server, bodyLength: 3)
        #expect(String(decoding: head, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nCache-Control: immutable\r\n"
                + "Date: Tue, 01 Dec 2026 12:00:00 GMT\r\nServer: stream\r\nX-Extra: 1\r\nContent-Length: 3\r\n\r\n")
        #expect(machine.responseBody(bytes("abc")) == bytes("abc"))
        #expect(machine.endResponse(bodyLimit: anyLimit).isEmpty)

        // The machine still decides the framing: an HTTP/1.0 client without keep-alive is told the connection closes.
        _ = machine.received(bytes("GET / HTTP/1.0\r\n\r\n"), bodyLimit: anyLimit)
        let closing = machine.startResponse(HTTPResponseHead(status: .notFound), encodedFields: shared, bodyLength: 0)
        #expect(String(decoding: closing, as: UTF8.self)
                == "HTTP/1.1 404 Not Found\r\nContent-Type: video/mp4\r\nCache-Control: immutable\r\n"
                + "Content-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test func streamsToHTTP10UntilClose() {
        var machine = HTTPServerMachine()
        _ = machine.received(bytes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), bodyLimit: anyLimit)
        let head = machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: nil)
        #expect(String(decoding: head, as: UTF8.self) == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
        #expect(machine.responseBody(bytes("x")) == bytes("x"))
        #expect(machine.endResponse(bodyLimit: anyLimit) == [.close(linger: false)])
    }

    @Test func aShortBodyClosesTheConnection() {
        var machine = HTTPServerMachine()
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), bodyLimit: anyLimit)
        _ = machine.startResponse(HTTPResponseHead(status: .ok), bodyLength: 10)
        #expect(machine.responseBody(bytes("abc")) == bytes("abc"))
        #expect(machine.endResponse(bodyLimit: anyLimit) == [.close(linger: false)])
    }

    @Test func pausesReadingWhilePipelinedBytesPileUp() {
        var machine = HTTPServerMachine()
        _ = machine.received(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), bodyLimit: anyLimit)
        #expect(machine.phase == .handling)
        #expect(machine.wantsMoreBytes)
        _ = machine.received([UInt8](repeating: 0x41, count: 17 * 1024), bodyLimit: anyLimit)
        #expect(!machine.wantsMoreBytes)
    }

    @Test func switchesProtocolsWithTheBytesThatFollow() {
        var machine = HTTPServerMachine()
        _ = machine.received(bytes("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n") + [0x88, 0x80],
                             bodyLimit: anyLimit)
        let (head, leftover) = machine.switchProtocols(HTTPResponseHead(status: .switchingProtocols))
        #expect(String(decoding: head, as: UTF8.self) == "HTTP/1.1 101 Switching Protocols\r\n\r\n")
        #expect(leftover == [0x88, 0x80])
        #expect(machine.phase == .done)
    }

    @Test func phasesFollowTheExchange() {
        var machine = HTTPServerMachine()
        #expect(machine.phase == .idle)
        _ = machine.received(bytes("POST / HTTP/1.1\r\n"), bodyLimit: anyLimit)
        #expect(machine.phase == .readingHead)
        _ = machine.received(bytes("Host: h\r\nContent-Length: 4\r\n\r\nab"), bodyLimit: anyLimit)
        #expect(machine.phase == .readingBody)
        _ = machine.received(bytes("cd"), bodyLimit: anyLimit)
        #expect(machine.phase == .handling)
        _ = machine.startResponse(HTTPResponseHead(status: .noContent), bodyLength: nil)
        #expect(machine.phase == .responding)
        _ = machine.endResponse(bodyLimit: anyLimit)
        #expect(machine.phase == .idle)
    }
}
