import Broadcast
import Capture
import Engine
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPClient
import Publisher
import Locking
import Recording
import StreamCore
import Transport
import WebRTC
import WHIP

/// `stream broadcast [URL ...]`: broadcasts the X11 screen (or the test pattern), the camera in a PiP, and the
/// microphone (or a test tone) live, from one encode to one or more ingests.
struct BroadcastCommand: Command {
    let name = "broadcast"
    let summary = "Go live with the screen (or test sources) to the saved (or given) ingests, and/or record to a file."
    let argumentsSynopsis = "[URL ...]"
    let discussion = """
        Uses the saved settings and credentials ('stream settings', 'stream credentials'); flags override them
        for this broadcast only. A URL replaces the saved ingest URL; its stream key then comes from --key-stdin or
        the saved credentials. Several URLs broadcast one encode to all of them, each with its own send queue,
        drops, reconnects and status line: with --key-stdin the keys are read from standard input, one line per
        URL in order; without it the first URL takes the saved key and the others' keys are read from standard
        input, one line each. A slow or dead destination drops and reconnects on its own without slowing the
        others; adaptive bitrate follows the destinations that keep up. With --record FILE the stream is also
        written to FILE (a new file: an existing one is never overwritten), as fragmented MP4 when FILE ends in
        .mp4 (plays in browsers and QuickTime), else FLV; with --record and no URL (and no saved credentials) it
        is only recorded. When the disk fills, the recording stops with the reason, the
        file is kept up to its last whole tag with its real duration, the other destinations go on, and the
        broadcast exits 1 at its end. Ctrl-C ends the broadcast cleanly.
        --source screen captures the X11 display ($DISPLAY or --display) with the saved audio input (the default
        input, with a warning, when it is gone), mixed with the system audio when include-app-audio is on.
        On Wayland it works only through XWayland (the desktop portal is not supported).
        --source test broadcasts the moving test pattern and a 440 Hz tone.
        --audio mic|system|both chooses what is heard with --source screen: the saved input, the system audio
        (the default output's monitor), or both mixed (the default when app audio is on).
        An https:// or http:// URL is a WHIP endpoint (WebRTC, RFC 9725): the broadcast is published over
        WebRTC (H.264 and Opus, ICE, DTLS-SRTP) with the bearer token from --token-stdin (one line) or the saved
        credentials; the token is never read from the command line and never printed. WHIP and RTMP URLs
        cannot share one broadcast (WebRTC carries Opus, RTMP AAC); --record then writes Enhanced FLV with
        Opus. A WHIP endpoint that refuses (401, 403, 404), answers with unusable SDP or cannot be reached
        ends the broadcast with exit 1 and the reason; a path lost while live starts a new WHIP session on the
        same backoff as an RTMP reconnect. --stun HOST:PORT asks a STUN server for a server-reflexive
        candidate (needed behind NAT when the endpoint cannot reach a host address).
        A lost connection (or one that takes no data for 10 s) is retried with backoff, 0.5 s doubling to 8 s,
        30 attempts; a line says when it is lost and when it is live again. A slow network drops video first
        (non-keyframes past 700 ms of queued media, all video past 900 ms), audio only past 3 s.
        Exit codes: 0 ended as asked, 1 failed (reason on stderr), 2 usage error.
        """

