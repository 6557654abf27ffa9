import Foundation
import StreamCLI
import TestSupport
import Testing

/// Every command given wrong values answers with a clear message and exit code 2, and changes nothing: the
/// settings and credentials files stay byte-identical and no directory is created.
@Suite struct BadArgumentsTests {
    /// One wrong command line, and a word its message must contain.
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var word: String
        var stdin = ""

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        // The program and its groups.
        Case(arguments: [], word: "missing command"),
        Case(arguments: ["bogus"], word: "unknown command"),
        Case(arguments: ["--bogus"], word: "bogus"),
        Case(arguments: ["settings"], word: "missing command"),
        Case(arguments: ["settings", "bogus"], word: "unknown command"),
        Case(arguments: ["credentials"], word: "missing command"),
        Case(arguments: ["credentials", "bogus"], word: "unknown command"),
        // settings show / reset.
        Case(arguments: ["settings", "show", "extra"], word: "settings show"),
        Case(arguments: ["settings", "show", "--bogus"], word: "bogus"),
        Case(arguments: ["settings", "reset", "now"], word: "settings reset"),
        // settings set: shape, then every key with a wrong value.
        Case(arguments: ["settings", "set"], word: "KEY and a VALUE"),
        Case(arguments: ["settings", "set", "fps"], word: "KEY and a VALUE"),
        Case(arguments: ["settings", "set", "fps", "30", "extra"], word: "KEY and a VALUE"),
        Case(arguments: ["settings", "set", "colour", "red"], word: "unknown setting"),
        Case(arguments: ["settings", "set", "quality", "4k"], word: "480p"),
        Case(arguments: ["settings", "set", "quality", "721p"], word: "480p"),
        Case(arguments: ["settings", "set", "fps", "61"], word: "24, 30, 60"),
        Case(arguments: ["settings", "set", "fps", "thirty"], word: "24, 30, 60"),
        Case(arguments: ["settings", "set", "video-bitrate", "-5"], word: "kbps"),
        Case(arguments: ["settings", "set", "video-bitrate", "99999999999999999999"], word: "kbps"),
        Case(arguments: ["settings", "set", "audio-bitrate", "abc"], word: "kbps"),
        Case(arguments: ["settings", "set", "app-audio", "maybe"], word: "on, off"),
        Case(arguments: ["settings", "set", "adaptive-bitrate", "2"], word: "on, off"),
        Case(arguments: ["settings", "set", "pip", "yes please"], word: "on, off"),
        Case(arguments: ["settings", "set", "pip-corner", "middle"], word: "top-left"),
        Case(arguments: ["settings", "set", "audio", "speakers"], word: "mic, system, both"),
        Case(arguments: ["settings", "set", "protocol", "srt"], word: "rtmp, whip"),
        Case(arguments: ["settings", "set", "pip-scale", "0.9"], word: "0.10"),
        Case(arguments: ["settings", "set", "pip-scale", "nan"], word: "0.10"),
        Case(arguments: ["settings", "set", "pip-scale", "5%"], word: "0.10"),
        Case(arguments: ["settings", "set", "camera-position", "side"], word: "front, back"),
        Case(arguments: ["settings", "set", "audio-input", ""], word: "stable id"),
        Case(arguments: ["settings", "set", "audio-input", "mic\u{1}"], word: "stable id"),
        // credentials.
        Case(arguments: ["credentials", "set"], word: "needs the ingest URL"),
        Case(arguments: ["credentials", "set", "not a url"], word: "URL", stdin: "other-key\n"),
        Case(arguments: ["credentials", "set", "ftp://example.com/live"], word: "rtmp", stdin: "other-key\n"),
        Case(arguments: ["credentials", "set", "rtmp://example.com/"], word: "app", stdin: "other-key\n"),
        Case(arguments: ["credentials", "set", "rtmp://example.com:99999/live"], word: "port", stdin: "other-key\n"),
        Case(arguments: ["credentials", "set", "rtmp://example.com/live", "key-on-the-line"], word: "only the URL"),
        Case(arguments: ["credentials", "set", "rtmp://example.com/live"], word: "no stream key"),
        Case(arguments: ["credentials", "set", "rtmp://example.com/live"], word: "stream key", stdin: "a key\n"),
        Case(arguments: ["credentials", "show", "extra"], word: "credentials show"),
        Case(arguments: ["credentials", "clear", "extra"], word: "credentials clear"),
        // serve: every option with a wrong value (the server never starts).
        Case(arguments: ["serve", "extra"], word: "serve"),
        Case(arguments: ["serve", "--bogus"], word: "bogus"),
        Case(arguments: ["serve", "--listen"], word: "listen"),
        Case(arguments: ["serve", "--listen", "nonsense"], word: "HOST:PORT"),
        Case(arguments: ["serve", "--listen", "127.0.0.1:70000"], word: "port"),
        Case(arguments: ["serve", "--listen", "127.0.0.1:-1"], word: "port"),
        Case(arguments: ["serve", "--no-plain"], word: "--tls-listen"),
        Case(arguments: ["serve", "--tls-listen", "127.0.0.1:0"], word: "--tls-cert"),
        Case(arguments: ["serve", "--tls-cert", "/nonexistent/cert.pem"], word: "--tls-listen"),
        Case(arguments: ["serve", "--tls-listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/cert.pem",
                         "--tls-key", "/nonexistent/key.pem"], word: "cannot read"),
        Case(arguments: ["serve", "--keys-file", "/nonexistent/keys"], word: "keys file"),
        Case(arguments: ["serve", "--max-connections", "0"], word: "--max-connections"),
        Case(arguments: ["serve", "--max-connections", "lots"], word: "--max-connections"),
        Case(arguments: ["serve", "--duration", "-1"], word: "--duration"),
        Case(arguments: ["serve", "--duration", "abc"], word: "--duration"),
        Case(arguments: ["serve", "--duration", "inf"], word: "--duration"),
        // broadcast: the URL, the key, then every option with a wrong value (nothing is broadcast).
        Case(arguments: ["broadcast", "rtmp://127.0.0.1:1/live", "rtmp://127.0.0.1:2/live"], word: "destination 2"),
        Case(arguments: ["broadcast", "not a url"], word: "URL"),
        Case(arguments: ["broadcast", "ftp://127.0.0.1/live", "--key-stdin"], word: "rtmp", stdin: "k\n"),
        Case(arguments: ["broadcast", "http://127.0.0.1/whip", "rtmp://127.0.0.1/live", "--key-stdin"], word: "WHIP",
             stdin: "t\nk\n"),
        Case(arguments: ["broadcast", "http://127.0.0.1/whip", "--token-stdin", "--stun", "nope"], word: "HOST:PORT",
             stdin: "t\n"),
        Case(arguments: ["broadcast", "rtmp://127.0.0.1/live", "--key-stdin", "--stun", "127.0.0.1:3478"],
             word: "WHIP", stdin: "k\n"),
        Case(arguments: ["broadcast", "rtmp://127.0.0.1:1/live", "--key-stdin"], word: "standard input"),
        Case(arguments: ["broadcast", "rtmp://127.0.0.1:1/live", "--key-stdin"], word: "stream key",
             stdin: "a key with spaces\n"),
        Case(arguments: ["broadcast", "--bogus"], word: "bogus"),
        Case(arguments: ["broadcast", "--source", "webcam"], word: "not a source"),
        Case(arguments: ["broadcast", "--duration", "-1"], word: "--duration"),
        Case(arguments: ["broadcast", "--duration", "abc"], word: "--duration"),
        Case(arguments: ["broadcast", "--duration", "1e9"], word: "--duration"),
        Case(arguments: ["broadcast", "--quality", "4k"], word: "quality"),
        Case(arguments: ["broadcast", "--fps", "61"], word: "fps"),
        Case(arguments: ["broadcast", "--video-bitrate", "0"], word: "video-bitrate"),
        Case(arguments: ["broadcast", "--audio-bitrate", "loud"], word: "audio-bitrate"),
        Case(arguments: ["broadcast", "--adaptive-bitrate", "maybe"], word: "adaptive-bitrate"),
        Case(arguments: ["broadcast", "--pip", "2"], word: "pip"),
        Case(arguments: ["broadcast", "--pip-corner", "middle"], word: "pip-corner"),
        Case(arguments: ["broadcast", "--pip-scale", "0.9"], word: "pip-scale"),
        Case(arguments: ["broadcast", "--test-size", "10x10"], word: "--test-size"),
        Case(arguments: ["broadcast", "--test-size", "big"], word: "--test-size"),
        Case(arguments: ["broadcast", "--camera", "usb"], word: "not a camera"),
        Case(arguments: ["broadcast", "--camera", "y4m:"], word: "y4m:PATH"),
        Case(arguments: ["broadcast", "--camera-position", "side"], word: "camera-position"),
        Case(arguments: ["broadcast", "--ca-file", "/nonexistent/ca.pem"], word: "--ca-file"),
        Case(arguments: ["broadcast", "--record"], word: "record"),
        // demo: the shared options, and its own.
        Case(arguments: ["demo", "extra"], word: "demo"),
        Case(arguments: ["demo", "--output"], word: "output"),
        Case(arguments: ["demo", "--key-stdin"], word: "key-stdin"),
        Case(arguments: ["demo", "--fps", "61"], word: "fps"),
        Case(arguments: ["demo", "--duration", "abc"], word: "--duration"),
        Case(arguments: ["demo", "--camera", "usb"], word: "not a camera"),
    ]

    @Test(arguments: cases)
    func aWrongCommandLineExitsWithTwoAndChangesNothing(_ wrong: Case) throws {
        let work = try TemporaryDirectory("bad-arguments")
        let environment = ["XDG_CONFIG_HOME": work.file("config"), "XDG_DATA_HOME": work.file("data"),
                           "HOME": work.file("home")]
        func run(_ arguments: [String], stdin: String = "") -> (Int32, ConsoleCapture) {
            let capture = ConsoleCapture(input: stdin)
            let code = StreamCLIMain.run(["stream"] + arguments, console: capture.console, environment: environment)
            return (code, capture)
        }
        // State worth protecting: changed settings and stored credentials.
        #expect(run(["settings", "set", "fps", "60"]).0 == 0)
        #expect(run(["settings", "set", "pip-corner", "top-left"]).0 == 0)
        #expect(run(["credentials", "set", "rtmp://127.0.0.1:1935/live"], stdin: "the-stored-key\n").0 == 0)
        let before = try Self.snapshot(work.path)

        let (code, capture) = run(wrong.arguments, stdin: wrong.stdin)
        #expect(code == ExitCode.usage, "exit \(code): \(capture.error)")
        #expect(capture.error.hasPrefix("stream: "), "\(capture.error)")
        #expect(capture.error.localizedCaseInsensitiveContains(wrong.word), "\(capture.error)")
        #expect(capture.output.isEmpty, "\(capture.output)")
        #expect(try Self.snapshot(work.path) == before, "the call changed files")
    }

    @Test func theExecutableExitsWithTwoOnAWrongValue() throws {
        let work = try TemporaryDirectory("bad-arguments-exe")
        let result = try Subprocess.run(try StreamExecutable.url().path, ["settings", "set", "fps", "61"],
                                        environment: ["XDG_CONFIG_HOME": work.path, "HOME": work.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid value '61' for fps"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).allSatisfy { $0 == "stream" })
    }

    /// Every file and directory under `root` with its bytes (directories map to nil).
    static func snapshot(_ root: String) throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return result }
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            result[relative] = isDirectory.boolValue ? .some(nil) : try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }
}
