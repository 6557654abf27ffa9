import ByteIO
import Testing
@testable import ICE

struct DatagramKindTests {
    /// RFC 7983 §7's ranges, at both edges of each.
    @Test(arguments: [
        ([0x00, 0x01], DatagramKind?.some(.stun)), ([0x03, 0x00], .stun),
        ([0x04, 0x00], nil), ([0x10, 0x00], nil), ([0x13, 0x00], nil),  // ZRTP 16...19
        ([0x14, 0xFE], .dtls), ([0x16, 0xFE], .dtls), ([0x3F, 0x00], .dtls),  // 22: a handshake record
        ([0x40, 0x00], nil), ([0x4F, 0x00], nil),  // TURN channels 64...79
        ([0x7F, 0x00], nil),
        ([0x80, 0x60], .rtp), ([0x80, 0xE0], .rtp),  // payload type 96 without and with the marker bit
        ([0x80, 0xC8], .rtcp), ([0x81, 0xCD], .rtcp),  // sender report 200, feedback 205
        ([0x80, 0xBF], .rtp), ([0x80, 0xE0 - 1], .rtcp), ([0xBF, 0x00], .rtp),
        ([0xC0, 0x00], nil), ([0xFF, 0x00], nil),
        ([], nil), ([0x80], nil),
    ] as [([UInt8], DatagramKind?)])
    func firstByteDecides(bytes: [UInt8], kind: DatagramKind?) {
        #expect(DatagramKind(classifying: bytes) == kind)
    }
}

struct STUNPeekTests {
    @Test func peeksTheUsernameOfTheRFC5769Request() {
        #expect(STUNMessage.isBindingRequest(RFC5769.request))
        #expect(STUNMessage.peekUsername(RFC5769.request) == Array("evtj:h6vY".utf8))
        #expect(!STUNMessage.isBindingRequest(RFC5769.ipv4Response))
        #expect(STUNMessage.peekUsername(RFC5769.ipv4Response) == nil)
    }

    @Test func aUsernameAfterMessageIntegrityIsNotCovered() {
        // Built by hand: MESSAGE-INTEGRITY (zeros) first, then USERNAME "evil".
        let bytes = hexBytes("""
            00 01 00 20   21 12 a4 42   b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
            00 08 00 14   00000000 00000000 00000000 00000000 00000000
            00 06 00 04   65 76 69 6c
            """)
        #expect(STUNMessage.peekUsername(bytes) == nil)
    }

    @Test func everyPrefixAndEveryLengthFieldIsSafe() {
        for length in 0...RFC5769.request.count {
            let prefix = Array(RFC5769.request.prefix(length))
            let username = STUNMessage.peekUsername(prefix)
            // USERNAME (at byte 60: 4 bytes of header, 9 of value) ends at byte 73: a shorter prefix cannot hold it.
            #expect(username == (length >= 73 ? Array("evtj:h6vY".utf8) : nil))
        }
        // USERNAME's length low byte (the attribute starts at 60): shorter values cut the name, a length past the
        // message is nothing.
        for (length, expected) in [(0x00, ""), (0x04, "evtj"), (0x09, "evtj:h6vY"), (0xFF, nil)] as [(UInt8, String?)] {
            var bytes = RFC5769.request
            bytes[63] = length
            #expect(STUNMessage.peekUsername(bytes) == expected.map { Array($0.utf8) })
        }
    }
}

struct DatagramRoutesTests {
    static let peer = TransportAddress(host: "192.0.2.1", port: 32853)!
    static let other = TransportAddress(host: "198.51.100.7", port: 40000)!
    static let dtls: [UInt8] = [0x16, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 10)
    static let rtp: [UInt8] = [0x80, 0x66, 0x00, 0x01] + [UInt8](repeating: 0, count: 8)
    static let rtcp: [UInt8] = [0x81, 0xC9, 0x00, 0x07] + [UInt8](repeating: 0, count: 28)

    @Test func aBindingRequestIsRoutedByItsUfragAndTheRestByAddress() {
        var routes = DatagramRoutes<Int>()
        #expect(routes.add(1, localUfrag: "evtj") == .added)
        #expect(routes.add(2, localUfrag: "zzzz") == .added)
        #expect(routes.route(RFC5769.request, from: Self.peer) == .stun(1))
        // Before a check has passed, the peer's other datagrams belong to nobody.
        #expect(routes.route(Self.dtls, from: Self.peer) == .drop(.unknownAddress))
        #expect(routes.bind(Self.peer, to: 1) == .bound)
        #expect(routes.route(Self.dtls, from: Self.peer) == .dtls(1))
        #expect(routes.route(Self.rtp, from: Self.peer) == .rtp(1))
        #expect(routes.route(Self.rtcp, from: Self.peer) == .rtcp(1))
        #expect(routes.route(RFC5769.ipv4Response, from: Self.peer) == .stun(1))  // other STUN: by address
        #expect(routes.route(Self.rtp, from: Self.other) == .drop(.unknownAddress))
        #expect(routes.bind(Self.peer, to: 1) == .refreshed)
        #expect(routes.session(at: Self.peer) == 1)
        #expect(routes.session(ufrag: "zzzz") == 2)
    }

