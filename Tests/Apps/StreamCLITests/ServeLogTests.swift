import JSON
import Testing
@testable import StreamCLI

/// `stream serve --log-format json`: the pure formatter from a printed line to a JSON object.
@Suite struct ServeLogTests {
    private let time = "2026-12-05T20:31:07.042Z"

    private func object(_ line: String, _ stream: ServeLogLine.Stream = .output) throws -> JSONValue {
        let text = ServeLogLine.object(line, stream: stream, time: time)
        #expect(!text.contains("\n"))
        return try JSONParser.parse(text)
    }

    @Test func aPublishHasItsEventAndFields() throws {
        let value = try object("20:31:07 publish started: live/3f2a9c1b from 127.0.0.1:50412")
        #expect(value == .object([("time", .string(time)), ("level", .string("info")),
                                  ("event", .string("publish_started")),
                                  ("message", .string("publish started: live/3f2a9c1b from 127.0.0.1:50412")),
                                  ("app", .string("live")), ("tag", .string("3f2a9c1b")),
                                  ("peer", .string("127.0.0.1:50412"))]))
        let refused = try object("20:31:07 publish refused: live/3f2a from [::1]:5: the key is not allowed")
        #expect(refused["event"] == .string("publish_refused") && refused["level"] == .string("warning"))
        #expect(refused["peer"] == .string("[::1]:5"))
        #expect(try object("play stopped: live/ab by 10.0.0.2:7")["peer"] == .string("10.0.0.2:7"))
    }

    @Test func knownShapesAndTheRest() throws {
        let cases: [(String, ServeLogLine.Stream, String, String)] = [
            ("20:31:07 recording to /r/live-ab.flv", .output, "recording_started", "info"),
            ("20:31:07 recording to /r/live-ab.flv failed: no space", .output, "recording_failed", "error"),
            ("20:31:07 recording finished: /r/live-ab.flv (12 bytes)", .output, "recording_finished", "info"),
            ("20:31:07 shows: reloaded /s.json: 2 patterns", .output, "shows_reloaded", "info"),
            ("20:31:07 keys: reload refused: the keys file holds no key", .output, "keys_reload_refused", "error"),
            ("20:31:07 webhooks: reloaded /w: the same secret", .output, "webhook_secret_reloaded", "info"),
            ("20:31:07 webhooks: reload refused: short", .output, "webhook_secret_reload_refused", "error"),
            ("20:31:07 reload: nothing to re-read (no --shows)", .output, "nothing_to_reload", "info"),
            ("Publish to rtmp://127.0.0.1:1935/live with any stream key", .output, "listening", "info"),
            ("LL-HLS: http://127.0.0.1:8080/hls/live/ab/index.m3u8", .output, "hls_address", "info"),
            ("Stopped", .output, "stopped", "info"),
            ("20:31:07 connection from 127.0.0.1:9 failed: reset", .output, "connection_failed", "warning"),
            ("20:31:07 connection from 127.0.0.1:9 refused: 16 connections are open, the most allowed", .output,
             "connections_refused", "warning"),
            ("Not recording", .output, "log", "info"),
            ("stream: warning: something", .error, "warning", "warning"),
            ("stream: --listen: the port must be a number", .error, "fatal", "error"),
            ("something else", .error, "log", "error"),
        ]
        for (line, stream, event, level) in cases {
            let value = try object(line, stream)
            #expect(value["event"] == .string(event), "\(line)")
            #expect(value["level"] == .string(level), "\(line)")
            #expect(value["app"] == nil)
        }
    }

    @Test func onlyALeadingTimeOfDayIsDropped() {
        #expect(ServeLogLine.withoutTimestamp("20:31:07 publish") == "publish")
        #expect(ServeLogLine.withoutTimestamp("20:31:07") == "20:31:07")
        #expect(ServeLogLine.withoutTimestamp("2a:31:07 x") == "2a:31:07 x")
        #expect(ServeLogLine.withoutTimestamp("Play with: ffplay") == "Play with: ffplay")
        #expect(ServeLogLine.withoutTimestamp("") == "")
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() throws {
        let line = "a \"quoted\" path C:\\x\ttab\r\u{1}\u{1F} é 🎥"
        let text = ServeLogLine.object(line, stream: .output, time: time)
        #expect(text.contains(#""message":"a \"quoted\" path C:\\x\ttab\r\u0001\u001f é 🎥""#), "\(text)")
        #expect(try JSONParser.parse(text)["message"] == .string(line))
        #expect(!text.utf8.contains { $0 < 0x20 })
    }

    @Test func oneObjectPerLineOfAWrite() throws {
        let text = ServeLogLine.objects("first\nsecond\n\n", stream: .output, time: time)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        #expect(try JSONParser.parse(String(lines[0]))["message"] == .string("first"))
        #expect(try JSONParser.parse(String(lines[1]))["message"] == .string("second"))
        #expect(ServeLogLine.objects("", stream: .output, time: time).isEmpty)
    }

    @Test func timesAreISO8601InUTCWithMilliseconds() {
        #expect(ServeLogLine.iso8601((0, 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ServeLogLine.iso8601((951_782_400, 5)) == "2000-02-29T00:00:00.005Z")
        #expect(ServeLogLine.iso8601((1_796_499_067, 42)) == "2026-12-05T19:31:07.042Z")
        #expect(ServeLogLine.iso8601((4_102_444_799, 999)) == "2099-12-31T23:59:59.999Z")
        #expect(ServeLogLine.iso8601((-1, 0)) == "1969-12-31T23:59:59.000Z")
    }

    @Test func theFormatOption() throws {
        let options = ServeCommand().options
        #expect(try ServeLogFormat.parse(ArgumentParser.parse([], options: options)) == .text)
        #expect(try ServeLogFormat.parse(ArgumentParser.parse(["--log-format", "json"], options: options)) == .json)
        #expect(throws: CLIError.usage("--log-format must be text or json, not 'xml'")) {
            try ServeLogFormat.parse(ArgumentParser.parse(["--log-format", "xml"], options: options))
        }
    }

    @Test func anErrorThatStopsServeIsAnObjectToo() throws {
        let capture = ConsoleCapture()
        let status = StreamCLIMain.run(["stream", "serve", "--log-format", "json", "--no-record",
                                        "--max-connections", "0"], console: capture.console, environment: [:])
        #expect(status == ExitCode.usage)
        #expect(capture.output.isEmpty)
        let error = try JSONParser.parse(String(capture.error.dropLast()))
        #expect(error["event"] == .string("fatal") && error["level"] == .string("error"))
        #expect(error["message"] == .string("stream: --max-connections must be a whole number from 1 to 100000, "
                                            + "not '0'"))
    }

    @Test func theJSONConsoleWritesObjectsToBothStreams() throws {
        let capture = ConsoleCapture()
        let console = ServeLogFormat.json.console(capture.console)
        console.print("12:00:00 publish stopped: live/ab from 127.0.0.1:1")
        console.printError("stream: warning: careful")
        let output = try JSONParser.parse(String(capture.output.dropLast()))
        #expect(output["event"] == .string("publish_stopped"))
        #expect(output["time"]?.stringValue?.hasSuffix("Z") == true)
        #expect(try JSONParser.parse(String(capture.error.dropLast()))["level"] == .string("warning"))
        let plain = ConsoleCapture()
        ServeLogFormat.text.console(plain.console).print("as is")
        #expect(plain.output == "as is\n")
    }
}
