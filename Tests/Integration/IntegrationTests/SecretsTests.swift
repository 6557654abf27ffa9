import Foundation
import IngestServer
import Publisher
import StreamCore
import TestSupport
import Testing
import Transport

/// The stream key stays secret: it is nowhere in what `stream` prints or writes except the credentials file,
/// that file is private and written atomically, and TLS has no insecure fallback.
@Suite struct SecretsTests {
    /// A sandbox for the `stream` executable: its own config, data and home directories.
    struct Sandbox {
        let work: TemporaryDirectory
        var environment: [String: String] {
            ["XDG_CONFIG_HOME": work.file("config"), "XDG_DATA_HOME": work.file("data"), "HOME": work.file("home"),
             "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        }
        var configDirectory: String { work.file("config/stream") }

        init() throws {
            work = try TemporaryDirectory("secrets")
            try FileManager.default.createDirectory(atPath: work.file("home"), withIntermediateDirectories: true)
        }

        func run(_ arguments: [String], stdin: String? = nil, timeout: TimeInterval = 20) throws -> Subprocess.Result {
            try Subprocess.run(try StreamExecutable.url().path, arguments, timeout: timeout, environment: environment,
                               stdin: stdin.map { Data($0.utf8) })
        }
    }

    /// Every `--help` the CLI has: the program, each group and each command.
    static let helpInvocations: [[String]] = [
        ["--help"], ["settings", "--help"], ["settings", "show", "--help"], ["settings", "set", "--help"],
        ["settings", "reset", "--help"], ["credentials", "--help"], ["credentials", "set", "--help"],
        ["credentials", "show", "--help"], ["credentials", "clear", "--help"], ["serve", "--help"],
        ["broadcast", "--help"], ["demo", "--help"], ["--version"],
    ]

    @Test func theKeyAppearsInNoOutputAndNoFileButTheCredentialsFile() async throws {
        let sandbox = try Sandbox()
        let key = "sk-live-" + UUID().uuidString.lowercased()
        let port = try FreePort.next()
        var transcript: [(String, Subprocess.Result)] = []
        func record(_ arguments: [String], stdin: String? = nil, expect status: Int32) throws {
            let result = try sandbox.run(arguments, stdin: stdin)
            #expect(result.status == status, "stream \(arguments.joined(separator: " ")): \(result.stderr)")
            transcript.append((arguments.joined(separator: " "), result))
        }

        try record(["credentials", "set", "rtmp://127.0.0.1:\(port)/live"], stdin: key + "\n", expect: 0)
        // Written again: the second write replaces the file the same private, atomic way.
        try record(["credentials", "set", "rtmp://127.0.0.1:\(port)/live"], stdin: key + "\n", expect: 0)
        try record(["credentials", "show"], expect: 0)
        try record(["settings", "show"], expect: 0)
        try record(["settings", "show", "--json"], expect: 0)
        try record(["settings", "set", "fps", "60"], expect: 0)
        for help in Self.helpInvocations { try record(help, expect: 0) }
        // Error paths: the key pasted into the URL or as the URL, a wrong URL, the key on the command line.
        try record(["credentials", "set", "rtmp://127.0.0.1:\(port)/live/\(key)"], stdin: key + "\n", expect: 2)
        try record(["credentials", "set", key], stdin: key + "\n", expect: 2)
        try record(["credentials", "set", "ftp://127.0.0.1/live"], stdin: key + "\n", expect: 2)
        try record(["credentials", "set", "rtmp://127.0.0.1:\(port)/live", key], expect: 2)

        // serve with the key in a keys file; ffmpeg publishes with it, and once with a wrong key (refused).
        let keysFile = sandbox.work.file("keys.txt")
        try "\(key)\n".write(toFile: keysFile, atomically: true, encoding: .utf8)
        let fixture = try MediaFixture.makeFLV(in: sandbox.work, seconds: 1, size: "320x240")
        // Started at once on a thread of its own (an async let's child task may wait seconds for a pool thread).
        let served = OffPoolTask("stream-serve") {
            try sandbox.run(["serve", "--listen", "127.0.0.1:\(port)", "--http-listen", "127.0.0.1:0", "--keys-file",
                             keysFile, "--duration", "8"])
        }
        try FreePort.waitUntilListening(port)
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-c", "copy", "-f", "flv",
                                                 "rtmp://127.0.0.1:\(port)/live/\(key)"], timeout: 20)
        #expect(push.status == 0, "\(push.stderr)")
        let refused = try Subprocess.run("ffmpeg", ["-v", "error", "-i", fixture, "-c", "copy", "-f", "flv",
                                                    "rtmp://127.0.0.1:\(port)/live/\(key)-wrong"], timeout: 20)
        #expect(refused.status != 0)
        // Our own broadcaster with the key on stdin, then with the saved credentials, then to a closed port.
        let small = ["--duration", "1", "--quality", "480", "--fps", "24", "--test-size", "320x180"]
        try record(["broadcast", "rtmp://127.0.0.1:\(port)/live", "--key-stdin"] + small, stdin: key + "\n",
                   expect: 0)
        try record(["broadcast"] + small, expect: 0)
        try record(["broadcast", "rtmp://127.0.0.1:\(try FreePort.next())/live", "--key-stdin"] + small,
                   stdin: key + "\n", expect: 1)
        let serve = try await served.value
        #expect(serve.status == 0, "\(serve.stderr)")
        #expect(serve.stdout.contains("publish started") && serve.stdout.contains("publish refused"))
        #expect(serve.stdout.components(separatedBy: "publish started").count == 4, "\(serve.stdout)")
        transcript.append(("serve", serve))

