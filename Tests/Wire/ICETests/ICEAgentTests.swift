import ByteIO
import Testing
@testable import ICE

/// Two agents wired together in memory: what one sends, the other receives, unless the link drops it.
private struct Link {
    var a: ICEAgent
    var b: ICEAgent
    let addressA = TransportAddress(host: "127.0.0.1", port: 5000)!
    let addressB = TransportAddress(host: "127.0.0.1", port: 6000)!
    var now: Duration = .zero
    var connectedA: TransportAddress?
    var connectedB: TransportAddress?
    var failures: [String] = []
    var dropEverything = false
    /// Datagrams A sent (delivered or not).
    var sentByA = 0
    /// How long B's datagrams take to reach A (a long round trip).
    var delayToA: Duration = .zero
    private var inFlightToA: [(at: Duration, bytes: [UInt8])] = []

    init(tieBreakerA: UInt64 = 2, tieBreakerB: UInt64 = 1, consent: Duration = .seconds(5),
         consentTimeout: Duration = .seconds(30), silenceTimeout: Duration? = nil) {
        a = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                          tieBreaker: tieBreakerA,
                                          consentInterval: consent, consentTimeout: consentTimeout,
                                          silenceTimeout: silenceTimeout),
                     hostAddresses: [addressA])
        b = ICEAgent(configuration: .init(localUfrag: "bbbb", localPwd: "passwordpasswordB00000",
                                          tieBreaker: tieBreakerB,
                                          consentInterval: consent, consentTimeout: consentTimeout,
                                          silenceTimeout: silenceTimeout),
                     hostAddresses: [addressB])
    }

    mutating func start() {
        let toA = b.start(remoteUfrag: "aaaa", remotePwd: "passwordpasswordA00000",
                          remoteCandidates: a.localCandidates, now: now)
        let toB = a.start(remoteUfrag: "bbbb", remotePwd: "passwordpasswordB00000",
                          remoteCandidates: b.localCandidates, now: now)
        deliver(toB, fromA: true)
        deliver(toA, fromA: false)
    }

    mutating func deliver(_ actions: [ICEAgent.Action], fromA: Bool) {
        for action in actions {
            switch action {
            case .send(let bytes, let destination):
                if fromA { sentByA += 1 }
                guard !dropEverything else { continue }
                if !fromA && delayToA > .zero {
                    inFlightToA.append((now + delayToA, bytes))
                } else if fromA {
                    #expect(destination == addressB)
                    deliver(b.receive(bytes, from: addressA, now: now), fromA: false)
                } else {
                    #expect(destination == addressA)
                    deliver(a.receive(bytes, from: addressB, now: now), fromA: true)
                }
            case .connected(let address):
                if fromA { connectedA = address } else { connectedB = address }
            case .failed(let reason):
                failures.append(reason)
            case .gathered:
                break
            }
        }
    }

    mutating func run(for duration: Duration, step: Duration = .milliseconds(10)) {
        let end = now + duration
        while now < end {
            now += step
            while let first = inFlightToA.first, first.at <= now {
                inFlightToA.removeFirst()
                deliver(a.receive(first.bytes, from: addressB, now: now), fromA: true)
            }
            deliver(a.tick(now: now), fromA: true)
            deliver(b.tick(now: now), fromA: false)
        }
    }
}

struct ICEAgentTests {
    @Test func twoAgentsConnectAfterSettlingTheirRoleConflict() {
        // Both start controlling (as a publisher does); the larger tie-breaker keeps the role (RFC 8445 §7.3.1.1).
        var link = Link()
        link.start()
        link.run(for: .milliseconds(500))
        #expect(link.connectedA == link.addressB)
        #expect(link.connectedB == link.addressA)
        #expect(link.a.isControlling)
        #expect(!link.b.isControlling)
        #expect(link.a.phase == .connected)
        #expect(link.b.phase == .connected)
        #expect(link.failures.isEmpty)
    }

    @Test func consentKeepsAHealthyPathAndNoticesADeadOne() {
        var link = Link(consent: .milliseconds(200), consentTimeout: .seconds(2))
        link.start()
        link.run(for: .seconds(5))
        #expect(link.a.phase == .connected)
        #expect(link.failures.isEmpty)
        link.dropEverything = true
        // The last answer came at most one consent interval (+20 % jitter) before the drop.
        link.run(for: .milliseconds(1700))
        #expect(link.a.phase == .connected)
        link.run(for: .milliseconds(400))
        #expect(link.a.phase == .failed)
        #expect(link.failures.contains { $0.contains("consent") })
    }

    /// A path that dies silently is noticed after the silence timeout (10 s), not after consent's 30 s; once the
    /// peer has been quiet for a consent interval, checks go every 500 ms so a lossy but live path answers first.
    @Test func aSilentPathIsNoticedAfterTheSilenceTimeout() throws {
        var link = Link(silenceTimeout: .seconds(10))
        link.start()
        link.run(for: .seconds(20))
        #expect(link.a.phase == .connected && link.failures.isEmpty)
        link.dropEverything = true
        let dropped = link.now
        let sentBefore = link.sentByA
        // The last thing heard came at most one consent interval (+20 %) before the drop: the path is given up
        // between 4 and 10 s after it, not at consent's 30 s.
        link.run(for: .seconds(4))
        #expect(link.a.phase == .connected)
        link.run(for: .milliseconds(6_100))
        #expect(link.a.phase == .failed)
        #expect(link.failures.contains { $0.contains("sent nothing for 10") }, "\(link.failures)")
        // When the peer was last heard outlives the failure, so the driver can say how long the path was silent.
        let lastHeard = try #require(link.a.lastHeardFromPeer)
        #expect(lastHeard <= dropped && dropped - lastHeard <= .milliseconds(6_000), "\(dropped - lastHeard)")
        // Checks every 500 ms through the last 5 s of silence (the first may be in flight at the drop).
        #expect(link.sentByA - sentBefore >= 7, "\(link.sentByA - sentBefore) checks while silent")
    }

