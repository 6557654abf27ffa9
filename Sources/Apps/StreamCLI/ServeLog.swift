#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSON

/// `stream serve --log-format text|json`: how the lines `stream serve` prints are written.
enum ServeLogFormat: String, Sendable {
    /// The lines as they read today, for a person at a terminal.
    case text
    /// One JSON object a line, for a log collector (docs/operations.md, "Logs").
    case json

    /// `--log-format text|json`.
    static let option = OptionSpec.value(
        "log-format", valueName: "text|json",
        help: "text (default) or json: an object a line with time, level, event, message (docs/operations.md).")

    /// The format `--log-format` asks for.
    /// - Throws: `CLIError.usage` for another word.
    static func parse(_ arguments: ParsedArguments) throws(CLIError) -> ServeLogFormat {
        guard let text = arguments.value(option.name) else { return .text }
        guard let format = ServeLogFormat(rawValue: text) else {
            throw CLIError.usage("--log-format must be text or json, not '\(text.prefix(20))'")
        }
        return format
    }

    /// The console `stream serve` prints through: the one given, or one turning each line into a JSON object.
    func console(_ console: Console) -> Console {
        switch self {
        case .text:
            return console
        case .json:
            let lines = { @Sendable (text: String, stream: ServeLogLine.Stream) -> String in
                ServeLogLine.objects(text, stream: stream, time: ServeLogLine.iso8601(ServeLogLine.now()))
            }
            return Console(writeOutput: { console.writeOutput(lines($0, .output)) },
                           writeError: { console.writeError(lines($0, .error)) },
                           readLine: console.readLine, readSecret: console.readSecret)
        }
    }
}

/// One line `stream serve` printed, as a JSON object: a pure formatter.
///
/// Today's lines are converted as they are: a leading local `HH:mm:ss` is dropped (the object has its own UTC
/// time), `event` is a short stable name for the lines whose shape is known (`publish_started`, `shows_reloaded`,
/// ...) and `log` for the others. The message is the text line itself, so it holds no more than the text log does:
/// never a stream key or a token.
enum ServeLogLine {
    /// Which standard stream a line was written to.
    enum Stream: Sendable { case output, error }

    /// Known shapes: a message's start, its event, its level.
    static let shapes: [(prefix: String, event: String, level: String)] = [
        ("publish started: ", "publish_started", "info"),
        ("publish stopped: ", "publish_stopped", "info"),
        ("publish refused: ", "publish_refused", "warning"),
        ("play started: ", "play_started", "info"),
        ("play stopped: ", "play_stopped", "info"),
        ("recording finished: ", "recording_finished", "info"),
        ("recording to ", "recording_started", "info"),
        ("connection from ", "connection_failed", "warning"),
        ("refused ", "connections_refused", "warning"),
        ("player ", "player_behind", "warning"),
        ("config: reloaded ", "config_reloaded", "info"),
        ("config: reload refused", "config_reload_refused", "error"),
        ("shows: reloaded ", "shows_reloaded", "info"),
        ("shows: reload refused", "shows_reload_refused", "error"),
        ("keys: reloaded ", "keys_reloaded", "info"),
        ("keys: reload refused", "keys_reload_refused", "error"),
        ("webhooks: reloaded ", "webhook_secret_reloaded", "info"),
        ("webhooks: reload refused", "webhook_secret_reload_refused", "error"),
        ("reload: nothing", "nothing_to_reload", "info"),
        ("webhooks: ", "webhook", "warning"),
        ("LL-HLS: ", "hls_address", "info"),
        ("Player: ", "player_address", "info"),
        ("WHEP: ", "whep_address", "info"),
        ("Publish to ", "listening", "info"),
        ("HTTP on ", "listening", "info"),
        ("HTTPS on ", "listening", "info"),
        ("Metrics on ", "listening", "info"),
        ("Stopped", "stopped", "info"),
        ("stream: warning: ", "warning", "warning"),
        ("stream: ", "fatal", "error"),
    ]

    /// The JSON objects of what was written at once: one a line, each ending in a newline.
    /// - Parameters:
    ///   - text: what was written (usually one line and its newline).
    ///   - stream: standard output or standard error.
    ///   - time: when, as `iso8601` gives it.
    static func objects(_ text: String, stream: Stream, time: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { object(String($0), stream: stream, time: time) + "\n" }
            .joined()
    }

    /// One line's object: `{"time":…,"level":…,"event":…,"message":…, fields…}`.
    static func object(_ line: String, stream: Stream, time: String) -> String {
        let message = withoutTimestamp(line)
        let (event, level, fieldsAfter) = classify(message, stream: stream)
        var members: [(String, JSONValue)] = [("time", .string(time)), ("level", .string(level)),
                                              ("event", .string(event)), ("message", .string(message))]
        if let fieldsAfter { members += streamFields(message.dropFirst(fieldsAfter)) }
        return JSONWriter.string(.object(members))
    }

    /// A message's event and level, and where its `APP/TAG from PEER` starts for the shapes that have one.
    static func classify(_ message: String, stream: Stream) -> (event: String, level: String, fieldsAfter: Int?) {
        if message.hasPrefix("recording to "), message.contains(" failed: ") {
            return ("recording_failed", "error", nil)
        }
        // One refused connection reads "connection from PEER refused: …", not as a connection that failed.
        if message.hasPrefix("connection from "), message.contains(" refused: ") {
            return ("connections_refused", "warning", nil)
        }
        guard let shape = shapes.first(where: { message.hasPrefix($0.prefix) }) else {
            let level = stream == .error ? "error" : message.contains(" failed") ? "warning" : "info"
            return ("log", level, nil)
        }
        let hasStream = shape.event.hasPrefix("publish_") || shape.event.hasPrefix("play_")
        return (shape.event, shape.level, hasStream ? shape.prefix.count : nil)
    }

    /// `APP/TAG from PEER` (or `by PEER`): the stream's app and tag, and the peer, as fields.
    private static func streamFields(_ rest: Substring) -> [(String, JSONValue)] {
        let words = rest.split(separator: " ", maxSplits: 3)
        guard words.count >= 3, words[1] == "from" || words[1] == "by",
              let slash = words[0].firstIndex(of: "/") else { return [] }
        let peer = words[2].hasSuffix(":") ? words[2].dropLast() : words[2]
        return [("app", .string(String(words[0][..<slash]))),
                ("tag", .string(String(words[0][words[0].index(after: slash)...]))),
                ("peer", .string(String(peer)))]
    }

    /// The line without a leading `HH:mm:ss ` (the text log's local time of day).
    static func withoutTimestamp(_ line: String) -> String {
        let bytes = Array(line.utf8.prefix(9))
        guard bytes.count == 9, bytes[8] == UInt8(ascii: " "), bytes[2] == UInt8(ascii: ":"),
              bytes[5] == UInt8(ascii: ":"),
              [0, 1, 3, 4, 6, 7].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) })
        else { return line }
        return String(line.dropFirst(9))
    }

    /// Now, as seconds and milliseconds since 1970 (UTC).
    static func now() -> (seconds: Int, milliseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec) / 1_000_000)
    }

    /// `2026-12-05T20:31:07.042Z`: ISO 8601 in UTC with milliseconds, computed without the C library's time zone.
    static func iso8601(_ time: (seconds: Int, milliseconds: Int)) -> String {
        let days = time.seconds >= 0 ? time.seconds / 86_400 : (time.seconds - 86_399) / 86_400
        let secondOfDay = time.seconds - days * 86_400
        // Days since 1970-01-01 to a civil date: Howard Hinnant's days_from_civil, inverted.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(time.milliseconds, 3))Z"
    }
}