    @Test func unknownDatagramsAreDroppedAndCounted() {
        var routes = DatagramRoutes<Int>()
        _ = routes.add(1, localUfrag: "abcd")
        let noUsername = STUNMessage(class: .request, transactionID: RFC5769.transactionID).encoded()
        #expect(routes.route(RFC5769.request, from: Self.peer) == .drop(.unknownUfrag))
        #expect(routes.route(noUsername, from: Self.peer) == .drop(.noUsername))
        #expect(routes.route([0x47, 0x40, 0x00], from: Self.peer) == .drop(.notMultiplexed))  // an MPEG-TS packet
        #expect(routes.route([], from: Self.peer) == .drop(.notMultiplexed))
        #expect(routes.route(Self.dtls, from: Self.peer) == .drop(.unknownAddress))
        #expect(routes.route(Self.rtp, from: Self.peer) == .drop(.unknownAddress))
        #expect(routes.drops == [.unknownUfrag: 1, .noUsername: 1, .notMultiplexed: 2, .unknownAddress: 2])
        // Bound, the same request without USERNAME goes to the session, whose responder answers 400.
        routes.bind(Self.peer, to: 1)
        #expect(routes.route(noUsername, from: Self.peer) == .stun(1))
    }

    @Test func sessionsAreBoundedAndUfragsUnique() {
        var routes = DatagramRoutes<Int>(maximumSessions: 2)
        #expect(routes.add(1, localUfrag: "aaaa") == .added)
        #expect(routes.add(1, localUfrag: "bbbb") == .duplicate)
        #expect(routes.add(2, localUfrag: "aaaa") == .ufragInUse)
        #expect(routes.add(2, localUfrag: "bbbb") == .added)
        #expect(routes.add(3, localUfrag: "cccc") == .full)
        routes.remove(1)
        #expect(routes.add(3, localUfrag: "aaaa") == .added)
        #expect(routes.sessionCount == 2)
    }

    @Test func aSessionHoldsAtMostItsBoundOfAddressesAndForgetsTheStalest() throws {
        var routes = DatagramRoutes<Int>(maximumAddressesPerSession: 3)
        _ = routes.add(1, localUfrag: "aaaa")
        let addresses = try (1...4).map { try #require(TransportAddress(host: "10.0.0.\($0)", port: 5000)) }
        #expect(routes.bind(addresses[0], to: 1) == .bound)
        #expect(routes.bind(addresses[1], to: 1) == .bound)
        #expect(routes.bind(addresses[2], to: 1) == .bound)
        #expect(routes.bind(addresses[0], to: 1) == .refreshed)  // now [1] is the stalest
        #expect(routes.bind(addresses[3], to: 1) == .evicted(addresses[1]))
        #expect(Set(routes.addresses(of: 1)) == [addresses[0], addresses[2], addresses[3]])
        #expect(routes.route(Self.rtp, from: addresses[1]) == .drop(.unknownAddress))
        #expect(routes.addressCount == 3)
        #expect(routes.bind(addresses[1], to: 9) == .unknownSession)
    }

    @Test func anAddressProvedForAnotherSessionMovesAndRemovalFreesAddresses() {
        var routes = DatagramRoutes<Int>()
        _ = routes.add(1, localUfrag: "aaaa")
        _ = routes.add(2, localUfrag: "bbbb")
        routes.bind(Self.peer, to: 1)
        routes.bind(Self.other, to: 1)
        #expect(routes.bind(Self.peer, to: 2) == .moved(from: 1))
        #expect(routes.route(Self.rtp, from: Self.peer) == .rtp(2))
        #expect(routes.addresses(of: 1) == [Self.other])
        #expect(routes.remove(1) == [Self.other])
        #expect(routes.route(Self.rtp, from: Self.other) == .drop(.unknownAddress))
        #expect(routes.session(ufrag: "aaaa") == nil)
        #expect(routes.remove(1).isEmpty)
        #expect(routes.addressCount == 1)
    }

    /// The driver's loop in miniature, without sockets: the demux routes, each session's responder answers, a valid
    /// check binds the address, and an expired session is removed with its addresses. Two of our full agents are
    /// the peers; a third party who knows a ufrag but not its password gets nothing bound.
    @Test func theDemuxAndTheRespondersRunTwoSessionsOnOnePort() throws {
        let server = try #require(TransportAddress(host: "127.0.0.1", port: 8189))
        var routes = DatagramRoutes<Int>()
        var responders: [Int: ICELiteResponder] = [:]
        var agents: [(agent: ICEAgent, address: TransportAddress)] = []
        var pending: [(TransportAddress, [ICEAgent.Action])] = []
        var now = Duration.zero
        for session in 0..<2 {
            let ufrag = "srv\(session)"
            let pwd = "server-password-\(session)-0123456789"
            #expect(routes.add(session, localUfrag: ufrag) == .added)
            responders[session] = ICELiteResponder(
                credentials: .init(localUfrag: ufrag, localPwd: pwd, remoteUfrag: "cli\(session)"), now: now)
            let address = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(50_000 + session)))
            var agent = ICEAgent(configuration: .init(localUfrag: "cli\(session)", localPwd: "client-pwd-0123456789ab",
                                                      tieBreaker: 1, silenceTimeout: nil),
                                 hostAddresses: [address])
            let first = agent.start(remoteUfrag: ufrag, remotePwd: pwd,
                                    remoteCandidates: [ICECandidate(kind: .host, address: server, priority: 1,
                                                                    foundation: "1")], now: now)
            agents.append((agent, address))
            pending.append((address, first))
        }

