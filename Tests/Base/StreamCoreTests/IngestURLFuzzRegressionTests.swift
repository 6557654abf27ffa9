import Testing
@testable import StreamCore

/// Inputs found by fuzzing (Fuzz/Sources/FuzzIngestURL): a parsed URL's `tcUrl` must parse to the same URL.
struct IngestURLFuzzRegressionTests {
    /// Brackets without a colon were taken as an IPv6 host; the tcUrl then wrote `.11` unbracketed, which is not a
    /// valid host. Fuzzer input: `RTMP://[.11]:193/tRT`. Non-ASCII "hex digits" (fullwidth forms) were accepted too.
    @Test(arguments: ["RTMP://[.11]:193/tRT", "rtmp://[1234]/live", "rtmp://[１::1]/live"])
    func bracketsHoldOnlyAnIPv6Literal(_ text: String) {
        #expect(throws: IngestURLError(.invalidHost)) { try IngestURL(parsing: text) }
    }

    @Test(arguments: ["rtmp://[::1]:1936/live", "rtmps://[2001:db8::7]/app/x", "rtmp://[::ffff:10.0.0.1]/live"])
    func anIPv6URLSurvivesItsTcUrl(_ text: String) throws {
        let url = try IngestURL(parsing: text)
        #expect(try IngestURL(parsing: url.tcUrl) == url)
    }
}
