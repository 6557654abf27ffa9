import DTLS
import SRTP
import Testing

/// A client and a server endpoint handshaking in memory: every datagram one writes, the other reads.
private func handshake(client: DTLSEndpoint, server: DTLSEndpoint) throws -> (SRTPKeyingMaterial, SRTPKeyingMaterial) {
    var toServer = try client.start().datagrams
    var clientKeys: SRTPKeyingMaterial?
    var serverKeys: SRTPKeyingMaterial?
    for _ in 0..<10 where clientKeys == nil || serverKeys == nil {
        var toClient: [[UInt8]] = []
        for datagram in toServer {
            #expect(datagram.count <= 1200)
            #expect((20...63).contains(datagram[0]))  // RFC 7983: DTLS content types
            let output = try server.receive(datagram)
            toClient += output.datagrams
            if let keys = output.keys { serverKeys = keys }
        }
        toServer = []
        for datagram in toClient {
            let output = try client.receive(datagram)
            toServer += output.datagrams
            if let keys = output.keys { clientKeys = keys }
        }
    }
    return (try #require(clientKeys), try #require(serverKeys))
}

struct DTLSEndpointTests {
    @Test func handshakeExportsMirroredSRTPKeysThatProtectMedia() throws {
        let clientCertificate = try DTLSCertificate()
        let serverCertificate = try DTLSCertificate()
        #expect(clientCertificate.sha256Fingerprint.count == 32)
        #expect(clientCertificate.sha256Fingerprint != serverCertificate.sha256Fingerprint)
        let client = try DTLSEndpoint(certificate: clientCertificate, role: .client,
                                      remoteFingerprints: [("sha-256", serverCertificate.sha256Fingerprint)])
        let server = try DTLSEndpoint(certificate: serverCertificate, role: .server,
                                      remoteFingerprints: [("sha-384", [1, 2, 3]),
                                                           ("sha-256", clientCertificate.sha256Fingerprint)])
        let (clientKeys, serverKeys) = try handshake(client: client, server: server)
        #expect(client.isConnected && server.isConnected)
        #expect(clientKeys.profile == "SRTP_AES128_CM_SHA1_80")
        #expect(clientKeys.localKey.count == 30)
        #expect(clientKeys.localKey == serverKeys.remoteKey)
        #expect(clientKeys.remoteKey == serverKeys.localKey)
        #expect(clientKeys.localKey != clientKeys.remoteKey)

        let sender = try SRTPSession(masterKey: clientKeys.localKey, direction: .outbound)
        let receiver = try SRTPSession(masterKey: serverKeys.remoteKey, direction: .inbound)
        let rtp: [UInt8] = [0x80, 0x66, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x04, 0x57]
            + Array(repeating: 0xAB, count: 100)
        let protected = try sender.protect(rtp: rtp)
        #expect(protected.count == rtp.count + 10)  // the 80-bit tag
        #expect(Array(protected.prefix(12)) == Array(rtp.prefix(12)))  // the header stays clear
        #expect(protected[12...] != rtp[12...])
        #expect(try receiver.unprotect(rtp: protected) == rtp)
        // The same packet again is a replay; an altered one fails authentication.
        #expect { try receiver.unprotect(rtp: protected) } throws: { error in (error as? SRTPError)?.code == .replay }
        var altered = try sender.protect(rtp: [0x80, 0x66, 0x00, 0x02] + rtp[4...])
        altered[20] ^= 1
        #expect { try receiver.unprotect(rtp: altered) } throws: { error in
            (error as? SRTPError)?.code == .authentication && "\(error)".contains("authentication")
        }
        // NACK answers resend a sequence number already protected: the sender must allow it.
        #expect(try sender.protect(rtp: rtp).count == protected.count)

        let rtcp: [UInt8] = [0x80, 0xC8, 0x00, 0x06, 0x00, 0x00, 0x04, 0x57] + Array(repeating: 0, count: 20)
        let receiverRTCP = try SRTPSession(masterKey: clientKeys.remoteKey, direction: .inbound)
        let senderRTCP = try SRTPSession(masterKey: serverKeys.localKey, direction: .outbound)
        #expect(try receiverRTCP.unprotect(rtcp: senderRTCP.protect(rtcp: rtcp)) == rtcp)
    }

    @Test func aCertificateThatDoesNotMatchTheFingerprintIsRefused() throws {
        let clientCertificate = try DTLSCertificate()
        let serverCertificate = try DTLSCertificate()
        let impostor = try DTLSCertificate()
        let client = try DTLSEndpoint(certificate: clientCertificate, role: .client,
                                      remoteFingerprints: [("sha-256", impostor.sha256Fingerprint)])
        let server = try DTLSEndpoint(certificate: serverCertificate, role: .server,
                                      remoteFingerprints: [("sha-256", clientCertificate.sha256Fingerprint)])
        #expect {
            _ = try handshake(client: client, server: server)
        } throws: { error in
            (error as? DTLSError)?.code == .certificate
                && (error as? DTLSError)?.message.contains("does not match the fingerprint") == true
        }
        #expect(!client.isConnected)
    }

    @Test func aLostFlightIsResentAfterTheTimeout() throws {
        let certificate = try DTLSCertificate()
        let client = try DTLSEndpoint(certificate: certificate, role: .client, remoteFingerprints: [])
        let hello = try client.start().datagrams
        #expect(hello.count == 1)
        let timeout = try #require(client.timeout)
        #expect(timeout > .zero && timeout <= .seconds(1))
        // OpenSSL's retransmission timer reads the real clock (no clock can be given to it): the timeout itself must
        // pass. Called early, handleTimeout() resends nothing and the count below is 0.
        usleep(UInt32(timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000)
               + 20_000)
        let resent = try client.handleTimeout().datagrams
        #expect(resent.count == 1)
        #expect(resent.first?.count == hello.first?.count)
    }

    /// RFC 6347 §4.1.2.7: invalid records are dropped; garbage neither crashes the endpoint nor spoils the
    /// handshake that follows.
    @Test func garbageIsDroppedAndTheHandshakeStillWorks() throws {
        let clientCertificate = try DTLSCertificate()
        let serverCertificate = try DTLSCertificate()
        let server = try DTLSEndpoint(certificate: serverCertificate, role: .server,
                                      remoteFingerprints: [("sha-256", clientCertificate.sha256Fingerprint)])
        for length in [0, 1, 13, 40, 200] {
            let output = try server.receive([0x16, 0xFE, 0xFD] + Array(repeating: 0x41, count: length))
            #expect(output.keys == nil)
        }
        let client = try DTLSEndpoint(certificate: clientCertificate, role: .client,
                                      remoteFingerprints: [("sha-256", serverCertificate.sha256Fingerprint)])
        _ = try handshake(client: client, server: server)
        #expect(server.isConnected)
    }
}

#if canImport(Glibc)
import Glibc
#endif
