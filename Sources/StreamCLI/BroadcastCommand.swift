import Broadcast
import Capture
import Foundation
import Publisher
import StreamCore

/// `stream broadcast [URL]`: broadcasts the X11 screen (or the test pattern), the camera in a PiP, and the
/// microphone (or a test tone) live.
struct BroadcastCommand: Command {
    let name = "broadcast"
    let summary = "Go live with the screen (or test sources) to the saved (or given) ingest, and/or record to FLV."
    let argumentsSynopsis = "[URL]"
    let discussion = """
        Uses the saved settings and credentials ('stream settings', 'stream credentials'); flags override them
        for this broadcast only. URL replaces the saved ingest URL; the stream key then comes from --key-stdin or
        the saved credentials. With --record FILE the stream is also written to FILE; with --record and no URL
        (and no saved credentials) it is only recorded. Ctrl-C ends the broadcast cleanly.
        --source screen captures the X11 display ($DISPLAY or --display) with the saved audio input (the default
        input, with a warning, when it is gone), mixed with the system audio when include-app-audio is on.
        On Wayland it works only through XWayland (the desktop portal is not supported).
        --source test broadcasts the moving test pattern and a 440 Hz tone.
        A lost connection (or one that takes no data for 10 s) is retried with backoff, 0.5 s doubling to 8 s,
        30 attempts; a line says when it is lost and when it is live again. A slow network drops video first
        (non-keyframes past 700 ms of queued media, all video past 900 ms), audio only past 3 s.
        Exit codes: 0 ended as asked, 1 failed (reason on stderr), 2 usage error.
        """

    var options: [OptionSpec] { BroadcastOptions.specs }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count <= 1 else {
            throw CLIError.usage("'broadcast' takes at most one URL; the stream key is never read from the "
                                    + "command line (use --key-stdin)")
        }
        let broadcastOptions = try BroadcastOptions(arguments, context: context, allowsCapture: true)
        var sinks: [any MediaSink] = []
        if let target = try broadcastOptions.ingest(url: arguments.positionals.first, context: context) {
            let settings = broadcastOptions.configuration.settings
            sinks.append(RTMPSink(url: target.url, streamKey: target.streamKey, options: RTMPClient.Options(
                caFile: broadcastOptions.caFile, socketSendBufferSize: RTMPSink.socketSendBufferSize(for: settings))))
        }
        if let record = broadcastOptions.recordPath {
            sinks.append(FLVFileSink(path: record))
        }
        guard !sinks.isEmpty else {
            throw CLIError.usage("nothing to broadcast to: give a URL, save credentials with 'stream credentials "
                                    + "set URL', or record with --record FILE")
        }
        return try BroadcastRunner.run(configuration: broadcastOptions.configuration, sinks: sinks, context: context)
    }
}

/// The flags shared by `broadcast` and `demo`, and the settings they produce.
struct BroadcastOptions {
    static let specs: [OptionSpec] = [
        .flag("key-stdin", help: "Read the stream key from standard input (one line)."),
    ] + CaptureSourceOptions.specs + [
        .value("duration", valueName: "SECONDS", help: "Stop after this many seconds (default: until Ctrl-C)."),
        .value("quality", valueName: "480|720|1080", help: "Encode short edge."),
        .value("fps", valueName: "24|30|60", help: "Frames per second."),
        .value("video-bitrate", valueName: "KBPS", help: "Video bitrate in kbit/s."),
        .value("audio-bitrate", valueName: "KBPS", help: "AAC bitrate in kbit/s."),
        .value("adaptive-bitrate", valueName: "on|off", help: "Lower the bitrate when the network is slow."),
        .value("pip", valueName: "on|off", help: "Camera picture-in-picture."),
        .value("pip-corner", valueName: "CORNER", help: "top-left, top-right, bottom-left or bottom-right."),
        .value("pip-scale", valueName: "0.10-0.40", help: "PiP width as a fraction of the frame width."),
        .value("test-size", valueName: "WxH", help: "The test screen's size (default 1920x1080)."),
        .value("camera-position", valueName: "front|back", help: "Front is mirrored."),
        .value("ca-file", valueName: "FILE", help: "Extra CA certificate (PEM) to trust for RTMPS."),
        .value("record", valueName: "FILE", help: "Also write the stream to an FLV file."),
    ]

