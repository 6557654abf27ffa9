/// The deadlines of one server-side WebRTC session, without I/O: its ICE-lite responder's (no nominated pair in
/// time, consent lost) and its DTLS handshake's (done by a deadline, and the DTLS library's retransmission timer
/// while it runs). The driver keeps one timer at ``nextDeadline(responder:)`` and runs ``tick(responder:now:)``
/// when it fires; it tells the clock what the DTLS library says (``dtlsTimer(_:now:)``, ``dtlsConnected()``).
public struct ServerSessionClock: Sendable, Hashable {
    /// What is due at a tick.
    public enum Due: Sendable, Hashable {
        /// The responder ended the session (connect timeout, consent lost).
        case expired(ICELiteResponder.Expiry)
        /// DTLS did not complete by ``ServerSessionClock/handshakeDeadline``: end the session.
        case handshakeTimedOut
        /// The DTLS library's timer ran out: let it resend its last flight.
        case retransmitDTLS
    }

    /// When DTLS must have completed.
    public let handshakeDeadline: Duration
    /// Whether DTLS completed (its deadline and timer no longer run).
    public private(set) var isDTLSConnected = false
    private var dtlsTimer: Duration?

    /// Starts the clock when the session's answer is sent.
    public init(now: Duration, handshakeTimeout: Duration) {
        handshakeDeadline = now + handshakeTimeout
    }

    /// The DTLS library's retransmission timer after it ran: the time left, or nil when none runs.
    public mutating func dtlsTimer(_ remaining: Duration?, now: Duration) {
        dtlsTimer = isDTLSConnected ? nil : remaining.map { now + $0 }
    }

    /// DTLS completed.
    public mutating func dtlsConnected() {
        isDTLSConnected = true
        dtlsTimer = nil
    }

    /// When the next tick is due.
    public func nextDeadline(responder: ICELiteResponder) -> Duration? {
        var deadlines: [Duration] = []
        if let deadline = responder.nextDeadline { deadlines.append(deadline) }
        if !isDTLSConnected {
            deadlines.append(handshakeDeadline)
            if let dtlsTimer { deadlines.append(dtlsTimer) }
        }
        return deadlines.min()
    }

    /// What is due now; an expiry or a timed-out handshake ends the session (nothing else follows it).
    public mutating func tick(responder: inout ICELiteResponder, now: Duration) -> Due? {
        if let expiry = responder.tick(now: now) { return .expired(expiry) }
        guard !isDTLSConnected else { return nil }
        if now >= handshakeDeadline { return .handshakeTimedOut }
        if let dtlsTimer, now >= dtlsTimer {
            self.dtlsTimer = nil
            return .retransmitDTLS
        }
        return nil
    }
}
