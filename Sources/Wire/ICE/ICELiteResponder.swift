import ByteIO

/// The server side of one ICE session as an ICE-lite agent (RFC 8445 §2.5), without I/O.
///
/// A lite agent has host candidates only, sends no checks of its own and is always the controlled agent: it answers
/// the peer's Binding requests, takes the pair the peer nominates with USE-CANDIDATE, and gives the session up when
/// the peer stops checking (consent freshness, RFC 7675 §5.1). The short-term credentials come from the SDP
/// exchange: our ufrag and password from our answer, the peer's ufrag from its offer (a lite agent never signs a
/// request, so the peer's password is not needed).
///
/// The driver's contract:
/// - every STUN datagram ``DatagramRoutes`` hands to this session goes to ``receive(_:from:now:)``, which returns one
///   ``Action``: send the response it holds (and, for ``Action/answer(_:to:selects:)``, bind the source address to
///   the session in the routing table), or drop the datagram;
/// - ``tick(now:)`` runs at ``nextDeadline``; when it returns an ``Expiry`` the session is over: remove it from the
///   routing table (which frees its addresses) and tear down its DTLS and SRTP state;
/// - media goes to ``selectedAddress`` once a check has nominated one.
///
/// Time is `now`, a `Duration` since any fixed monotonic origin, as for ``ICEAgent``.
public struct ICELiteResponder: Sendable {
    /// RFC 7675 §5.1: consent expires 30 s after the last check that proved the path.
    public static let defaultConsentTimeout: Duration = .seconds(30)
    /// How long a new session may go without a nominated pair: the ICE agent's own check deadline
    /// (``ICEAgent/Configuration/connectTimeout``). A session the peer never completes is freed after it.
    public static let defaultConnectTimeout: Duration = .seconds(15)

    /// The session's short-term credentials (RFC 8445 §7.2.2, RFC 8489 §9.1).
    public struct Credentials: Sendable, Hashable {
        /// Our username fragment, from our answer: the part before the colon in the peer's USERNAME.
        public var localUfrag: String
        /// Our password, from our answer: the MESSAGE-INTEGRITY key of the peer's checks and of our responses.
        public var localPwd: String
        /// The peer's username fragment, from its offer: the part after the colon.
        public var remoteUfrag: String

        /// Creates credentials.
        public init(localUfrag: String, localPwd: String, remoteUfrag: String) {
            self.localUfrag = localUfrag
            self.localPwd = localPwd
            self.remoteUfrag = remoteUfrag
        }

        /// The USERNAME a peer's check carries: `local:remote` from our side (RFC 8445 §7.2.2).
        public var expectedUsername: String { localUfrag + ":" + remoteUfrag }
    }

    /// What the driver does with one received datagram.
    public enum Action: Sendable, Hashable {
        /// A valid check: send this success response (XOR-MAPPED-ADDRESS of the source, MESSAGE-INTEGRITY,
        /// FINGERPRINT). The source proved it holds the session's credentials, so bind it to the session.
        /// `selects` is true when this check nominated the source and media now goes there (it did not before).
        case answer([UInt8], to: TransportAddress, selects: Bool)
        /// A request refused with an error response: send it; the source is not bound.
        /// `code` is the STUN error (400, 401, 420 or 487).
        case refuse([UInt8], to: TransportAddress, code: Int)
        /// Nothing to send, and why.
        case drop(Drop)
    }

    /// Why a datagram got no answer.
    public enum Drop: String, Sendable, Hashable, CaseIterable {
        /// Not a STUN message (RFC 8489 §6.3: silently discarded).
        case malformed
        /// FINGERPRINT missing or wrong: ICE requires it in every check (RFC 8445 §7.2.2), and on a shared port it
        /// is what tells STUN from the rest (RFC 8489 §7).
        case badFingerprint
        /// A response or an indication: a lite agent sends no requests, and a keepalive needs no answer
        /// (RFC 8445 §11).
        case notRequest
        /// A request of another method than Binding.
        case notBinding
        /// The session has expired or was closed.
        case expired
    }

    /// Why a session ended.
    public enum Expiry: Sendable, Hashable {
        /// No check nominated a pair within the connect timeout (the peer never completed ICE).
        case notConnected
        /// No valid check from the selected address within the consent timeout (RFC 7675 §5.1).
        case consentLost(lastCheck: Duration)
        /// ``close()`` was called.
        case closed
    }

    /// The session's phase, for status and tests.
    public enum Phase: Sendable, Hashable {
        /// Waiting for a check that nominates a pair (valid checks may have been answered).
        case connecting
        /// A pair is selected and consent holds.
        case connected
        /// Over; see ``expiry``.
        case expired
    }

    private struct Connecting: Sendable {
        var deadline: Duration
    }

    private struct Connected: Sendable {
        var selected: TransportAddress
        /// The last valid check from the selected address.
        var lastConsent: Duration
    }

    private enum State: Sendable {
        case connecting(Connecting)
        case connected(Connected)
        case expired(Expiry)
    }

    /// The credentials.
    public let credentials: Credentials
    /// How long consent lasts after a valid check from the selected address.
    public let consentTimeout: Duration
    private let key: [UInt8]
    private var state: State
    /// Valid checks answered, for status.
    public private(set) var checksAnswered = 0

