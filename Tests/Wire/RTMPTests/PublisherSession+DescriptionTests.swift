import Testing
@testable import RTMP

struct SecretRedactionTests {
    @Test func descriptionsNeverShowTheKey() throws {
        var pair = SessionPair()
        try pair.start()
        let texts = try ["\(pair.publisher.configuration)", String(reflecting: pair.publisher.configuration),
                     "\(pair.publisher)"]
            + pair.serverEvents.map { "\($0)" }
            + pair.publisherEvents.map { "\($0)" }
            + pair.publisher.sendMedia(.video, timestamp: 0, body: [1]).map { "\($0)" }
        #expect(texts.contains { $0.contains("authorizePublish") })
        for text in texts {
            #expect(!text.contains("secret-key-123"), "\(text)")
        }
    }

    @Test func descriptionsNeverShowTheQueryOfTheApp() {
        let configuration = PublisherSession.Configuration(app: "live?token=query-secret",
                                                           tcUrl: "rtmp://h/live?token=query-secret", streamKey: "k")
        let session = PublisherSession(configuration: configuration)
        for text in ["\(configuration)", String(reflecting: configuration), "\(session)"] {
            #expect(!text.contains("query-secret"), "\(text)")
            #expect(text.contains("app: live?••••") && text.contains("tcUrl: rtmp://h/live?••••"), "\(text)")
        }
    }
}
