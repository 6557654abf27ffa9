import Testing
@testable import StreamCore

@Suite struct IngestURLTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let text: String
        let scheme: IngestURL.Scheme
        let host: String
        let port: Int
        let app: String
        let tcUrl: String
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "rtmp://live.restream.io/live", scheme: .rtmp, host: "live.restream.io", port: 1935,
              app: "live", tcUrl: "rtmp://live.restream.io/live"),
        Valid(text: "rtmps://live.restream.io/live", scheme: .rtmps, host: "live.restream.io", port: 443,
              app: "live", tcUrl: "rtmps://live.restream.io/live"),
        Valid(text: "rtmps://live.example.com:8443/app", scheme: .rtmps, host: "live.example.com", port: 8443,
              app: "app", tcUrl: "rtmps://live.example.com:8443/app"),
        Valid(text: "rtmp://10.0.0.2:1936/live/xyz", scheme: .rtmp, host: "10.0.0.2", port: 1936,
              app: "live/xyz", tcUrl: "rtmp://10.0.0.2:1936/live/xyz"),
        // An explicit default port is the same server: the tcUrl leaves it out.
        Valid(text: "rtmp://host:1935/live", scheme: .rtmp, host: "host", port: 1935,
              app: "live", tcUrl: "rtmp://host/live"),
        // Case-insensitive scheme and host, whitespace and a trailing newline from a paste, trailing slash.
        Valid(text: "  RTMPS://Live-API-S.Facebook.com:443/rtmp/ \n", scheme: .rtmps,
              host: "live-api-s.facebook.com", port: 443, app: "rtmp", tcUrl: "rtmps://live-api-s.facebook.com/rtmp"),
        Valid(text: "rtmp://[::1]:1940/live", scheme: .rtmp, host: "::1", port: 1940,
              app: "live", tcUrl: "rtmp://[::1]:1940/live"),
        // A query on the app (Wowza-style tokens) is kept intact.
        Valid(text: "rtmp://host/live?token=t1", scheme: .rtmp, host: "host", port: 1935,
              app: "live?token=t1", tcUrl: "rtmp://host/live?token=t1"),
        // A trailing key-like segment is not guessed away: it stays part of the app.
        Valid(text: "rtmp://a.rtmp.youtube.com/live2/abcd-efgh-ijkl", scheme: .rtmp, host: "a.rtmp.youtube.com",
              port: 1935, app: "live2/abcd-efgh-ijkl", tcUrl: "rtmp://a.rtmp.youtube.com/live2/abcd-efgh-ijkl"),
        Valid(text: "rtmp://h:65535/a", scheme: .rtmp, host: "h", port: 65_535, app: "a", tcUrl: "rtmp://h:65535/a"),
    ]

    @Test(arguments: valid)
    func parsesValidURLs(_ expected: Valid) throws {
        let url = try IngestURL(parsing: expected.text)
        #expect(url.scheme == expected.scheme)
        #expect(url.host == expected.host)
        #expect(url.port == expected.port)
        #expect(url.app == expected.app)
        #expect(url.tcUrl == expected.tcUrl)
        let masked = url.query == nil ? expected.tcUrl : expected.tcUrl.prefix { $0 != "?" } + "?••••"
        #expect(url.description == masked)
        #expect(url.usesTLS == (expected.scheme == .rtmps))
        // Parsing the tcUrl again gives the same URL.
        #expect(try IngestURL(parsing: url.tcUrl) == url)
    }

    @Test(arguments: [
        ("rtmp://host/live?x=1", "live", "x=1"),
        ("rtmp://host/live/inst?token=a?b", "live/inst", "token=a?b"),
        ("rtmp://host/live?", "live", ""),
        ("rtmp://host/live", "live", nil),
    ])
    func theQueryStaysInTheTcUrlAndOutOfTheAppName(_ text: String, _ appName: String, _ query: String?) throws {
        let url = try IngestURL(parsing: text)
        #expect(url.appName == appName)
        #expect(url.query == query)
        #expect(url.tcUrl.hasSuffix("/" + url.app))
        // A query often holds a token: descriptions mask it.
        if let query, !query.isEmpty {
            #expect(!url.description.contains(query))
            #expect(!url.redactedDescription(streamKey: "k").contains(query))
            #expect(url.redactedDescription(streamKey: "k") == "rtmp://host/\(appName)?••••/••••")
        }
    }

    /// WHIP endpoints: the path is the "app", ports default to 443 and 80, the query is masked.
    @Test func whipEndpointsParseWithTheirDefaultPorts() throws {
        let secure = try IngestURL(parsing: "https://whip.example.com/rtc/v1/whip?app=live")
        #expect(secure.scheme == .https && secure.scheme.isWHIP && secure.usesTLS && secure.port == 443)
        #expect(secure.tcUrl == "https://whip.example.com/rtc/v1/whip?app=live")
        #expect(secure.description == "https://whip.example.com/rtc/v1/whip?••••")
        let plain = try IngestURL(parsing: "HTTP://127.0.0.1:8889/live/whip")
        #expect(plain.scheme == .http && !plain.usesTLS && plain.port == 8889 && plain.app == "live/whip")
        #expect(!(try IngestURL(parsing: "rtmps://host/live")).scheme.isWHIP)
    }

    static let invalid: [(String, IngestURLError.Reason)] = [
        ("", .empty),
        ("   \n", .empty),
        ("live.restream.io/live", .missingScheme),
        ("://host/live", .missingScheme),
        ("ftp://host/live", .unsupportedScheme("ftp")),
        ("SRT://host/live", .unsupportedScheme("srt")),
        ("rtmpt://host/live", .unsupportedScheme("rtmpt")),
        ("rtmp:///live", .missingHost),
        ("rtmp://:1935/live", .missingHost),
        ("rtmp://ho st/live", .invalidCharacter),
        ("rtmp://host\t/live", .invalidCharacter),
        ("rtmp://ho!st/live", .invalidHost),
        ("rtmp://host:1:2/live", .invalidHost),
        ("rtmp://[::1/live", .invalidHost),
        ("rtmp://[]/live", .invalidHost),
        ("rtmp://host:0/live", .invalidPort("0")),
        ("rtmp://host:65536/live", .invalidPort("65536")),
        ("rtmp://host:99999999999999999999/live", .invalidPort("999999999999")),
        ("rtmp://host:/live", .invalidPort("(empty)")),
        ("rtmp://host:abc/live", .invalidPort("(not a number)")),
        ("rtmp://host:-1/live", .invalidPort("(not a number)")),
        ("rtmp://host", .emptyApp),
        ("rtmp://host/", .emptyApp),
        ("rtmp://host///", .emptyApp),
        ("rtmp://host/?x=1", .emptyApp),
        ("rtmp://host//live", .emptyApp),
        ("rtmp://host/live//x", .emptyPathSegment),
        ("rtmp://user:pass@host/live", .userInfoNotAllowed),
        ("rtmp://host/live#frag", .fragmentNotAllowed),
    ]

    @Test(arguments: invalid)
    func refusesInvalidURLsNamingTheProblem(_ text: String, _ reason: IngestURLError.Reason) {
        #expect(throws: IngestURLError(reason)) { try IngestURL(parsing: text) }
    }

    @Test func errorMessagesNameWhatIsWrong() {
        #expect(IngestURLError(.unsupportedScheme("ftp")).message.contains("'ftp'"))
        #expect(IngestURLError(.invalidPort("70000")).message.contains("70000"))
        #expect(IngestURLError(.emptyApp).message.contains("application path"))
        #expect(IngestURLError(.missingHost).message.contains("no host"))
    }

    @Test func aNonNumericPortIsNotEchoedBecauseItMayBeASecret() throws {
        let error = try #require(throws: IngestURLError.self) {
            try IngestURL(parsing: "rtmp://host:sk_live_9f8e/live")
        }
        #expect(!error.message.contains("sk_live_9f8e"))
    }

    @Test func redactedDescriptionMasksTheKey() throws {
        let url = try IngestURL(parsing: "rtmps://live.restream.io/live")
        #expect(url.redactedDescription(streamKey: "re_123_abc") == "rtmps://live.restream.io/live/••••")
        #expect(url.redactedDescription(streamKey: nil) == "rtmps://live.restream.io/live")
        #expect(url.redactedDescription(streamKey: "") == "rtmps://live.restream.io/live")
    }

    @Test func redactedDescriptionMasksAKeyPastedIntoThePath() throws {
        let url = try IngestURL(parsing: "rtmp://host/live/secretkey42")
        let text = url.redactedDescription(streamKey: "secretkey42")
        #expect(!text.contains("secretkey42"))
        #expect(text == "rtmp://host/live/••••/••••")
    }

    @Test func schemesKnowTheirDefaults() {
        #expect(IngestURL.Scheme.rtmp.defaultPort == 1935)
        #expect(IngestURL.Scheme.rtmps.defaultPort == 443)
        #expect(!IngestURL.Scheme.rtmp.usesTLS)
        #expect(IngestURL.Scheme.rtmps.usesTLS)
        #expect(IngestURL(scheme: .rtmps, host: "h", app: "a").port == 443)
    }
}
