import Foundation
import Identity
import TestSupport
import Testing
@testable import StreamCLI

@Suite(.startsPeers) struct TokenCommandTests {
    static let secretText = "4f3c2b1a09e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29180"

    private func secretFile(_ directory: TemporaryConfigHome, mode: mode_t = 0o600,
                            contents: String = secretText + "\n") throws -> String {
        let path = directory.streamDirectory.appendingPathComponent("token-secret").path
        try FileManager.default.createDirectory(at: directory.streamDirectory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func mintsATokenTheServerAccepts() throws {
        let directory = try TemporaryConfigHome()
        let file = try secretFile(directory)
        let result = runCLI(["token", "--user", "ann", "--name", "Ann", "--ttl", "600", "--secret-file", file],
                            in: directory)
        #expect(result.exitCode == 0)
        let token = result.output.trimmingCharacters(in: .newlines)
        let secret = try TokenSecret(Array(Self.secretText.utf8))
        let now = Int64(Date().timeIntervalSince1970)
        let claims = try AccessToken.verify(token, secret: secret, now: now)
        #expect(claims.subject == "ann" && claims.name == "Ann")
        #expect(abs(claims.expiresAt - now - 600) <= 5)
        #expect(claims.issuedAt.map { abs($0 - now) <= 5 } == true)
    }

    /// Python's own hmac and base64 (an implementation we did not write) check the signature and read the claims.
    @Test func pythonVerifiesTheToken() throws {
        let directory = try TemporaryConfigHome()
        let file = try secretFile(directory)
        let token = runCLI(["token", "--user", "bob", "--secret-file", file], in: directory).output
            .trimmingCharacters(in: .newlines)
        let script = """
            import base64, hashlib, hmac, json, sys
            token, secret = sys.stdin.read().split()
            header, payload, signature = token.split(".")
            pad = lambda part: part + "=" * (-len(part) % 4)
            expected = hmac.new(secret.encode(), (header + "." + payload).encode(), hashlib.sha256).digest()
            assert hmac.compare_digest(base64.urlsafe_b64decode(pad(signature)), expected), "bad signature"
            print(json.loads(base64.urlsafe_b64decode(pad(header)))["alg"])
            print(json.loads(base64.urlsafe_b64decode(pad(payload)))["sub"])
            """
        let python = try Subprocess.run("python3", ["-c", script], stdin: Data("\(token) \(Self.secretText)".utf8))
        #expect(python.status == 0, "\(python.stderr)")
        #expect(python.stdout == "HS256\nbob\n")
    }

    @Test(arguments: [0o644, 0o640, 0o604])
    func aSecretOthersCanReadIsRefused(mode: Int) throws {
        let directory = try TemporaryConfigHome()
        let file = try secretFile(directory, mode: mode_t(mode))
        let result = runCLI(["token", "--user", "ann", "--secret-file", file], in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains("can be read by others (mode \(String(mode, radix: 8)))"))
        #expect(result.error.contains("chmod 600"))
        #expect(result.output.isEmpty)
    }

    @Test func badArguments() throws {
        let directory = try TemporaryConfigHome()
        let file = try secretFile(directory)
        let short = directory.streamDirectory.appendingPathComponent("short").path
        #expect(FileManager.default.createFile(atPath: short, contents: Data("too short\n".utf8),
                                               attributes: [.posixPermissions: 0o600]))
        let cases: [([String], String)] = [
            (["token", "--secret-file", file], "--user ID is required"),
            (["token", "--user", "ann"], "--secret-file FILE is required"),
            (["token", "--user", "ann", "--ttl", "0", "--secret-file", file], "--ttl must be"),
            (["token", "--user", "ann", "--ttl", "9999999", "--secret-file", file], "--ttl must be"),
            (["token", "--user", "ann", "--secret-file", directory.streamDirectory.path + "/missing"], "cannot read"),
            (["token", "--user", "ann", "--secret-file", short], "HS256 needs at least 32"),
            (["token", "--user", "ann", "--name", "", "--secret-file", file], "--name must be"),
        ]
        for (arguments, message) in cases {
            let result = runCLI(arguments, in: directory)
            #expect(result.exitCode == 2, "\(arguments)")
            #expect(result.error.contains(message), "\(result.error)")
        }
    }
}