    /// Creates a session's responder when its answer is sent.
    /// - Parameters:
    ///   - credentials: ours and the peer's ufrag.
    ///   - now: the current time; the connect timeout runs from here.
    ///   - connectTimeout: how long to wait for a nominated pair.
    ///   - consentTimeout: how long consent lasts after a valid check from the selected address.
    public init(credentials: Credentials, now: Duration, connectTimeout: Duration = defaultConnectTimeout,
                consentTimeout: Duration = defaultConsentTimeout) {
        self.credentials = credentials
        self.consentTimeout = consentTimeout
        key = Array(credentials.localPwd.utf8)
        state = .connecting(Connecting(deadline: now + connectTimeout))
    }

    /// The phase.
    public var phase: Phase {
        switch state {
        case .connecting: .connecting
        case .connected: .connected
        case .expired: .expired
        }
    }

    /// Where media goes: the address the peer nominated last; nil before a nomination and after expiry.
    public var selectedAddress: TransportAddress? {
        if case .connected(let connected) = state { return connected.selected }
        return nil
    }

    /// Why the session ended, once it has.
    public var expiry: Expiry? {
        if case .expired(let expiry) = state { return expiry }
        return nil
    }

    /// When ``tick(now:)`` should next run; nil once expired.
    public var nextDeadline: Duration? {
        switch state {
        case .connecting(let connecting): connecting.deadline
        case .connected(let connected): connected.lastConsent + consentTimeout
        case .expired: nil
        }
    }

    /// Handles one STUN datagram routed to this session.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - source: where it came from.
    ///   - now: the current time.
    /// - Returns: the response to send, or why there is none.
    public mutating func receive(_ bytes: [UInt8], from source: TransportAddress, now: Duration) -> Action {
        if case .expired = state { return .drop(.expired) }
        guard let message = try? STUNMessage(decoding: bytes) else { return .drop(.malformed) }
        guard message.hasValidFingerprint == true else { return .drop(.badFingerprint) }
        guard message.messageClass == .request else { return .drop(.notRequest) }
        guard message.method == STUNMessage.bindingMethod else { return .drop(.notBinding) }

        // RFC 8489 §9.1.3: both USERNAME and MESSAGE-INTEGRITY or 400; a username not ours or a wrong HMAC is
        // 401. These error responses carry no MESSAGE-INTEGRITY: the sender has not shown it holds the key.
        guard let username = message.username, message.hasIntegrity else {
            return refuse(message, 400, "Bad Request", to: source, signed: false)
        }
        guard username == credentials.expectedUsername, message.hasValidIntegrity(key: key) else {
            return refuse(message, 401, "Unauthenticated", to: source, signed: false)
        }
        // RFC 8489 §6.3.1: comprehension-required attributes we do not know are refused with 420.
        let unknown = message.unknownRequiredAttributes
        if !unknown.isEmpty {
            return refuse(message, 420, "Unknown Attribute", to: source, signed: true,
                          extra: [.unknownAttributes(unknown)])
        }
        // RFC 8445 §6.1.1: against a lite agent the full agent is controlling. A peer that says it is controlled
        // gets 487 so that it switches (§7.3.1.1); a lite agent has no controlling role to switch to, so it acts
        // as if its tie-breaker were the largest.
        if message.iceControlled != nil {
            return refuse(message, 487, "Role Conflict", to: source, signed: true)
        }

        checksAnswered += 1
        var selects = false
        switch state {
        case .connecting:
            if message.useCandidate {
                state = .connected(Connected(selected: source, lastConsent: now))
                selects = true
            }
        case .connected(var connected):
            if message.useCandidate && source != connected.selected {
                // RFC 8445 §8.1.1 lets the controlling agent nominate once; a peer that nominates again (Chrome's
                // renomination after a network change) means the new path: the last nomination wins.
                connected = Connected(selected: source, lastConsent: now)
                selects = true
            } else if source == connected.selected {
                connected.lastConsent = max(connected.lastConsent, now)
            }
            state = .connected(connected)
        case .expired:
            return .drop(.expired)
        }
        let response = STUNMessage(class: .success, transactionID: message.transactionID,
                                   attributes: [.xorMappedAddress(source, transactionID: message.transactionID)])
        return .answer(response.encoded(integrityKey: key), to: source, selects: selects)
    }

    /// Runs the session's timers: the connect timeout, then consent.
    /// - Parameter now: the current time.
    /// - Returns: why the session ended, once, when it ends now; nil otherwise.
    public mutating func tick(now: Duration) -> Expiry? {
        switch state {
        case .connecting(let connecting):
            guard now >= connecting.deadline else { return nil }
            state = .expired(.notConnected)
            return .notConnected
        case .connected(let connected):
            guard now - connected.lastConsent >= consentTimeout else { return nil }
            let expiry = Expiry.consentLost(lastCheck: connected.lastConsent)
            state = .expired(expiry)
            return expiry
        case .expired:
            return nil
        }
    }

    /// Ends the session (a DELETE on its WHIP resource, a DTLS close_notify): later datagrams are dropped.
    /// - Returns: `.closed`, or the earlier expiry when the session had already ended.
    @discardableResult
    public mutating func close() -> Expiry {
        switch state {
        case .connecting, .connected:
            state = .expired(.closed)
            return .closed
        case .expired(let expiry):
            return expiry
        }
    }

    private func refuse(_ request: STUNMessage, _ code: Int, _ reason: String, to source: TransportAddress,
                        signed: Bool, extra: [STUNAttribute] = []) -> Action {
        let response = STUNMessage(class: .error, transactionID: request.transactionID,
                                   attributes: [.errorCode(code, reason: reason)] + extra)
        return .refuse(response.encoded(integrityKey: signed ? key : nil), to: source, code: code)
    }
}