    var options: [OptionSpec] { BroadcastOptions.specs }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        var broadcastOptions = try BroadcastOptions(arguments, context: context, allowsCapture: true)
        var sinks: [any MediaSink] = []
        let settings = broadcastOptions.configuration.settings
        let targets = try broadcastOptions.ingests(urls: arguments.positionals, context: context)
        let whipTargets = targets.filter(\.url.scheme.isWHIP)
        if !whipTargets.isEmpty && whipTargets.count != targets.count {
            throw CLIError.usage("WHIP (http/https) and RTMP URLs cannot share one broadcast: WebRTC carries Opus "
                                    + "audio, RTMP carries AAC; run two broadcasts")
        }
        var loop: EventLoop?
        let stun = try arguments.value("stun").map { try WHIPDestinations.stunServer($0) }
        if stun != nil && whipTargets.isEmpty {
            throw CLIError.usage("--stun is for WHIP (http/https) destinations")
        }
        if !whipTargets.isEmpty {
            broadcastOptions.configuration.audioCodec = .opus
            // RFC 7742 §6.2: Constrained Baseline is the H.264 profile every WebRTC receiver must decode.
            broadcastOptions.configuration.x264.profile = "baseline"
            loop = try WHIPDestinations.loop()
        }
        defer { loop?.shutdown() }
        for target in targets {
            if let loop, target.url.scheme.isWHIP {
                sinks.append(try WHIPDestinations.sink(target, settings: settings, caFile: broadcastOptions.caFile,
                                                       stun: stun, loop: loop))
                continue
            }
            sinks.append(RTMPSink(url: target.url, streamKey: target.streamKey, options: RTMPClient.Options(
                caFile: broadcastOptions.caFile, socketSendBufferSize: RTMPSink.socketSendBufferSize(for: settings))))
        }
        if let record = broadcastOptions.recordPath {
            // Said before going live; the sink creates the file exclusively too, so a race cannot overwrite one.
            guard access(record, F_OK) != 0 else {
                throw CLIError.usage("--record \(record): the file exists; choose another name or remove it "
                                        + "(nothing was overwritten)")
            }
            if !whipTargets.isEmpty && RecordingFormat(path: record) == .mp4 {
                throw CLIError.usage("--record \(record): MP4 recordings take AAC audio and WHIP sends Opus; "
                                        + "record to a .flv file")
            }
            sinks.append(RecordingSink(path: record))
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
        .flag("token-stdin", help: "Read the WHIP bearer token from standard input (one line)."),
        .value("stun", valueName: "HOST:PORT", help: "STUN server for a server-reflexive WHIP candidate."),
    ] + CaptureSourceOptions.specs + [
        .value("audio", valueName: "mic|system|both", help: "The microphone, the system audio, or both."),
        .value("duration", valueName: "SECONDS", help: "Stop after this many seconds (default: until Ctrl-C)."),
        .value("quality", valueName: "480|720|1080", help: "Encode short edge."),
        .value("fps", valueName: "24|30|60", help: "Frames per second."),
        .value("video-bitrate", valueName: "KBPS", help: "Video bitrate in kbit/s."),
        .value("audio-bitrate", valueName: "KBPS", help: "Audio (AAC, or Opus for WHIP) bitrate in kbit/s."),
        .value("adaptive-bitrate", valueName: "on|off", help: "Lower the bitrate when the network is slow."),
        .value("pip", valueName: "on|off", help: "Camera picture-in-picture."),
        .value("pip-corner", valueName: "CORNER", help: "top-left, top-right, bottom-left or bottom-right."),
        .value("pip-scale", valueName: "0.10-0.40", help: "PiP width as a fraction of the frame width."),
        .value("test-size", valueName: "WxH", help: "The test screen's size (default 1920x1080)."),
        .value("camera-position", valueName: "front|back", help: "Front is mirrored."),
        .value("ca-file", valueName: "FILE", help: "Extra CA certificate (PEM) to trust for RTMPS and HTTPS."),
        .value("record", valueName: "FILE", help: "Also write the stream to a new file (FILE.mp4: MP4, else FLV)."),
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
            ("pip-scale", .pipScale), ("camera-position", .cameraPosition), ("audio", .audio),
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
        // A WHIP token takes the stream key's place: both come from standard input the same way.
        keyFromStdin = arguments.flag("key-stdin") || arguments.flag("token-stdin")
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

    /// The ingests and their keys: the URL arguments or the saved URL; with `--key-stdin` every key from standard
    /// input (one line per URL, in order), else the saved key for the first URL and standard input for the rest.
    /// - Returns: nothing when there is no URL at all (record only).
    func ingests(urls texts: [String], context: CommandContext) throws -> [StreamCredentials] {
        let saved = texts.isEmpty || !keyFromStdin ? try context.credentialStore().load() : nil
        let urls = try texts.isEmpty ? [saved?.url].compactMap { $0 } : texts.map { try IngestURL(parsing: $0) }
        guard !urls.isEmpty else {
            if keyFromStdin {
                throw CLIError.usage("--key-stdin and --token-stdin need an ingest URL (argument or saved)")
            }
            return []
        }
        var ingests: [StreamCredentials] = []
        for (index, url) in urls.enumerated() {
            let key: String
            if index == 0 && !keyFromStdin {
                guard let saved else {
                    throw CLIError.usage("no stream key: pass --key-stdin (--token-stdin for WHIP), or save one "
                                            + "with 'stream credentials set URL'")
                }
                key = saved.streamKey
            } else {
                guard let line = context.console.readLine() else {
                    throw CLIError.usage("standard input ended before the stream key of destination \(index + 1) "
                                            + "(one line per URL, in order)")
                }
                key = line.trimmed
            }
            try StreamCredentials.validateStreamKey(key, for: url.scheme)
            ingests.append(StreamCredentials(url: url, streamKey: key))
        }
        return ingests
    }
}

/// Runs a session from a synchronous command: the status lines, Ctrl-C, and the exit code.
enum BroadcastRunner {
    /// Broadcasts until the duration, Ctrl-C, or a failure.
    /// - Returns: 0 when it ended as asked with every destination, 1 when it or a destination failed (the reason
    ///   is printed on stderr).
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
        let reporter = StatusReporter(outputs: outputs, console: context.console, interactive: interactive)
        let final = try runBlocking { () async -> BroadcastState in
            let interrupt = InterruptSignal()
            // Subscribed before the broadcast starts, so that no change is missed.
            let events = session.engine.events()
            return await withTaskGroup(of: BroadcastState?.self) { group in
                group.addTask { await session.run() }
                group.addTask {
                    // Capture starts now: the stream's clock and this line start together.
                    if await session.engine.waitUntilLive() {
                        context.console.print("Live: " + sinks.map(\.label).joined(separator: " and "))
                    }
                    return nil
                }
                group.addTask {
                    for await event in events { reporter.report(event, state: session.state) }
                    return nil
                }
                group.addTask {
                    // Ctrl-C or SIGTERM: stop cleanly (the task is cancelled when the broadcast ends by itself).
                    if await interrupt.wait() { session.stop() }
                    return nil
                }
                var final: BroadcastState = .idle
                while let result = await group.next() {
                    if let state = result {
                        final = state
                        group.cancelAll()
                    }
                }
                return final
            }
        }
        if interactive { context.console.writeOutput("\n") }
        for sink in sinks {
            guard let whip = sink as? WHIPSink, let line = try? runBlocking({ await WHIPDestinations.summary(whip) })
            else { continue }
            context.console.print(line)
        }
        return finish(final, session: session, labels: sinks.map(\.label), console: context.console)
    }

