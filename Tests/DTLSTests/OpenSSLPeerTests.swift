import DTLS
import Foundation
import TestSupport
import Testing

/// Our DTLS endpoint against the openssl CLI's DTLS 1.2 server and client over real UDP on loopback: the
/// handshake completes in both roles and both sides export the same SRTP keying material (RFC 5764 §4.2).
@Suite(.serialized)
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

/// A blocking UDP socket on 127.0.0.1 for driving a sans-I/O endpoint in a test.
final class UDPTestSocket {
    private let fd: Int32
    private var peer: sockaddr_in?
    let localPort: Int

    /// Binds a free port; sends to `port` when given, else to whoever sends first.
    init(connectingTo port: Int?) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw Subprocess.Failure(description: "cannot bind a UDP socket") }
        localPort = Int(UInt16(bigEndian: address.sin_port))
        if let port {
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_addr.s_addr = inet_addr("127.0.0.1")
            target.sin_port = UInt16(port).bigEndian
            peer = target
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        guard var target = peer else { return }
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    func receive(timeoutMilliseconds: Int32) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count > 0 else { return nil }
        if peer == nil { peer = source }
        return Array(buffer.prefix(count))
    }
}
