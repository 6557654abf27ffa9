import LiveProtocol
import RealtimeCalls
import Testing

/// Every server code maps to its own case and back to its spelling.
struct LiveStreamErrorTests {
    @Test(arguments: ErrorCode.allCases)
    func everyServerCodeKeepsItsSpellingReasonAndWait(_ code: ErrorCode) {
        let error = LiveStreamError(ShowError(code, "because", retryAfter: 4))
        #expect(error.code == code.rawValue && error.reason == "because")
        #expect(error.description == "\(code.rawValue): because")
        let waits: Set<ErrorCode> = [.slow, .timeout, .rateLimited]
        #expect(error.retryAfter == (waits.contains(code) ? 4 : nil))
        #expect(error.refusesSession == [.unauthorized, .notFound, .banned].contains(code))
    }

    @Test func theClientsOwnCodes() {
        #expect(LiveStreamError.disconnected("x").code == "disconnected")
        let ended = LiveStreamError.ended(.kicked)
        #expect(ended.code == "ended" && ended.reason.contains("kicked"))
        #expect(LiveStreamError.media("x").code == "media")
    }
}
