import DTLS
import ICE
import Locking
import TestSupport
import Testing
import WebRTCServer

/// The server's refusals, without a peer: a bad offer, and offers past the session bound.
@Suite struct WebRTCServerTests {
    @Test(.timeLimit(.minutes(1))) func offersPastTheBoundAndBadOffersAreRefused() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 1))
        if case .refused(let error) = await server.publish(app: "live", offer: "v=0\r\nnonsense\r\n") {
            #expect(error.code == .badOffer, "\(error)")
        } else {
            Issue.record("nonsense was answered")
        }
        #expect(await server.publish(app: "live", offer: WebRTCServerPeerTests.offer).isCreated)
        if case .refused(let error) = await server.publish(app: "live", offer: WebRTCServerPeerTests.offer) {
            #expect(error.code == .full && error.retryAfter != nil, "\(error)")
        } else {
            Issue.record("a second session past the bound of one was answered")
        }
        #expect(await server.statistics().refusedFull == 1)
        await server.stop()
    }

    @Test(.timeLimit(.minutes(1))) func aSessionNobodyConnectsIsFreedAtItsConnectTimeout() async throws {
        let events = Locked<[WebRTCServerEvent]>([])
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 1,
                                                        connectTimeout: .milliseconds(300),
                                                        onEvent: { event in events.withLock { $0.append(event) } }))
        #expect(await server.publish(app: "live", offer: WebRTCServerPeerTests.offer).isCreated)
        try await eventually("the unconnected session freed", within: .seconds(5),
                             seen: { "\(events.withLock { $0 })" }) {
            await server.statistics().sessions.isEmpty
        }
        let ended = events.withLock { $0 }.compactMap { event -> String? in
            if case .ended(_, let reason) = event { return reason }
            return nil
        }
        #expect(ended.count == 1 && ended[0].contains("no ICE check nominated a path"), "\(ended)")
        // Its slot is free again.
        #expect(await server.publish(app: "live", offer: WebRTCServerPeerTests.offer).isCreated)
        await server.stop()
    }

    /// ICE by hand over real UDP: a check signed with the answer's password is answered (XOR-MAPPED-ADDRESS of
    /// our socket) and selects the path, one with another password is refused 401; with no DTLS after it, the
    /// session ends at its handshake deadline.
    @Test(.timeLimit(.minutes(1))) func aCheckedPathWithoutDTLSEndsAtTheHandshakeDeadline() async throws {
        let events = Locked<[WebRTCServerEvent]>([])
        let server = try await WebRTCServer.start(.init(listenPort: 0, handshakeTimeout: .milliseconds(600),
                                                        onEvent: { event in events.withLock { $0.append(event) } }))
        guard case .created(_, let answer) = await server.publish(app: "live", offer: WebRTCServerPeerTests.offer)
        else {
            Issue.record("the offer was refused")
            return
        }
        func value(_ name: String) -> String? {
            answer.split(separator: "\r\n").first { $0.hasPrefix("a=\(name):") }
                .map { String($0.dropFirst(name.count + 3)) }
        }
        let ufrag = try #require(value("ice-ufrag"))
        let pwd = try #require(value("ice-pwd"))
        let client = try UDPTestSocket(connectingTo: server.port)
        func check(key: String) -> STUNMessage? {
            let request = STUNMessage(class: .request, transactionID: (0..<12).map { _ in UInt8.random(in: 0...255) },
                                      attributes: [.username("\(ufrag):abcd"), .priority(1_853_824_767),
                                                   .iceControlling(42), .useCandidate])
            client.send(request.encoded(integrityKey: Array(key.utf8)))
            return client.receive(timeoutMilliseconds: 2000).flatMap { try? STUNMessage(decoding: $0) }
        }
        let refused = try #require(check(key: "not-the-password-0123456"), "no answer to a badly signed check")
        #expect(refused.messageClass == .error && refused.errorCode?.code == 401)
        let answered = try #require(check(key: pwd), "no answer to a check")
        #expect(answered.messageClass == .success && answered.hasValidIntegrity(key: Array(pwd.utf8)))
        #expect(answered.mappedAddress?.port == UInt16(client.localPort))
        let session = try #require(await server.statistics().sessions.first)
        #expect(session.remote?.port == UInt16(client.localPort) && !session.connected, "\(session)")

        try await eventually("the session without DTLS ended", within: .seconds(5),
                             seen: { "\(events.withLock { $0 })" }) {
            await server.statistics().sessions.isEmpty
        }
        let reasons = events.withLock { $0 }.compactMap { event -> String? in
            if case .ended(_, let reason) = event { return reason }
            return nil
        }
        #expect(reasons.count == 1 && reasons[0].contains("DTLS did not complete"), "\(reasons)")
        await server.stop()
    }

    /// A client publishing again with the same key (a reconnect before its old session expired) replaces its old
    /// session, even when the server is full; another key is still refused.
    @Test(.timeLimit(.minutes(1))) func aNewSessionWithTheSameKeyReplacesTheOld() async throws {
        let events = Locked<[WebRTCServerEvent]>([])
        let server = try await WebRTCServer.start(.init(listenPort: 0, maximumSessions: 1,
                                                        onEvent: { event in events.withLock { $0.append(event) } },
                                                        onMedia: { _ in }))
        let offer = WebRTCServerPeerTests.offer
        guard case .created(let first, _) = await server.publish(app: "live", offer: offer, streamTag: "tag-a"),
              case .created(let second, _) = await server.publish(app: "live", offer: offer, streamTag: "tag-a")
        else {
            Issue.record("the same key's second offer was refused")
            return
        }
        #expect(first != second)
        let reasons = events.withLock { $0 }.compactMap { event -> String? in
            if case .ended(let session, let reason) = event { return "\(session.serial): \(reason)" }
            return nil
        }
        #expect(reasons == ["1: replaced by a new WHIP session with the same key"])
        #expect(await server.statistics().sessions.map(\.serial) == [2])
        #expect(await server.close(session: first, app: "live") == false)
        if case .refused(let error) = await server.publish(app: "live", offer: offer, streamTag: "tag-b") {
            #expect(error.code == .full)
        } else {
            Issue.record("another key's offer past the bound was answered")
        }
        // A bad offer with the same key leaves the session alone.
        if case .created = await server.publish(app: "live", offer: "v=0\r\n", streamTag: "tag-a") {
            Issue.record("a bad offer was answered")
        }
        #expect(await server.statistics().sessions.map(\.serial) == [2])
        await server.stop()
    }

    /// A DTLS client (our endpoint) that says ClientHello after a check and then goes silent: the server's flight
    /// comes again when OpenSSL's timer (1 s) runs out, driven by the session's clock on the loop.
    @Test(.timeLimit(.minutes(1))) func theServersDTLSFlightIsResentWhenTheClientGoesSilent() async throws {
        let server = try await WebRTCServer.start(.init(listenPort: 0, handshakeTimeout: .seconds(10)))
        guard case .created(_, let answer) = await server.publish(app: "live", offer: WebRTCServerPeerTests.offer)
        else {
            Issue.record("the offer was refused")
            return
        }
        func value(_ name: String) -> String? {
            answer.split(separator: "\r\n").first { $0.hasPrefix("a=\(name):") }
                .map { String($0.dropFirst(name.count + 3)) }
        }
        let ufrag = try #require(value("ice-ufrag"))
        let pwd = try #require(value("ice-pwd"))
        let client = try UDPTestSocket(connectingTo: server.port)
        let check = STUNMessage(class: .request, transactionID: (0..<12).map { _ in UInt8.random(in: 0...255) },
                                attributes: [.username("\(ufrag):abcd"), .priority(1_853_824_767),
                                             .iceControlling(42), .useCandidate])
        client.send(check.encoded(integrityKey: Array(pwd.utf8)))
        #expect(client.receive(timeoutMilliseconds: 2000)?.first == 0x01, "a STUN success response")

        let dtls = try DTLSEndpoint(certificate: try DTLSCertificate(), role: .client, remoteFingerprints: [])
        for datagram in try dtls.start().datagrams { client.send(datagram) }
        let flight = try #require(client.receive(timeoutMilliseconds: 2000), "no answer to the ClientHello")
        #expect((20...63).contains(flight[0]), "a DTLS record")
        // Drain the rest of the first flight, then wait for it to come again.
        let start = ContinuousClock.now
        var again: [UInt8]?
        while again == nil, ContinuousClock.now - start < .seconds(4) {
            guard let datagram = client.receive(timeoutMilliseconds: 100) else { continue }
            if ContinuousClock.now - start > .milliseconds(500) { again = datagram }
        }
        let resent = try #require(again, "the server's flight was not resent within 4 s")
        #expect((20...63).contains(resent[0]))
        #expect(await server.statistics().sessions.first?.connected == false)
        await server.stop()
    }
}

