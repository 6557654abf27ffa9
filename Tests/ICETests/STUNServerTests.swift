import Foundation
@testable import ICE
import TestSupport
import Testing

/// Gathering against coturn (Debian's TURN/STUN server, run STUN-only on loopback): our Binding request is one it
/// answers, and its XOR-MAPPED-ADDRESS reads back as the address our socket sends from.
struct STUNServerTests {
    @Test(.timeLimit(.minutes(1)))
    func coturnAnswersOurBindingRequest() throws {
        let socket = try UDPTestSocket(connectingTo: nil)
        let serverPort = try Self.freeUDPPort()
        let directory = try TemporaryDirectory("coturn")
        let server = try BackgroundProcess("turnserver", [
            "--stun-only", "--no-auth", "--listening-ip", "127.0.0.1", "--listening-port", String(serverPort),
            "--no-tls", "--no-dtls", "--no-cli", "--pidfile", directory.file("turnserver.pid"),
            "--log-file", directory.file("turnserver.log"),
        ])
        defer { server.stop() }
        let stunServer = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(serverPort)))
        let host = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(socket.localPort)))
        var agent = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                                  tieBreaker: 1, stunServer: stunServer,
                                                  gatherTimeout: .seconds(10)),
                             hostAddresses: [host])
        let origin = ContinuousClock.now
        var now: Duration { ContinuousClock.now - origin }
        var pending = agent.startGathering(now: now)
        var response: STUNMessage?
        var gathered: [ICECandidate]?
        let deadline = Date().addingTimeInterval(15)
        socket.connect(toPort: serverPort)
        while gathered == nil && Date() < deadline {
            for action in pending {
                switch action {
                case .send(let bytes, let destination):
                    #expect(destination == stunServer)
                    socket.send(bytes)
                case .gathered(let candidates):
                    gathered = candidates
                case .connected, .failed:
                    Issue.record("unexpected \(action)")
                }
            }
            pending = []
            if let datagram = socket.receive(timeoutMilliseconds: 50) {
                response = try STUNMessage(decoding: datagram)
                pending = agent.receive(datagram, from: stunServer, now: now)
            } else {
                pending = agent.tick(now: now)
            }
        }
        let answer = try #require(response, "coturn never answered; see \(directory.path)")
        #expect(answer.messageClass == .success)
        #expect(answer.mappedAddress == host)
        // Gathering ended on the answer, not on the timeout; on loopback the mapped address is the host's own, so
        // no server-reflexive candidate is added.
        #expect(now < .seconds(10))
        #expect(gathered?.map(\.kind) == [.host])
    }

    static func freeUDPPort() throws -> Int {
        let probe = try UDPTestSocket(connectingTo: nil)
        return probe.localPort
    }
}