    /// What the driver hears (RTCP, DTLS) keeps a path alive between consent answers.
    @Test func whatTheDriverHearsKeepsThePathAlive() {
        var link = Link(silenceTimeout: .seconds(10))
        link.start()
        link.run(for: .seconds(1))
        link.dropEverything = true
        for _ in 0..<20 {
            link.run(for: .seconds(1))
            link.a.heard(now: link.now)
        }
        #expect(link.a.phase == .connected, "\(link.failures)")
        // Consent itself still expires: RFC 7675 wants an answer within 30 s whatever else comes.
        for _ in 0..<12 {
            link.run(for: .seconds(1))
            link.a.heard(now: link.now)
        }
        #expect(link.a.phase == .failed)
        #expect(link.failures.contains { $0.contains("consent") }, "\(link.failures)")
    }

    /// On a path with a 1 s round trip, consent answers come long after any retransmission timeout and still count.
    @Test func aSlowConsentAnswerStillCounts() {
        var link = Link(silenceTimeout: .seconds(10))
        link.start()
        link.run(for: .seconds(1))
        #expect(link.a.phase == .connected)
        link.delayToA = .seconds(1)
        link.run(for: .seconds(70))
        #expect(link.a.phase == .connected, "\(link.failures)")
        #expect(link.failures.isEmpty)
    }

    @Test func checksGiveUpWhenNothingAnswers() {
        var link = Link()
        link.dropEverything = true
        link.start()
        link.run(for: .seconds(16), step: .milliseconds(50))
        #expect(link.a.phase == .failed)
        #expect(link.a.lastHeardFromPeer == nil, "no pair was selected, so nothing was heard on one")
        #expect(link.failures.contains { $0.contains("failed") || $0.contains("no ICE candidate pair") })
    }

    @Test func checksWithoutTheRightPasswordAreIgnored() {
        var agent = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                                  tieBreaker: 1),
                             hostAddresses: [TransportAddress(host: "127.0.0.1", port: 5000)!])
        let forged = STUNMessage(class: .request, transactionID: Array(repeating: 7, count: 12),
                                 attributes: [.username("aaaa:zzzz"), .priority(1), .iceControlling(5)])
        let source = TransportAddress(host: "127.0.0.1", port: 7000)!
        #expect(agent.receive(forged.encoded(integrityKey: Array("not the password".utf8)), from: source,
                              now: .zero).isEmpty)
        let good = agent.receive(forged.encoded(integrityKey: Array("passwordpasswordA00000".utf8)), from: source,
                                 now: .zero)
        guard case .send(let bytes, let destination)? = good.first else {
            Issue.record("no response to an authenticated check")
            return
        }
        #expect(destination == source)
        let response = try? STUNMessage(decoding: bytes)
        // Our tie-breaker (1) is smaller than the peer's (5): we yield and answer with success.
        #expect(response?.messageClass == .success)
        #expect(response?.mappedAddress == source)
        #expect(agent.isControlling == false)
    }

    @Test func gatheringAsksTheSTUNServerForAReflexiveCandidate() throws {
        let server = try #require(TransportAddress(host: "192.0.2.10", port: 3478))
        let host = try #require(TransportAddress(host: "10.0.0.2", port: 5000))
        var agent = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                                  tieBreaker: 1, stunServer: server),
                             hostAddresses: [host])
        let actions = agent.startGathering(now: .zero)
        guard case .send(let bytes, let destination)? = actions.first else {
            Issue.record("no binding request")
            return
        }
        #expect(destination == server)
        let request = try STUNMessage(decoding: bytes)
        #expect(request.messageClass == .request)
        #expect(agent.phase == .gathering)
        // A retransmission after the RTO, then the server's answer.
        #expect(agent.tick(now: .milliseconds(260)).count == 1)
        let mapped = try #require(TransportAddress(host: "198.51.100.7", port: 61665))
        let response = STUNMessage(class: .success, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(mapped, transactionID: request.transactionID)])
        let result = agent.receive(response.encoded(), from: server, now: .milliseconds(300))
        guard case .gathered(let candidates)? = result.first else {
            Issue.record("gathering did not end")
            return
        }
        #expect(candidates.map(\.kind) == [.host, .serverReflexive])
        #expect(candidates[1].address == mapped)
        #expect(candidates[1].base == host)
        #expect(candidates[0].priority > candidates[1].priority)
    }

    @Test func gatheringEndsWithoutTheServer() throws {
        let server = try #require(TransportAddress(host: "192.0.2.10", port: 3478))
        var agent = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                                  tieBreaker: 1, stunServer: server, gatherTimeout: .seconds(1)),
                             hostAddresses: [TransportAddress(host: "10.0.0.2", port: 5000)!])
        _ = agent.startGathering(now: .zero)
        #expect(agent.tick(now: .milliseconds(999)).allSatisfy { if case .gathered = $0 { false } else { true } })
        #expect(agent.tick(now: .seconds(1)).contains { if case .gathered(let c) = $0 { c.count == 1 } else { false } })
    }

    @Test func prioritiesFollowRFC8445() {
        // §5.1.2.1 with type preference 126, local preference 65535, component 1.
        #expect(ICECandidate.priority(kind: .host, localPreference: 65535) == 2_130_706_431)
        #expect(ICECandidate.pairPriority(controlling: 10, controlled: 20) == (10 << 32) + 40)
        #expect(ICECandidate.pairPriority(controlling: 20, controlled: 10) == (10 << 32) + 41)
    }
}