        for (command, result) in transcript {
            #expect(!result.stdout.contains(key) && !result.stderr.contains(key), "stream \(command) printed the key")
        }
        // Every file the CLI created, by name and content, except the credentials file itself.
        let created = try Self.files(under: sandbox.work.path).filter { $0 != keysFile && $0 != fixture }
        let credentialsFile = sandbox.configDirectory + "/credentials.json"
        #expect(created.contains(credentialsFile))
        #expect(created.contains { $0.hasSuffix(".flv") }, "serve recorded nothing: \(created)")
        for path in created where path != credentialsFile {
            #expect(!path.contains(key), "a file name carries the key: \(path)")
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(contents.range(of: Data(key.utf8)) == nil, "\(path) contains the key")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: credentialsFile)).range(of: Data(key.utf8)) != nil)

        // The credentials file is private, and no temporary file of another mode is left beside it.
        let attributes = try FileManager.default.attributesOfItem(atPath: credentialsFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: sandbox.configDirectory).sorted()
        #expect(siblings.allSatisfy { $0 == "credentials.json" || $0 == "stream.settings.v1.json" },
                "unexpected files beside the credentials: \(siblings)")
    }

    @Test func noCommandOffersAnInsecureTLSFallback() throws {
        let sandbox = try Sandbox()
        for help in Self.helpInvocations {
            let result = try sandbox.run(help)
            let text = (result.stdout + result.stderr).lowercased()
            for word in ["insecure", "no-verify", "noverify", "skip-verify", "allow-untrusted", "tls-verify"] {
                #expect(!text.contains(word), "stream \(help.joined(separator: " ")) mentions '\(word)'")
            }
        }
    }

    @Test func anUntrustedCertificateFailsAndTheSameServerIsReachedWhenItsCAIsTrusted() async throws {
        let running = try await IngestServerTests.start(tls: true)
        defer { running.server.stop() }
        let url = try IngestURL(parsing: "rtmps://127.0.0.1:\(try #require(running.ports.rtmps))/live")

        let untrusting = try RTMPClient(options: .init(connectTimeout: .seconds(5)))
        let error = await #expect(throws: PublishError.self) { try await untrusting.connect(to: url) }
        #expect(error?.code == .tlsFailure, "\(String(describing: error))")

        let trusting = try RTMPClient(options: .init(caFile: running.certificate?.certificateFile,
                                                     connectTimeout: .seconds(5)))
        try await trusting.connect(to: url)
        try await trusting.publish(streamKey: "tls-secret")
        await trusting.close()
    }

    /// Regular files under `directory`, recursively.
    static func files(under directory: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files
    }
}
