import Foundation
import TestSupport
import Testing

/// `stream serve`'s HTTP side as a user runs it: the real executable, curl as the client.
@Suite(.serialized) struct ServeHTTPTests {
    /// Each test's own configuration, data and home directory for the servers it runs.
    private let home: TemporaryConfigHome

    init() throws {
        home = try TemporaryConfigHome()
    }

    /// Starts `stream serve` with `arguments` and returns it with the lines it printed up to the HTTP line(s).
    private func serve(_ arguments: [String], until prefix: String) async throws -> (BackgroundProcess, [String]) {
        let process = try BackgroundProcess(try StreamExecutable.url().path,
                                            ["serve", "--no-record", "--duration", "20"] + arguments,
                                            environment: home.environment)
        let lines = try await offPool { () -> [String] in
            var lines: [String] = []
            while !(lines.last?.hasPrefix(prefix) ?? false) { lines.append(try process.readLine(timeout: 15)) }
            return lines
        }
        return (process, lines)
    }

    private func port(in line: String) throws -> String {
        try #require(line.split(separator: ":").dropFirst(2).first?.prefix { $0.isNumber }).description
    }

    @Test func servesHealthOnAPortPickedAtStart() async throws {
        let (process, lines) = try await serve(["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"],
                                               until: "HTTP on")
        defer { process.stop() }
        let line = try #require(lines.last)
        #expect(line.hasPrefix("HTTP on http://127.0.0.1:") && line.hasSuffix("(health: /v1/health)"))
        let port = try port(in: line)
        #expect(port != "0" && port != "8080")
        let health = try await offPool {
            try Subprocess.run("curl", ["-sS", "-D", "-", "http://127.0.0.1:\(port)/v1/health"], timeout: 10)
        }
        #expect(health.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(health.stdout.contains("Content-Type: application/json\r\n"))
        #expect(health.stdout.contains(#"{"status":"ok","version":""#))
        #expect(health.stdout.contains(#""uptimeSeconds":"#))
    }

    @Test func servesHTTPSWithTheRTMPSCertificate() async throws {
        let directory = try TemporaryDirectory("serve-https")
        let certificate = try TestCertificate.make(in: directory)
        let (process, lines) = try await serve([
            "--no-plain", "--tls-listen", "127.0.0.1:0", "--tls-cert", certificate.certificateFile,
            "--tls-key", certificate.keyFile, "--no-http",
        ], until: "Play with")
        process.stop()
        #expect(!lines.contains { $0.hasPrefix("HTTP") })

        let (secure, secureLines) = try await serve([
            "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--https-listen", "127.0.0.1:0",
            "--tls-cert", certificate.certificateFile, "--tls-key", certificate.keyFile,
        ], until: "HTTPS on")
        defer { secure.stop() }
        let port = try port(in: try #require(secureLines.last))
        let caFile = certificate.certificateFile
        let health = try await offPool {
            try Subprocess.run("curl", ["-sS", "--cacert", caFile,
                                        "https://127.0.0.1:\(port)/v1/health"], timeout: 10)
        }
        #expect(health.stdout.hasPrefix(#"{"status":"ok""#), "\(health.stderr)")
    }

    @Test(arguments: [
        (["serve", "--https-listen", "127.0.0.1:0"], "--https-listen needs --tls-cert"),
        (["serve", "--http-listen", "nonsense"], "--http-listen must be HOST:PORT"),
        (["serve", "--no-http", "--http-listen", "127.0.0.1:0"], "contradict"),
    ])
    func badHTTPArgumentsExitWithUsageErrors(arguments: [String], message: String) async throws {
        let environment = home.environment
        let result = try await offPool {
            try Subprocess.run(try StreamExecutable.url().path, arguments, timeout: 10, environment: environment)
        }
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func reportsAnHTTPPortInUse() async throws {
        let (first, lines) = try await serve(["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"],
                                             until: "HTTP on")
        defer { first.stop() }
        let port = try port(in: try #require(lines.last))
        let environment = home.environment
        let second = try await offPool {
            try Subprocess.run(try StreamExecutable.url().path, [
                "serve", "--listen", "127.0.0.1:0", "--no-record", "--http-listen", "127.0.0.1:\(port)",
                "--duration", "2",
            ], timeout: 10, environment: environment)
        }
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot serve HTTP"), "\(second.stderr)")
    }
}
