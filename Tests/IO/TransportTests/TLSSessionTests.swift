import Foundation
import TestSupport
import Testing
@testable import Transport

@Suite(.startsPeers) struct TLSSessionTests {
    /// Reads until a newline arrives.
    private func readLine(from connection: AsyncConnection) async throws -> String {
        var received: [UInt8] = []
        while !received.contains(UInt8(ascii: "\n")), let chunk = try await connection.read() {
            received.append(contentsOf: chunk)
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func clientVerifiesAndTalksToOpenSSLServer(host: String) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let port = try await freePort(on: loop)
            // -rev: the server sends each line back reversed.
            let server = try BackgroundProcess("openssl", [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificates.serverCertificate,
                "-key", certificates.serverKey, "-rev",
            ])
            // SIGKILL: `openssl s_server` started from the test runner was seen to survive SIGTERM here.
            defer { server.crash() }
            while try !server.readLine(timeout: 5).contains("ACCEPT") {}
            let client = try await AsyncConnection.connect(
                host: host, port: port,
                tls: TLSClientConfiguration(serverName: host, caFile: certificates.serverCertificate),
                timeout: .seconds(5), loop: loop)
            try client.write(Array("hello\n".utf8))
            #expect(try await readLine(from: client) == "olleh\n")
            await client.close()
        }
    }

    @Test(arguments: ["-tls1_2", "-tls1_3"])
    func openSSLClientVerifiesAndTalksToOurListener(version: String) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop, tls: certificates.serverConfiguration) {
                $0.handler = GreetEchoOnceHandler()
            }
            let result = try Subprocess.run("openssl", [
                "s_client", "-connect", "127.0.0.1:\(port)", version, "-CAfile", certificates.serverCertificate,
                "-verify_ip", "127.0.0.1", "-verify_return_error", "-quiet",
            ], stdin: Data("ping\n".utf8))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "hello\nping\n")
        }
    }

    @Test func certificateFromATrustedCAIsAccepted() async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop, tls: certificates.issuedConfiguration) {
                $0.handler = EchoHandler()
            }
            let client = try await AsyncConnection.connect(
                host: "127.0.0.1", port: port,
                tls: TLSClientConfiguration(serverName: "127.0.0.1", caFile: certificates.authority),
                timeout: .seconds(5), loop: loop)
            try client.write(Array("ping\n".utf8))
            #expect(try await readLine(from: client) == "ping\n")
            await client.close()
        }
    }

    /// The server's certificate comes from the test CA; the client trusts only the system store, or the system
    /// store plus an unrelated certificate.
    @Test(arguments: [false, true])
    func certificateFromAnUntrustedCAIsRejected(withUnrelatedCAFile: Bool) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let log = CloseLog()
            let (port, _) = try await startListener(on: loop, tls: certificates.issuedConfiguration) {
                $0.handler = LoggingHandler(log: log)
            }
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(
                    host: "127.0.0.1", port: port,
                    tls: TLSClientConfiguration(serverName: "127.0.0.1",
                                                caFile: withUnrelatedCAFile ? certificates.serverCertificate : nil),
                    timeout: .seconds(5), loop: loop)
            }
            #expect(error?.code == .tlsFailure)
            let description = error?.description ?? ""
            #expect(description.contains("127.0.0.1:\(port)"), "\(description)")
            #expect(description.contains("certificate verify failed: unable to get local issuer certificate"),
                    "\(description)")
            #expect(description.contains("caFile"), "\(description)")
            // The server sees the client give up during the handshake.
            let closes = try await log.wait(for: 1)
            #expect(closes.first??.code == .tlsFailure || closes.first??.code == .peerClosed)
        }
    }

    @Test(arguments: [("127.0.0.1", "IP address mismatch"), ("localhost", "hostname mismatch")])
    func certificateForAnotherNameIsRejected(host: String, reason: String) async throws {
        let certificates = try await TestCertificates.get()
        try await withLoop { loop in
            let (port, _) = try await startListener(on: loop, tls: certificates.otherNameConfiguration) {
                $0.handler = SilentHandler()
            }
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(
                    host: host, port: port,
                    tls: TLSClientConfiguration(serverName: host, caFile: certificates.otherNameCertificate),
                    timeout: .seconds(5), loop: loop)
            }
            #expect(error?.code == .tlsFailure)
            let description = error?.description ?? ""
            #expect(description.contains("\(host):\(port)"), "\(description)")
            #expect(description.contains("certificate verify failed: \(reason)"), "\(description)")
        }
    }

    @Test func unreadableCAFileIsNamed() async throws {
        try await withLoop { loop in
            let error = await #expect(throws: TransportError.self) {
                try await AsyncConnection.connect(
                    host: "127.0.0.1", port: 1,
                    tls: TLSClientConfiguration(serverName: "127.0.0.1", caFile: "/nonexistent/ca.pem"),
                    timeout: .seconds(5), loop: loop)
            }
            #expect(error?.code == .tlsFailure)
            #expect(error?.description.contains("/nonexistent/ca.pem") == true)
        }
    }
}
