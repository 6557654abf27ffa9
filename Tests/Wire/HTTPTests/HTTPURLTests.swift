import HTTP
import Testing

struct HTTPURLTests {
    @Test func parsesSchemesHostsAndPorts() throws {
        let plain = try #require(HTTPURL("http://127.0.0.1:8080/v1/health?x=1#frag"))
        #expect(!plain.usesTLS && plain.host == "127.0.0.1" && plain.port == 8080)
        #expect(plain.target == "/v1/health?x=1")
        #expect(plain.hostField == "127.0.0.1:8080")
        let secure = try #require(HTTPURL("wss://example.com"))
        #expect(secure.usesTLS && secure.port == 443 && secure.target == "/" && secure.hostField == "example.com")
        let v6 = try #require(HTTPURL("https://[::1]:8443?q"))
        #expect(v6.host == "::1" && v6.port == 8443 && v6.target == "/?q" && v6.hostField == "[::1]:8443")
    }

    @Test(arguments: ["ftp://a/", "http://", "http://user:pw@host/", "http://a:0/", "http://a:99999/", "a/b",
                      "http://[::1/", "http://a/b c"])
    func refuses(text: String) {
        #expect(HTTPURL(text) == nil)
    }

    @Test func descriptionHidesTheQuery() throws {
        #expect(try #require(HTTPURL("ws://a:1/v1/s?access_token=secret")).description == "ws://a:1/v1/s?…")
    }
}
