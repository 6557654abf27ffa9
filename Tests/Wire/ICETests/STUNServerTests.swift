import ByteIO
import Foundation
@testable import ICE
import TestSupport
import Testing

/// Gathering against coturn (Debian's TURN/STUN server, run STUN-only on loopback): our Binding request is one it
/// answers, and its XOR-MAPPED-ADDRESS reads back as the address our socket sends from.
@Suite(.startsPeers) struct STUNServerTests {
    @Test(.timeLimit(.minutes(1)))
    func coturnAnswersOurBindingRequest() throws {
        let socket = try UDPTestSocket(connectingTo: nil)
        let directory = try TemporaryDirectory("coturn")
        let (server, serverPort) = try Self.startCoturn(in: directory)
        defer { server.stop() }
        let stunServer = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(serverPort)))
        let host = try #require(TransportAddress(host: "127.0.0.1", port: UInt16(socket.localPort)))
        var agent = ICEAgent(configuration: .init(localUfrag: "aaaa", localPwd: "passwordpasswordA00000",
                                                  tieBreaker: 1, stunServer: stunServer,
                                                  gatherTimeout: .seconds(20)),
                             hostAddresses: [host])
        let origin = ContinuousClock.now
        var now: Duration { ContinuousClock.now - origin }
        var pending = agent.startGathering(now: now)
        var response: STUNMessage?
        var gathered: [ICECandidate]?
        let deadline = Date().addingTimeInterval(25)
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
        let silence = "coturn listened on UDP \(serverPort) and never answered; its standard error: "
            + Self.contents(of: directory.file("turnserver.err"))
        let answer = try #require(response, "\(silence)")
        #expect(answer.messageClass == .success)
        #expect(answer.mappedAddress == host)
        // Gathering ended on the answer, not on the timeout (20 s: in a full test run on two busy cores coturn
        // once answered only after 10 s, though it listened); on loopback the mapped address is the host's own, so
        // no server-reflexive candidate is added.
        #expect(now < .seconds(20))
        #expect(gathered?.map(\.kind) == [.host])
    }

    /// Starts coturn STUN-only on a free loopback port and waits until it listens there: it binds in milliseconds
    /// on a quiet machine and much later under load, when the agent could spend its retransmissions before coturn is
    /// up. A port another process took between the probe and coturn's bind is tried again with a new one.
    static func startCoturn(in directory: TemporaryDirectory) throws -> (BackgroundProcess, Int) {
        var failures: [String] = []
        for attempt in 1...3 {
            let port = try freeUDPPort()
            let errorLog = directory.file("turnserver.err")
            let server = try BackgroundProcess("turnserver", [
                "--stun-only", "--no-auth", "--listening-ip", "127.0.0.1", "--listening-port", String(port),
                "--no-tls", "--no-dtls", "--no-cli", "--pidfile", directory.file("turnserver.pid"),
                "--log-file", directory.file("turnserver.log"),
            ], errorLog: errorLog)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && server.isRunning {
                if listensOnLoopbackUDP(port: port) { return (server, port) }
                usleep(20_000)
            }
            server.stop()
            failures.append("attempt \(attempt), port \(port): not listening after 10 s or exited; standard error: "
                            + contents(of: errorLog))
        }
        throw Subprocess.Failure(description: "coturn never listened: \(failures.joined(separator: "; "))")
    }

    /// Whether a UDP socket is bound to 127.0.0.1:`port`, from the kernel's table (`/proc/net/udp` writes the
    /// address as hex in host byte order, the port as four hex digits).
    static func listensOnLoopbackUDP(port: Int) -> Bool {
        let local = String(format: "0100007F:%04X", port)
        let table = contents(of: "/proc/net/udp")
        return table.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first == Substring(local) }
    }

    static func contents(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(none)"
    }

    static func freeUDPPort() throws -> Int {
        let probe = try UDPTestSocket(connectingTo: nil)
        return probe.localPort
    }
}