    var configuration: BroadcastConfiguration
    var caFile: String?
    var recordPath: String?
    var keyFromStdin: Bool

    /// The flags that choose a captured source (not offered by `demo`, which always uses the test sources).
    static let captureOnlyNames: Set<String> = ["source", "display", "region", "no-cursor"]

    /// Reads the saved settings and applies the flags.
    /// - Parameters:
    ///   - allowsCapture: whether `--source screen` (and its audio capture) may be chosen; `demo` says no.
    init(_ arguments: ParsedArguments, context: CommandContext, baseSettings: StreamSettings? = nil,
         defaultDuration: Duration? = nil, allowsCapture: Bool = false) throws {
        var settings: StreamSettings
        if let baseSettings {
            settings = baseSettings
        } else {
            let loaded = try context.settingsStore().load()
            loaded.warnings.forEach { context.warn("\($0)") }
            settings = loaded.settings
        }
        let overrides: [(String, SettingsKey)] = [
            ("quality", .quality), ("fps", .fps), ("video-bitrate", .videoBitrate), ("audio-bitrate", .audioBitrate),
            ("adaptive-bitrate", .adaptiveBitrate), ("pip", .pip), ("pip-corner", .pipCorner),
            ("pip-scale", .pipScale), ("camera-position", .cameraPosition),
        ]
        for (flag, key) in overrides {
            if let value = arguments.value(flag) { try key.apply(value, to: &settings) }
        }
        let capture = allowsCapture ? try CaptureSourceOptions(arguments, environment: context.environment) : nil
        let camera = try Self.camera(arguments.value("camera") ?? "test")
        var duration = defaultDuration
        if let text = arguments.value("duration") {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 * 7 else {
                throw CLIError.usage("--duration \(text) is not a number of seconds between 0 and 604800")
            }
            duration = .milliseconds(Int64(seconds * 1000))
        }
        var screen = PixelSize(width: 1920, height: 1080)
        if let text = arguments.value("test-size") {
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, (64...8192).contains(parts[0]), (64...8192).contains(parts[1]) else {
                throw CLIError.usage("--test-size \(text) is not a size like 1920x1080 (64 to 8192 per side)")
            }
            screen = PixelSize(width: parts[0], height: parts[1])
        }
        switch capture?.screen {
        case .x11(let options)?:
            let server = context.environment["PULSE_SERVER"]
            let plan: AudioCapturePlan
            do {
                plan = try CaptureSourceOptions.audioPlan(settings: settings, server: server) {
                    context.warn($0)
                }
            } catch {
                throw CLIError.failure("cannot capture audio: \(error.message)")
            }
            configuration = BroadcastConfiguration(settings: settings, screen: .x11(options),
                                                   audio: .pulse(plan, server: server), camera: camera,
                                                   duration: duration)
        case .testPattern?, nil:
            configuration = BroadcastConfiguration(settings: settings, screenSize: screen, camera: camera,
                                                   duration: duration)
        }
        caFile = arguments.value("ca-file")
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw CLIError.usage("--ca-file \(caFile) cannot be read")
        }
        recordPath = arguments.value("record")
        keyFromStdin = arguments.flag("key-stdin")
    }

    /// The PiP camera for `--camera`: `test`, `y4m:PATH` or a V4L2 device path such as `/dev/video0`.
    static func camera(_ text: String) throws(CLIError) -> BroadcastConfiguration.Camera {
        if text == "test" { return .testPattern }
        if text.hasPrefix("y4m:") {
            let path = String(text.dropFirst("y4m:".count))
            guard !path.isEmpty else { throw CLIError.usage("--camera y4m:PATH needs a file path") }
            return .y4m(path: path)
        }
        if text.hasPrefix("/dev/") {
            return .source { () throws(CaptureError) -> any CameraSource in
                try V4L2CameraSource(path: text)
            }
        }
        throw CLIError.usage("--camera \(text.prefix(40)) is not a camera: use test, y4m:PATH or /dev/videoN")
    }

    /// The ingest URL and key: the URL argument or the saved one; the key from stdin or the saved credentials.
    /// - Returns: nil when there is no URL at all (record only).
    func ingest(url text: String?, context: CommandContext) throws -> StreamCredentials? {
        let saved = text == nil || !keyFromStdin ? try context.credentialStore().load() : nil
        guard let url = try text.map({ try IngestURL(parsing: $0) }) ?? saved?.url else {
            if keyFromStdin { throw CLIError.usage("--key-stdin needs an ingest URL (argument or saved)") }
            return nil
        }
        let key: String
        if keyFromStdin {
            guard let line = context.console.readLine() else {
                throw CLIError.usage("--key-stdin: standard input ended before a stream key")
            }
            key = line.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let saved {
            key = saved.streamKey
        } else {
            throw CLIError.usage("no stream key: pass --key-stdin, or save one with 'stream credentials set URL'")
        }
        try StreamCredentials.validateStreamKey(key)
        return StreamCredentials(url: url, streamKey: key)
    }
}

