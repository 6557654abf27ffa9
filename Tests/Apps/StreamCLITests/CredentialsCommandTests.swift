import Foundation
import TestSupport
import Testing
@testable import StreamCLI
@testable import StreamCore

@Suite struct CredentialsCommandTests {
    static let key = "re_7654321_TOPSECRETKEY"

    private func file(_ directory: TemporaryConfigHome) -> URL {
        directory.streamDirectory.appendingPathComponent("credentials.json")
    }

    @Test func setReadsTheKeyFromStdinAndStoresItWithMode0600() throws {
        let directory = try TemporaryConfigHome()
        let capture = ConsoleCapture(input: Self.key + "\n")
        let code = StreamCLIMain.run(["stream", "credentials", "set", "rtmps://live.restream.io/live"],
                                     console: capture.console, environment: directory.environment)
        #expect(code == 0)
        #expect(capture.prompts == ["Stream key: "])
        #expect(capture.output.contains("rtmps://live.restream.io/live/••••"))
        #expect(!capture.output.contains(Self.key) && !capture.error.contains(Self.key))
        #expect(permissions(of: file(directory).path) == 0o600)
        let stored = try FileCredentialStore(paths: XDGPaths(environment: directory.environment)).load()
        #expect(stored?.streamKey == Self.key)
        #expect(stored?.url.tcUrl == "rtmps://live.restream.io/live")
    }

    /// A WHIP endpoint is stored as an RTMP ingest is, its bearer token in the key's place (0600, never shown).
    @Test func aWHIPEndpointIsStoredWithItsTokenAndShownAsWHIP() throws {
        let directory = try TemporaryConfigHome()
        let capture = ConsoleCapture(input: Self.key + "\n")
        let code = StreamCLIMain.run(["stream", "credentials", "set", "https://whip.example.com/live/whip"],
                                     console: capture.console, environment: directory.environment)
        #expect(code == 0)
        #expect(capture.prompts == ["Bearer token: "])
        #expect(permissions(of: file(directory).path) == 0o600)
        let stored = try FileCredentialStore(paths: XDGPaths(environment: directory.environment)).load()
        #expect(stored?.streamKey == Self.key && stored?.url.scheme == .https)
        let shown = runCLI(["credentials", "show"], in: directory)
        #expect(shown.exitCode == 0)
        #expect(shown.output.contains("WHIP over HTTPS (WebRTC), port 443") && shown.output.contains("/live/whip"))
        #expect(!(capture.output + capture.error + shown.output + shown.error).contains(Self.key))
    }

    @Test func keyWithWindowsLineEndingAndSpacesIsTrimmed() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["credentials", "set", "rtmp://h/live"], stdin: "  \(Self.key)\r\n", in: directory)
        #expect(result.exitCode == 0)
        #expect(try FileCredentialStore(paths: XDGPaths(environment: directory.environment)).load()?.streamKey
                == Self.key)
    }

    @Test func showRedactsTheKey() throws {
        let directory = try TemporaryConfigHome()
        _ = runCLI(["credentials", "set", "rtmps://live.example.com:8443/live/xyz"], stdin: Self.key, in: directory)
        let result = runCLI(["credentials", "show"], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.output.contains("url         rtmps://live.example.com:8443/live/xyz\n"))
        #expect(result.output.contains("RTMPS (TLS), port 8443"))
        #expect(result.output.contains("app         live/xyz"))
        #expect(result.output.contains("key         ••••\n"))
        #expect(!result.output.contains(Self.key))
    }

    @Test func showWithoutCredentialsFailsWithExit1() throws {
        let result = runCLI(["credentials", "show"], in: try TemporaryConfigHome())
        #expect(result.exitCode == 1)
        #expect(result.error.contains("no credentials stored"))
    }

    @Test func clearRemovesTheFile() throws {
        let directory = try TemporaryConfigHome()
        _ = runCLI(["credentials", "set", "rtmp://h/live"], stdin: Self.key, in: directory)
        let result = runCLI(["credentials", "clear"], in: directory)
        #expect(result.exitCode == 0)
        #expect(!FileManager.default.fileExists(atPath: file(directory).path))
        #expect(runCLI(["credentials", "clear"], in: directory).exitCode == 0)
    }

    @Test func theKeyIsNeverTakenFromTheCommandLineNorEchoed() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["credentials", "set", "rtmp://h/live", Self.key], stdin: "other", in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains("never read from the command line"))
        #expect(!result.error.contains(Self.key))
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test(arguments: [
        ("", "empty"), ("two words", "spaces or control"),
    ])
    func unusableKeysAreRefusedWithExit2(_ key: String, _ message: String) throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["credentials", "set", "rtmp://h/live"], stdin: key + "\n", in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains(message))
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func endOfInputWithoutAKeyIsAUsageError() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["credentials", "set", "rtmp://h/live"], stdin: "", in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains("no stream key"))
    }

    @Test(arguments: [
        ("ftp://h/live", "unsupported scheme 'ftp'"), ("rtmp://h", "no application path"),
        ("rtmp://h:99999/live", "invalid port '99999'"), ("rtmp:///live", "no host"),
    ])
    func badURLsAreRefusedWithExit2BeforeAskingForTheKey(_ url: String, _ message: String) throws {
        let directory = try TemporaryConfigHome()
        let capture = ConsoleCapture(input: Self.key)
        let code = StreamCLIMain.run(["stream", "credentials", "set", url], console: capture.console,
                                     environment: directory.environment)
        #expect(code == 2)
        #expect(capture.error.contains(message))
        #expect(capture.prompts.isEmpty)
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func aURLThatAlreadyContainsTheKeyIsRefused() throws {
        let directory = try TemporaryConfigHome()
        let result = runCLI(["credentials", "set", "rtmp://h/live/\(Self.key)"], stdin: Self.key, in: directory)
        #expect(result.exitCode == 2)
        #expect(result.error.contains("already contains the stream key"))
        #expect(try directory.streamFiles().isEmpty)
    }

    @Test func anInsecureCredentialsFileIsReportedAsAFailure() throws {
        let directory = try TemporaryConfigHome()
        _ = runCLI(["credentials", "set", "rtmp://h/live"], stdin: Self.key, in: directory)
        #expect(chmod(file(directory).path, 0o640) == 0)
        let result = runCLI(["credentials", "show"], in: directory)
        #expect(result.exitCode == 1)
        #expect(result.error.contains("can be read by other users"))
        #expect(!result.error.contains(Self.key))
    }

    @Test func credentialsAndSettingsStayInSeparateFiles() throws {
        let directory = try TemporaryConfigHome()
        _ = runCLI(["credentials", "set", "rtmps://live.restream.io/live"], stdin: Self.key, in: directory)
        _ = runCLI(["settings", "set", "pip", "on"], in: directory)
        let blob = try String(contentsOf: directory.streamDirectory.appendingPathComponent("stream.settings.v1.json"),
                              encoding: .utf8)
        #expect(!blob.contains(Self.key))
        #expect(!blob.contains("restream"))
    }
}
