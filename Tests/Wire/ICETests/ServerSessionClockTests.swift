import ICE
import Testing

/// A server session's deadlines: ICE's, the DTLS handshake's and the DTLS library's timer.
struct ServerSessionClockTests {
    static func responder() -> ICELiteResponder {
        ICELiteResponder(credentials: .init(localUfrag: "srv1", localPwd: "server-password-0123456789",
                                            remoteUfrag: "cli1"), now: .zero, connectTimeout: .seconds(15))
    }

    @Test func theHandshakeDeadlineEndsASessionThatNeverCompletesDTLS() {
        var responder = Self.responder()
        var clock = ServerSessionClock(now: .zero, handshakeTimeout: .seconds(10))
        #expect(clock.nextDeadline(responder: responder) == .seconds(10))
        #expect(clock.tick(responder: &responder, now: .seconds(9)) == nil)
        #expect(clock.tick(responder: &responder, now: .seconds(10)) == .handshakeTimedOut)
    }

    @Test func theDTLSTimerIsDueOnceAndEndsWithTheHandshake() {
        var responder = Self.responder()
        var clock = ServerSessionClock(now: .zero, handshakeTimeout: .seconds(10))
        clock.dtlsTimer(.seconds(1), now: .seconds(2))
        #expect(clock.nextDeadline(responder: responder) == .seconds(3))
        #expect(clock.tick(responder: &responder, now: .seconds(3)) == .retransmitDTLS)
        #expect(clock.tick(responder: &responder, now: .milliseconds(3100)) == nil, "due once per timer")
        clock.dtlsTimer(.seconds(2), now: .milliseconds(3100))
        clock.dtlsConnected()
        // Connected: no handshake deadline, no DTLS timer; the responder's connect timeout is left.
        #expect(clock.nextDeadline(responder: responder) == .seconds(15))
        #expect(clock.tick(responder: &responder, now: .seconds(12)) == nil)
        #expect(clock.tick(responder: &responder, now: .seconds(15)) == .expired(.notConnected))
    }
}