    /// The last lines and the exit code.
    private static func finish(_ final: BroadcastState, session: BroadcastSession, labels: [String],
                               console: Console) -> Int32 {
        let statistics = session.statistics
        if case .failed(let error) = final {
            console.printError("stream: broadcast failed: \(error.message)")
            return ExitCode.failure
        }
        console.print("Broadcast \(final): \(StatusText.summary(statistics))")
        let statuses = session.outputs.map(\.status)
        if statuses.count > 1 {
            for (label, status) in zip(labels, statuses) {
                console.print(StatusText.destinationSummary(label: label, status))
            }
        }
        var status = ExitCode.success
        for (label, output) in zip(labels, statuses) {
            if case .failed(let error) = output.state {
                console.printError("stream: \(label) failed: \(error.message)")
                status = ExitCode.failure
            }
        }
        return status
    }
}

/// Prints what the engine reports (see `StatusLines`): connection changes at once, and the status line every
/// second on a terminal (rewritten in place, each destination's state after it) or every five seconds otherwise
/// (with a line per destination when there are several).
final class StatusReporter: Sendable {
    private let outputs: [BroadcastOutput]
    private let console: Console
    private let interactive: Bool
    private let lines: Locked<StatusLines>

    init(outputs: [BroadcastOutput], console: Console, interactive: Bool) {
        self.outputs = outputs
        self.console = console
        self.interactive = interactive
        lines = Locked(StatusLines(labels: outputs.map(\.sink.label), statusEvery: interactive ? 1 : 5))
    }

    func report(_ event: BroadcastEngine.Event, state: BroadcastState) {
        let made = lines.withLock { $0.lines(for: event, state: state, statuses: outputs.map(\.status)) }
        for line in made {
            switch line {
            case .connection(let text):
                if interactive { console.writeOutput("\r\u{1B}[2K") }
                console.print(text)
            case .status(let text, let destinations):
                if interactive {
                    let states = destinations.isEmpty ? ""
                        : outputs.enumerated().map { " | #\($0.offset + 1) \($0.element.status.state)" }.joined()
                    console.writeOutput("\r\u{1B}[2K" + text + states)
                } else {
                    console.print(text)
                    destinations.forEach { console.print($0) }
                }
            }
        }
    }
}