/// Runs a session from a synchronous command: the status line, Ctrl-C, and the exit code.
enum BroadcastRunner {
    /// Broadcasts until the duration, Ctrl-C, or a failure.
    /// - Returns: 0 when it ended as asked, 1 when it failed (the reason is printed on stderr).
    static func run(configuration: BroadcastConfiguration, sinks: [any MediaSink],
                    context: CommandContext) throws -> Int32 {
        // Each output picks its policy from its sink (700 ms / 900 ms / 3 s for a network, lenient for a file) and
        // reconnects on the default schedule (0.5 s doubling to 8 s, with jitter, 30 attempts).
        let outputs = sinks.map { BroadcastOutput(sink: $0) }
        let session: BroadcastSession
        do {
            session = try BroadcastSession(configuration: configuration, outputs: outputs)
        } catch {
            throw CLIError.failure("cannot start the broadcast: \(error.message)")
        }
        let settings = configuration.settings
        let size = session.encodeSize
        context.console.print("Broadcasting \(size)@\(settings.fps) at \(settings.videoBitrateKbps) kbps video, "
                                + "\(settings.audioBitrateKbps) kbps audio, PiP \(settings.pipEnabled ? "on" : "off") "
                                + "to " + sinks.map(\.label).joined(separator: " and "))
        let interactive = isatty(STDOUT_FILENO) == 1 && context.environment["TERM"] != "dumb"
        let console = context.console
        let final = try runBlocking { () async -> BroadcastState in
            let interrupt = InterruptSignal()
            return await withTaskGroup(of: BroadcastState?.self) { group in
                group.addTask { await session.run() }
                group.addTask {
                    await report(session, interrupt: interrupt, console: console, interactive: interactive)
                    return nil
                }
                var final: BroadcastState = .idle
                for await state in group {
                    if let state { final = state }
                }
                return final
            }
        }
        if interactive { console.writeOutput("\n") }
        let statistics = session.statistics
        switch final {
        case .failed(let error):
            console.printError("stream: broadcast failed: \(error.message)")
            return ExitCode.failure
        default:
            console.print("Broadcast \(final): \(summary(statistics))")
            return ExitCode.success
        }
    }