        /// One datagram from a peer through the demux to its session; the response goes back to the agent.
        func run(_ bytes: [UInt8], from source: TransportAddress) -> [ICEAgent.Action] {
            guard case .stun(let session) = routes.route(bytes, from: source),
                  let action = responders[session]?.receive(bytes, from: source, now: now) else { return [] }
            guard case .answer(let response, let destination, _) = action else { return [] }
            routes.bind(source, to: session)
            guard let index = agents.firstIndex(where: { $0.address == destination }) else { return [] }
            return agents[index].agent.receive(response, from: server, now: now)
        }
        while now < .seconds(5), agents.contains(where: { $0.agent.phase != .connected }) {
            var next: [(TransportAddress, [ICEAgent.Action])] = []
            for (address, actions) in pending {
                for case .send(let bytes, _) in actions { next.append((address, run(bytes, from: address))) }
            }
            now += .milliseconds(50)
            for index in agents.indices { next.append((agents[index].address, agents[index].agent.tick(now: now))) }
            pending = next
        }
        #expect(agents.allSatisfy { $0.agent.phase == .connected })
        #expect(responders[0]?.selectedAddress == agents[0].address)
        #expect(responders[1]?.selectedAddress == agents[1].address)
        #expect(routes.session(at: agents[0].address) == 0)
        #expect(routes.session(at: agents[1].address) == 1)
        #expect(routes.route(Self.rtp, from: agents[1].address) == .rtp(1))

        // Someone who read session 0's ufrag but lacks its password: routed to it, refused 401, not bound.
        let intruder = try #require(TransportAddress(host: "203.0.113.9", port: 6666))
        let forged = STUNMessage(class: .request, transactionID: RFC5769.transactionID,
                                 attributes: [.username("srv0:cli0"), .iceControlling(1), .useCandidate])
            .encoded(integrityKey: Array("guessed".utf8))
        #expect(routes.route(forged, from: intruder) == .stun(0))
        guard case .refuse(_, _, 401) = responders[0]?.receive(forged, from: intruder, now: now) else {
            Issue.record("a forged check was not refused with 401")
            return
        }
        #expect(routes.session(at: intruder) == nil)
        #expect(responders[0]?.selectedAddress == agents[0].address)

        // Session 1's peer goes silent: 30 s later its responder expires and the driver frees its addresses.
        var expired: [Int] = []
        while now < .seconds(60), expired.isEmpty {
            now += .milliseconds(50)
            for case .send(let bytes, _) in agents[0].agent.tick(now: now) { _ = run(bytes, from: agents[0].address) }
            for session in responders.keys.sorted() where responders[session]?.tick(now: now) != nil {
                routes.remove(session)
                responders[session] = nil
                expired.append(session)
            }
        }
        #expect(expired == [1])
        #expect(routes.session(at: agents[1].address) == nil)
        #expect(routes.route(Self.rtp, from: agents[1].address) == .drop(.unknownAddress))
        #expect(routes.route(Self.rtp, from: agents[0].address) == .rtp(0))
        #expect(routes.sessionCount == 1)
        #expect(responders[0]?.phase == .connected)
    }
}
