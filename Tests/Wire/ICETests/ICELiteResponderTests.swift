import ByteIO
import Testing
@testable import ICE

/// The ICE-lite responder against RFC 5769's request and against our full agent (RFC 8445's controlling side, the
/// one our publisher runs), with time passed in.
struct ICELiteResponderTests {
    /// RFC 5769 §2.1's credentials: USERNAME "evtj:h6vY" names the receiver's ufrag first, so we are "evtj".
    static let vectorCredentials = ICELiteResponder.Credentials(
        localUfrag: "evtj", localPwd: "VOkJxbRl1RmTxUk/WvJxBt", remoteUfrag: "h6vY")
    static let peer = TransportAddress(host: "192.0.2.1", port: 32853)!
    static let peerV6 = TransportAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853)!

    /// A check as a controlling agent sends it, with RFC 5769's transaction id and credentials.
    static func check(useCandidate: Bool = false, controlled: Bool = false, username: String = "evtj:h6vY",
                      key: [UInt8] = RFC5769.password, extra: [STUNAttribute] = [],
                      fingerprint: Bool = true) -> [UInt8] {
        var attributes: [STUNAttribute] = [.username(username), .priority(0x6E00_01FF),
                                           controlled ? .iceControlled(7) : .iceControlling(7)]
        if useCandidate { attributes.append(.useCandidate) }
        return STUNMessage(class: .request, transactionID: RFC5769.transactionID, attributes: attributes + extra)
            .encoded(integrityKey: key, fingerprint: fingerprint)
    }

    static func responder(now: Duration = .zero) -> ICELiteResponder {
        ICELiteResponder(credentials: vectorCredentials, now: now)
    }

    @Test func theRFC5769RequestIsAControlledCheckAnsweredWithRoleConflict() throws {
        var responder = Self.responder()
        // §2.1's request carries ICE-CONTROLLED: its sender thinks it is controlled, but against a lite agent it must
        // control (RFC 8445 §6.1.1), so it gets 487, signed with the password it used.
        let action = responder.receive(RFC5769.request, from: Self.peer, now: .seconds(1))
        guard case .refuse(let bytes, let destination, let code) = action else {
            Issue.record("expected a 487, got \(action)")
            return
        }
        #expect(code == 487)
        #expect(destination == Self.peer)
        let response = try STUNMessage(decoding: bytes)
        #expect(response.messageClass == .error)
        #expect(response.transactionID == RFC5769.transactionID)
        #expect(response.errorCode?.code == 487)
        #expect(response.hasValidIntegrity(key: RFC5769.password))
        #expect(response.hasValidFingerprint == true)
        #expect(responder.checksAnswered == 0)
        #expect(responder.phase == .connecting)
    }

    @Test func aValidCheckIsAnsweredWithTheSourceAsTheVectorEncodesIt() throws {
        var responder = Self.responder()
        for (source, xorValue) in [
            (Self.peer, "00 01 a1 47 e1 12 a6 43"),  // RFC 5769 §2.2: family 1, port ^ 0x2112, IPv4 ^ cookie
            (Self.peerV6, "00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9"),  // §2.3: IPv6 ^ cookie+id
        ] {
            let action = responder.receive(Self.check(), from: source, now: .seconds(1))
            guard case .answer(let bytes, let destination, let selects) = action else {
                Issue.record("expected an answer, got \(action)")
                return
            }
            #expect(destination == source)
            #expect(selects == false)
            let response = try STUNMessage(decoding: bytes)
            #expect(Array(bytes[0..<2]) == [0x01, 0x01])  // Binding success response
            #expect(response.transactionID == RFC5769.transactionID)
            #expect(response.attribute(STUNAttribute.Kind.xorMappedAddress)?.value == hexBytes(xorValue))
            #expect(response.mappedAddress == source)
            #expect(response.hasValidIntegrity(key: RFC5769.password))
            #expect(response.hasValidFingerprint == true)
        }
        #expect(responder.checksAnswered == 2)
        #expect(responder.selectedAddress == nil)
    }

    /// RFC 8489 §9.1.3 and §6.3.1: each bad request gets its code; 400 and 401 carry no MESSAGE-INTEGRITY.
    @Test(arguments: [
        (STUNMessage(class: .request, transactionID: RFC5769.transactionID).encoded(), 400, false),
        (STUNMessage(class: .request, transactionID: RFC5769.transactionID, attributes: [.username("evtj:h6vY")])
            .encoded(), 400, false),
        (STUNMessage(class: .request, transactionID: RFC5769.transactionID, attributes: [.priority(1)])
            .encoded(integrityKey: RFC5769.password), 400, false),
        (check(key: Array("not the password".utf8)), 401, false),
        (check(username: "evtj:XXXX"), 401, false),  // another session's peer, or a stale one
        (check(username: "evtj"), 401, false),
        (check(extra: [STUNAttribute(type: 0x7F31, value: [1, 2, 3, 4])]), 420, true),
        (check(controlled: true), 487, true),
    ])
    func badRequestsGetTheirErrorCode(bytes: [UInt8], code: Int, signed: Bool) throws {
        var responder = Self.responder()
        let action = responder.receive(bytes, from: Self.peer, now: .seconds(1))
        guard case .refuse(let response, let destination, let refused) = action else {
            Issue.record("expected \(code), got \(action)")
            return
        }
        #expect(refused == code)
        #expect(destination == Self.peer)
        let message = try STUNMessage(decoding: response)
        #expect(message.messageClass == .error)
        #expect(message.errorCode?.code == code)
        #expect(message.hasIntegrity == signed)
        if signed { #expect(message.hasValidIntegrity(key: RFC5769.password)) }
        if code == 420 {
            #expect(message.attribute(STUNAttribute.Kind.unknownAttributes)?.value == [0x7F, 0x31])
        }
        #expect(responder.checksAnswered == 0)
    }

    @Test func whatIsNotACheckIsDroppedWithTheReason() {
        var responder = Self.responder()
        var tampered = RFC5769.request
        tampered[tampered.count - 1] ^= 0x01  // the FINGERPRINT's last byte
        let indication = STUNMessage(class: .indication, transactionID: RFC5769.transactionID).encoded()
        let allocate = STUNMessage(class: .request, method: 0x003, transactionID: RFC5769.transactionID,
                                   attributes: [.username("evtj:h6vY")]).encoded(integrityKey: RFC5769.password)
        let cases: [([UInt8], ICELiteResponder.Drop)] = [
            ([0x00, 0x01, 0x00], .malformed),
            (Array(RFC5769.request.prefix(40)), .malformed),
            (tampered, .badFingerprint),
            (Self.check(fingerprint: false), .badFingerprint),
            (RFC5769.ipv4Response, .notRequest),
            (indication, .notRequest),
            (allocate, .notBinding),
        ]
        for (bytes, reason) in cases {
            #expect(responder.receive(bytes, from: Self.peer, now: .seconds(1)) == .drop(reason))
        }
        #expect(responder.phase == .connecting)
    }

    @Test func useCandidateSelectsAndALaterNominationMovesTheSelection() throws {
        var responder = Self.responder()
        guard case .answer(_, _, true) = responder.receive(Self.check(useCandidate: true), from: Self.peer,
                                                           now: .seconds(1)) else {
            Issue.record("the nominating check did not select")
            return
        }
        #expect(responder.phase == .connected)
        #expect(responder.selectedAddress == Self.peer)
        // The same nomination again changes nothing; a check from another address does not move media.
        guard case .answer(_, _, false) = responder.receive(Self.check(useCandidate: true), from: Self.peer,
                                                            now: .seconds(2)),
              case .answer(_, _, false) = responder.receive(Self.check(), from: Self.peerV6, now: .seconds(3)) else {
            Issue.record("a repeated nomination or an ordinary check selected again")
            return
        }
        #expect(responder.selectedAddress == Self.peer)
        // A nomination from the other address (a renomination after a network change) moves media there.
        guard case .answer(_, _, true) = responder.receive(Self.check(useCandidate: true), from: Self.peerV6,
                                                           now: .seconds(4)) else {
            Issue.record("the renomination did not select")
            return
        }
        #expect(responder.selectedAddress == Self.peerV6)
    }

    @Test func aSessionNobodyConnectsToExpiresAfterTheConnectTimeout() {
        var responder = ICELiteResponder(credentials: Self.vectorCredentials, now: .seconds(100))
        #expect(responder.nextDeadline == .seconds(115))
        // Valid checks without a nomination do not keep a session alive.
        _ = responder.receive(Self.check(), from: Self.peer, now: .seconds(110))
        #expect(responder.tick(now: .milliseconds(114_999)) == nil)
        #expect(responder.tick(now: .seconds(115)) == .notConnected)
        #expect(responder.tick(now: .seconds(116)) == nil)  // reported once
        #expect(responder.phase == .expired)
        #expect(responder.nextDeadline == nil)
        #expect(responder.receive(Self.check(useCandidate: true), from: Self.peer, now: .seconds(116))
            == .drop(.expired))
    }

    /// RFC 7675 §5.1: consent lasts 30 s from the last valid check on the selected path; checks from other
    /// addresses do not extend it.
    @Test func consentExpiresThirtySecondsAfterTheLastCheckFromTheSelectedAddress() {
        var responder = Self.responder()
        _ = responder.receive(Self.check(useCandidate: true), from: Self.peer, now: .seconds(1))
        _ = responder.receive(Self.check(), from: Self.peer, now: .seconds(6))
        #expect(responder.nextDeadline == .seconds(36))
        _ = responder.receive(Self.check(), from: Self.peerV6, now: .seconds(20))
        #expect(responder.nextDeadline == .seconds(36))
        // A late-arriving (reordered) check does not move consent back.
        _ = responder.receive(Self.check(), from: Self.peer, now: .seconds(5))
        #expect(responder.tick(now: .milliseconds(35_999)) == nil)
        #expect(responder.tick(now: .seconds(36)) == .consentLost(lastCheck: .seconds(6)))
        #expect(responder.selectedAddress == nil)
        #expect(responder.receive(Self.check(), from: Self.peer, now: .seconds(37)) == .drop(.expired))
    }

    @Test func closeEndsTheSessionOnce() {
        var responder = Self.responder()
        #expect(responder.close() == .closed)
        #expect(responder.expiry == .closed)
        #expect(responder.tick(now: .seconds(60)) == nil)
        #expect(responder.receive(Self.check(), from: Self.peer, now: .seconds(1)) == .drop(.expired))
        var expired = Self.responder()
        _ = expired.tick(now: .seconds(15))
        #expect(expired.close() == .notConnected)
    }

    /// Our full agent (the publisher's, controlling) against the lite responder, datagrams carried in memory: it
    /// checks, nominates, connects, and keeps consent alive with checks every 5 s; when its datagrams stop arriving
    /// the responder gives the session up 30 s after the last one.
    @Test func ourFullAgentConnectsToTheResponderAndConsentRunsOut() throws {
        let server = try #require(TransportAddress(host: "127.0.0.1", port: 8189))
        let client = try #require(TransportAddress(host: "127.0.0.1", port: 50_000))
        var agent = ICEAgent(configuration: .init(localUfrag: "cli1", localPwd: "client-password-0123456789",
                                                  tieBreaker: 0x1234, silenceTimeout: nil),
                             hostAddresses: [client])
        var responder = ICELiteResponder(
            credentials: .init(localUfrag: "srv1", localPwd: "server-password-0123456789", remoteUfrag: "cli1"),
            now: .zero)
        var now = Duration.zero
        var toServer = agent.start(remoteUfrag: "srv1", remotePwd: "server-password-0123456789",
                                   remoteCandidates: [ICECandidate(kind: .host, address: server, priority: 1 << 24,
                                                                   foundation: "1")], now: now)
        var connectedAt: Duration?
        var selections = 0
        var deliver = true
        var lastDelivered = Duration.zero
        while now < .seconds(120), responder.phase != .expired {
            var followUps: [ICEAgent.Action] = []
            for action in toServer {
                switch action {
                case .send(let bytes, let destination):
                    #expect(destination == server)
                    guard deliver else { continue }
                    lastDelivered = now
                    switch responder.receive(bytes, from: client, now: now) {
                    case .answer(let response, let to, let selects):
                        #expect(to == client)
                        if selects { selections += 1 }
                        followUps += agent.receive(response, from: server, now: now)
                    case .refuse(_, _, let code):
                        Issue.record("our agent's check was refused with \(code)")
                    case .drop(let reason):
                        Issue.record("our agent's check was dropped: \(reason)")
                    }
                case .connected(let address):
                    #expect(address == server)
                    connectedAt = now
                case .gathered:
                    break
                case .failed(let reason):
                    // Once the path is dead the agent's own consent runs out too; before, it must not.
                    if deliver { Issue.record("the agent failed: \(reason)") }
                }
            }
            if now >= .seconds(40) { deliver = false }  // the path dies
            if !followUps.isEmpty {
                toServer = followUps
                continue
            }
            now += .milliseconds(50)
            toServer = agent.tick(now: now)
            _ = responder.tick(now: now)
        }
        #expect(connectedAt.map { $0 < .seconds(1) } == true, "the agent never connected")
        #expect(selections == 1)
        #expect(responder.checksAnswered >= 2 + 40 / 6)  // a check, the nomination, consent every 5 s ± 20 %
        #expect(responder.expiry == .consentLost(lastCheck: lastDelivered))
        #expect(now - lastDelivered >= .seconds(30) && now - lastDelivered < .milliseconds(30_100))
    }
}
