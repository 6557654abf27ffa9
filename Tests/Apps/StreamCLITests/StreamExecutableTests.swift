import Foundation
import TestSupport
import Testing

/// Runs the built `stream` executable as a subprocess, with XDG_CONFIG_HOME set to a temporary directory.
///
/// The executable is built before the tests because `StreamCLITests` depends on the `stream` target in
/// Package.swift (and `swift build --build-tests` builds every product anyway). It is found next to the test
/// bundle: in the build products directory (`.build/debug` or Xcode's `Build/Products/Debug`). Set
/// `STREAM_EXECUTABLE` to test another binary.
@Suite(.startsPeers) struct StreamExecutableTests {
    static func executableURL() throws -> URL {
        try StreamExecutable.url()
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], stdin: String = "", home: TemporaryConfigHome) throws -> Output {
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        process.environment = Sanitizer.carryingOptions(into: home.environment.merging(["LANG": "C.UTF-8"]) { $1 })
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        // Outputs are small (well under a pipe buffer), so reading after exit cannot deadlock.
        process.waitUntilExit()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Output(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    @Test func settingsEndToEnd() throws {
        let home = try TemporaryConfigHome()
        let show = try Self.run(["settings", "show"], home: home)
        #expect(show.status == 0)
        #expect(show.stdout.contains("quality           720p\n"))
        #expect(show.stderr.isEmpty)

        let set = try Self.run(["settings", "set", "fps", "60"], home: home)
        #expect(set.status == 0)
        #expect(set.stdout.hasPrefix("fps = 60\n"))
        let blobURL = home.streamDirectory.appendingPathComponent("stream.settings.v1.json")
        let blob = try Data(contentsOf: blobURL)
        let object = try #require(try JSONSerialization.jsonObject(with: blob) as? [String: Any])
        #expect(object["fps"] as? Int == 60)
        #expect(permissions(of: blobURL.path) == 0o600)

        let refused = try Self.run(["settings", "set", "fps", "45"], home: home)
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("valid choices are 24, 30, 60"))
        #expect(try Data(contentsOf: blobURL) == blob)

        let reset = try Self.run(["settings", "reset"], home: home)
        #expect(reset.status == 0)
        let json = try Self.run(["settings", "show", "--json"], home: home)
        let reloaded = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(reloaded["fps"] as? Int == 30)
    }

    @Test func credentialsEndToEnd() throws {
        let home = try TemporaryConfigHome()
        let key = "live_1234_DO_NOT_PRINT"
        let set = try Self.run(["credentials", "set", "rtmps://live.restream.io/live"], stdin: key + "\n", home: home)
        #expect(set.status == 0)
        #expect(!set.stdout.contains(key) && !set.stderr.contains(key))
        let fileURL = home.streamDirectory.appendingPathComponent("credentials.json")
        #expect(permissions(of: fileURL.path) == 0o600)

        let show = try Self.run(["credentials", "show"], home: home)
        #expect(show.status == 0)
        #expect(show.stdout.contains("rtmps://live.restream.io/live"))
        #expect(show.stdout.contains("••••"))
        #expect(!show.stdout.contains(key) && !show.stderr.contains(key))

        let argv = try Self.run(["credentials", "set", "rtmps://live.restream.io/live", key], home: home)
        #expect(argv.status == 2)
        #expect(!argv.stderr.contains(key))

        let clear = try Self.run(["credentials", "clear"], home: home)
        #expect(clear.status == 0)
        #expect(!FileManager.default.fileExists(atPath: fileURL.path))
        let missing = try Self.run(["credentials", "show"], home: home)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("stream: no credentials stored"))
    }

    @Test func helpVersionAndUsageErrors() throws {
        let home = try TemporaryConfigHome()
        let help = try Self.run(["--help"], home: home)
        #expect(help.status == 0)
        #expect(help.stdout.contains("settings") && help.stdout.contains("credentials"))
        let version = try Self.run(["--version"], home: home)
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("stream "))
        let usage = try Self.run([], home: home)
        #expect(usage.status == 2)
        #expect(usage.stdout.isEmpty)
        #expect(usage.stderr.contains("missing command"))
    }

    @Test func corruptSettingsAreKeptAsideAndReported() throws {
        let home = try TemporaryConfigHome()
        try FileManager.default.createDirectory(at: home.streamDirectory, withIntermediateDirectories: true)
        let blobURL = home.streamDirectory.appendingPathComponent("stream.settings.v1.json")
        try Data([0x00, 0xFF, 0x7B]).write(to: blobURL)
        let result = try Self.run(["settings", "show"], home: home)
        #expect(result.status == 0)
        #expect(result.stderr.contains("stream: warning: settings: the stored settings could not be used"))
        #expect(try home.streamFiles().contains { $0.hasPrefix("stream.settings.v1.corrupt-") })
    }
}
