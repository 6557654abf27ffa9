import DTLS
import Foundation
import TestSupport
import Testing

/// Our DTLS endpoint against the openssl CLI's DTLS 1.2 server and client over real UDP on loopback: the
/// handshake completes in both roles and both sides export the same SRTP keying material (RFC 5764 §4.2).
@Suite(.serialized, .startsPeers)
struct OpenSSLPeerTests {
    @Test(.timeLimit(.minutes(1)))
    func asClientAgainstOpenSSLServer() throws {
        let directory = try TemporaryDirectory("dtls")
        let certificate = try TestCertificate.make(in: directory)
        let server = try Self.openssl(["s_server", "-dtls1_2", "-accept", "127.0.0.1:0", "-cert",
                                       certificate.certificateFile, "-key", certificate.keyFile, "-naccept", "1"]
                                      + Self.srtpOptions)
        defer { server.stop() }
        let accept = try Self.line(of: server, startingWith: "ACCEPT ")
        let port = try #require(accept.split(separator: ":").last.flatMap { Int($0) })
        let socket = try UDPTestSocket(connectingTo: port)
        let endpoint = try DTLSEndpoint(certificate: DTLSCertificate(), role: .client,
                                        remoteFingerprints: [("sha-256", try Self.fingerprint(certificate))])
        let keys = try Self.handshake(endpoint, over: socket, starting: true)
        let exported = try Self.keyingMaterial(of: server)
        // RFC 5764 §4.2: client key, server key, client salt, server salt.
        #expect(Array(keys.localKey.prefix(16) + keys.remoteKey.prefix(16) + keys.localKey.suffix(14)
                      + keys.remoteKey.suffix(14)) == exported)
    }

    @Test(.timeLimit(.minutes(1)))
    func asServerAgainstOpenSSLClient() throws {
        let directory = try TemporaryDirectory("dtls")
        let certificate = try TestCertificate.make(in: directory, name: "client")
        let socket = try UDPTestSocket(connectingTo: nil)
        let ours = try DTLSCertificate()
        let endpoint = try DTLSEndpoint(certificate: ours, role: .server,
                                        remoteFingerprints: [("sha-256", try Self.fingerprint(certificate))])
        let client = try Self.openssl(["s_client", "-dtls1_2", "-connect", "127.0.0.1:\(socket.localPort)",
                                       "-cert", certificate.certificateFile, "-key", certificate.keyFile]
                                      + Self.srtpOptions)
        defer { client.stop() }
        let keys = try Self.handshake(endpoint, over: socket, starting: false)
        let exported = try Self.keyingMaterial(of: client)
        #expect(Array(keys.remoteKey.prefix(16) + keys.localKey.prefix(16) + keys.remoteKey.suffix(14)
                      + keys.localKey.suffix(14)) == exported)
    }

    static let srtpOptions = ["-use_srtp", "SRTP_AES128_CM_SHA1_80", "-keymatexport", "EXTRACTOR-dtls_srtp",
                              "-keymatexportlen", "60"]

    /// Runs openssl with a standard input that stays open (on end of input s_server and s_client quit).
    static func openssl(_ arguments: [String]) throws -> BackgroundProcess {
        let command = "exec openssl " + arguments.map { "'\($0)'" }.joined(separator: " ") + " 2>&1 < <(sleep 15)"
        return try BackgroundProcess("bash", ["-c", command])
    }

    static func line(of process: BackgroundProcess, startingWith prefix: String) throws -> String {
        for _ in 0..<200 {
            let line = try process.readLine(timeout: 10)
            if line.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) {
                return line.trimmingCharacters(in: .whitespaces)
            }
        }
        throw Subprocess.Failure(description: "openssl never printed \(prefix)")
    }

    static func keyingMaterial(of process: BackgroundProcess) throws -> [UInt8] {
        let line = try self.line(of: process, startingWith: "Keying material:")
        let hex = line.dropFirst("Keying material:".count).trimmingCharacters(in: .whitespaces)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        return bytes
    }

    static func fingerprint(_ certificate: TestCertificate) throws -> [UInt8] {
        let result = try Subprocess.run("openssl", ["x509", "-in", certificate.certificateFile, "-noout",
                                                    "-fingerprint", "-sha256"])
        let hex = try #require(result.stdout.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return try hex.split(separator: ":").map { try #require(UInt8($0, radix: 16)) }
    }

    static func handshake(_ endpoint: DTLSEndpoint, over socket: UDPTestSocket,
                          starting: Bool) throws -> SRTPKeyingMaterial {
        if starting { for datagram in try endpoint.start().datagrams { socket.send(datagram) } }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard let datagram = socket.receive(timeoutMilliseconds: 100) else {
                if let timeout = endpoint.timeout, timeout <= .milliseconds(1) {
                    for datagram in try endpoint.handleTimeout().datagrams { socket.send(datagram) }
                }
                continue
            }
            let output = try endpoint.receive(datagram)
            for reply in output.datagrams { socket.send(reply) }
            if let keys = output.keys { return keys }
        }
        throw Subprocess.Failure(description: "the DTLS handshake with openssl did not finish in 10 s")
    }
}