    /// `00:24, 700 frames, 12 dropped (10 by the send queue, 0 keyframes; 2 late; 0 audio), 2 reconnects (offline
    /// 7.4 s, longest outage 4.1 s) | latency p50 12 ms, p99 31 ms`.
    static func summary(_ statistics: BroadcastStatistics) -> String {
        var text = "\(formatElapsed(statistics.elapsedSeconds)), \(statistics.framesEncoded) frames, "
            + "\(statistics.droppedFrames) dropped (\(statistics.framesDroppedByQueue) by the send queue, "
            + "\(statistics.droppedKeyframesByQueue) keyframes; \(statistics.framesSkippedLate) late; "
            + "\(statistics.audioFramesDroppedByQueue) audio), \(statistics.reconnects) reconnects"
        if statistics.outages > 0 {
            text += String(format: " (offline %.1f s, longest outage %.1f s)", statistics.offlineSeconds,
                           statistics.longestOutageSeconds)
        }
        return text + latency(statistics)
    }

    /// A line for an output's connection changing: lost, another attempt failed, live again; nil otherwise.
    static func connectionEvent(label: String, from old: BroadcastState,
                                to status: BroadcastOutput.Status) -> String? {
        let reason = status.lastError?.message ?? "no reason given"
        switch (old, status.state) {
        case (.live, .reconnecting):
            return "connection lost: \(reason); reconnecting"
        case (.reconnecting(let before), .reconnecting(let now)) where now > before:
            return "reconnect attempt \(before) failed: \(reason); trying again"
        case (.reconnecting, .live):
            let outage = (status.lastOutageDuration ?? .zero) / .seconds(1)
            return "\(label): live again after " + String(format: "%.1f", outage)
                + " s off the air (reconnect \(status.reconnects))"
        default:
            return nil
        }
    }

    /// Prints the status until the session is over, and a line whenever an output loses or regains its
    /// connection; turns Ctrl-C into `stop()`.
    private static func report(_ session: BroadcastSession, interrupt: InterruptSignal, console: Console,
                               interactive: Bool) async {
        var tick = 0
        var previous = session.outputs.map(\.status.state)
        while !session.state.isFinal {
            if interrupt.hasFired { session.stop() }
            try? await Task.sleep(for: .milliseconds(250))
            tick += 1
            for (index, output) in session.outputs.enumerated() {
                let status = output.status
                if let event = connectionEvent(label: output.sink.label, from: previous[index], to: status) {
                    if interactive { console.writeOutput("\r\u{1B}[2K") }
                    console.print(event)
                }
                previous[index] = status.state
            }
            let line = statusLine(session.state, session.statistics)
            if interactive {
                console.writeOutput("\r\u{1B}[2K" + line)
            } else if tick % 20 == 0 {
                console.print(line)
            }
        }
    }

    /// `live 00:12 | video 2480 kbps (target 2500) | audio 128 kbps | 30.0 fps (18 ms/frame) | dropped 0 | ...`.
    static func statusLine(_ state: BroadcastState, _ statistics: BroadcastStatistics) -> String {
        [
            "\(state) \(formatElapsed(statistics.elapsedSeconds))",
            "video \(statistics.videoKbps) kbps (target \(statistics.currentVideoBitrateKbps))",
            "audio \(statistics.audioKbps) kbps",
            String(format: "%.1f fps (%.0f ms/frame)", statistics.framesPerSecond, statistics.frameWorkMilliseconds),
            "dropped \(statistics.droppedFrames)",
            "queue \(statistics.queueMilliseconds) ms",
            "reconnects \(statistics.reconnects)",
        ].joined(separator: " | ") + latency(statistics)
    }

    /// ` | latency p50 12 ms, p99 31 ms` once frames have reached the network, else nothing.
    private static func latency(_ statistics: BroadcastStatistics) -> String {
        guard let median = statistics.latencyP50Milliseconds, let p99 = statistics.latencyP99Milliseconds else {
            return ""
        }
        return " | latency p50 \(median) ms, p99 \(p99) ms"
    }

    static func formatElapsed(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds))
        return String(format: "%02d:%02d", whole / 60, whole % 60)
    }
}
