import Testing
@testable import WHIP

struct WHIPExchangeTests {
    static let token = "s3cr3t-t0ken"
    static let endpoint = try! WHIPURL(parsing: "https://whip.example.com/rtc/v1/whip/?app=live&stream=test")

    @Test func postsTheOfferWithTheTokenAndTakesTheAnswer() throws {
        var exchange = WHIPExchange(endpoint: Self.endpoint, token: Self.token)
        let request = exchange.offer("v=0\r\n")
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://whip.example.com/rtc/v1/whip/?app=live&stream=test")
        // The query may hold a token: descriptions mask it.
        #expect(request.url.description == "https://whip.example.com/rtc/v1/whip/?\u{2022}\u{2022}\u{2022}\u{2022}")
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer \(Self.token)" })
        #expect(request.headers.contains { $0.name == "Content-Type" && $0.value == "application/sdp" })
        #expect(request.body == Array("v=0\r\n".utf8))
        #expect(!request.description.contains(Self.token))
        let action = try exchange.receive(WHIPResponse(status: 201, headers: [
            ("content-type", "application/sdp"), ("location", "/rtc/v1/whip/session/42"),
        ], body: Array("v=0 answer".utf8)))
        let resource = try WHIPURL(parsing: "https://whip.example.com/rtc/v1/whip/session/42")
        #expect(action == .answered(sdp: "v=0 answer", resource: resource))
        #expect(exchange.resource == resource)
        let ending = exchange.end()
        let delete = try #require(ending)
        #expect(delete.method == "DELETE")
        #expect(delete.url == resource)
        #expect(delete.headers.map(\.value) == ["Bearer \(Self.token)"])
        let again = exchange.end()
        #expect(again == nil)
    }

    @Test func followsRedirectsWithTheSameOfferAndGivesUpOnALoop() throws {
        var exchange = WHIPExchange(endpoint: Self.endpoint, token: nil)
        let first = exchange.offer("offer")
        #expect(!first.headers.contains { $0.name == "Authorization" })
        let redirect = WHIPResponse(status: 307, headers: [("Location", "https://edge.example.com:8443/whip")],
                                    body: [])
        guard case .send(let second) = try exchange.receive(redirect) else {
            Issue.record("no redirect followed")
            return
        }
        #expect(second.url.description == "https://edge.example.com:8443/whip")
        #expect(second.body == first.body)
        for _ in 1..<WHIPExchange.maximumRedirects { _ = try exchange.receive(redirect) }
        #expect { try exchange.receive(redirect) } throws: { ($0 as? WHIPError)?.code == .badResponse }
    }

    /// Refusals name the status and what to do, quote the endpoint's first line, and never show the token even
    /// when the endpoint echoes it.
    @Test(arguments: [
        (401, "invalid token s3cr3t-t0ken", WHIPError.Code.unauthorized,
         "refused the token (401: \"invalid token ••••\")"),
        (403, "", .unauthorized, "refused the token (403)"),
        (404, "stream not found", .notFound,
         "no WHIP endpoint at https://whip.example.com/rtc/v1/whip/?\u{2022}\u{2022}\u{2022}\u{2022}"),
        (400, "bad sdp\nmore", .refused, "refused the offer (400: \"bad sdp\")"),
        (503, "overloaded", .serverError, "failed (503: \"overloaded\"); a later attempt may work"),
        (429, "", .serverError, "busy (429)"),
    ])
    func refusalsSayWhatHappened(status: Int, body: String, code: WHIPError.Code, phrase: String) {
        var exchange = WHIPExchange(endpoint: Self.endpoint, token: Self.token)
        _ = exchange.offer("offer")
        #expect {
            try exchange.receive(WHIPResponse(status: status, headers: [], body: Array(body.utf8)))
        } throws: { error in
            guard let error = error as? WHIPError else { return false }
            return error.code == code && error.message.contains(phrase) && !error.message.contains(Self.token)
                && error.isTransient == (status == 429 || status >= 500)
        }
    }

    @Test func aCreatedWithoutLocationOrSDPIsABadResponse() {
        for headers in [[("Content-Type", "application/sdp")], [("Location", "/s"), ("Content-Type", "text/html")]] {
            var exchange = WHIPExchange(endpoint: Self.endpoint, token: Self.token)
            _ = exchange.offer("offer")
            #expect {
                try exchange.receive(WHIPResponse(status: 201, headers: headers, body: []))
            } throws: { ($0 as? WHIPError)?.code == .badResponse }
        }
        var exchange = WHIPExchange(endpoint: Self.endpoint, token: nil)
        #expect(throws: WHIPError.self) { try exchange.receive(WHIPResponse(status: 201, headers: [], body: [])) }
        let ending = exchange.end()
        #expect(ending == nil)
    }
}

struct WHIPURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:8889/live/whip", false, "127.0.0.1", 8889, "/live/whip"),
        ("HTTPS://Example.com", true, "Example.com", 443, "/"),
        ("https://[::1]:9000/whip?x=1#frag", true, "::1", 9000, "/whip?x=1"),
        ("http://host?token-free=1", false, "host", 80, "/?token-free=1"),
    ])
    func parses(text: String, tls: Bool, host: String, port: Int, target: String) throws {
        let url = try WHIPURL(parsing: text)
        #expect(url.usesTLS == tls)
        #expect(url.host == host)
        #expect(url.port == port)
        #expect(url.target == target)
    }

    @Test(arguments: ["rtmp://host/live", "https://", "https://user:pw@host/whip", "http://host:0/", "http://host:x/",
                      "https://[::1/whip", "http://ho st/"])
    func refuses(text: String) {
        #expect(throws: WHIPError.self) { try WHIPURL(parsing: text) }
    }

    @Test func resolvesLocations() throws {
        let base = try WHIPURL(parsing: "https://whip.example.com:8443/whip")
        #expect(try base.resolving("/session/1").description == "https://whip.example.com:8443/session/1")
        #expect(try base.resolving("http://other/x").description == "http://other/x")
        #expect(throws: WHIPError.self) { try base.resolving("session/1") }
    }
}
