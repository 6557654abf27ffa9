import Broadcast
import Engine
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPServer
import Publisher
import StreamCore

/// `stream demo`: the whole stack on one machine, with nothing to install or configure.
///
/// Starts the ingest server in-process on a free loopback port, recording to a directory, with a live show
/// (`demo`) and its watch page on the built-in HTTP server; broadcasts the test sources (PiP on) into it as the
/// show's host for a minute; then ends the show and says where the recording is and how to play it.
struct DemoCommand: Command {
    let name = "demo"
    let summary = "Go live with the test sources on a built-in server and watch page for ~60 s; keep the recording."
    let discussion = """
        No outside server is needed: 'stream serve' runs in-process on 127.0.0.1 (free ports) with a live show
        called demo, hosted by this broadcast. Open the printed watch page (http://127.0.0.1:PORT/watch/demo) in
        a browser on this machine: the picture (over WebRTC, a fraction of a second behind; LL-HLS, about a second
        behind, if WebRTC cannot connect), the viewer count, the chat and reactions; anyone who opens it is a
        viewer, no token needed. The host link printed beside it (the page with a development token for the host,
        good for this run only) goes live from the browser: Go live publishes its camera and microphone over WHIP,
        Share screen its screen, and the host picks the main picture. When --duration is over the show ends (the
        page says so) and the server stops. The saved settings are not used: the demo is 720p30 with the camera
        PiP on, unless the flags below say otherwise. The server records what it receives to --output DIR
        (default: the 'demo' folder of Stream's data directory, $XDG_DATA_HOME/stream or ~/.local/share/stream);
        the path is printed; it is fragmented MP4 (plays in a browser). The show's chat lives in a temporary
        directory removed at the end.
        """

    var options: [OptionSpec] {
        [.value("output", valueName: "DIR",
                help: "Where the server records (default $XDG_DATA_HOME/stream/demo or ~/.local/share/stream/demo)."),
         .value("http-listen", valueName: "HOST:PORT",
                help: "Where the watch page is served (default 127.0.0.1:0: a free port, printed).")]
            + BroadcastOptions.specs.filter {
                !["key-stdin", "ca-file", "record"].contains($0.name)
                    && !BroadcastOptions.captureOnlyNames.contains($0.name)
            }.map { spec in
                spec.name == "duration"
                    ? .value("duration", valueName: "SECONDS",
                             help: "How long the show is live (default 60; Ctrl-C ends it sooner).")
                    : spec
            }
    }

    /// The demo's length unless `--duration` says otherwise: time to open the watch page and look around.
    static let defaultDuration = Duration.seconds(60)

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("demo")
        var base = StreamSettings.defaults(for: .p720, frameRate: .fps30)
        base.pipEnabled = true
        let broadcastOptions = try BroadcastOptions(arguments, context: context, baseSettings: base,
                                                    defaultDuration: Self.defaultDuration)
        let directory: String
        if let output = arguments.value("output") {
            directory = output
        } else {
            do {
                directory = try XDGPaths.dataDirectory(environment: context.environment)
                    .appendingPathComponent("demo", isDirectory: true).path
            } catch {
                throw CLIError.failure("\(error); or choose a directory with --output DIR")
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError.failure("cannot create the recording directory \(directory): \(error)")
        }
        let recordDirectory = URL(fileURLWithPath: directory).standardizedFileURL.path
        var http = HTTPServer.Configuration()
        http.listen = try ServeCommand.hostPort(arguments.value("http-listen") ?? "127.0.0.1:0", flag: "--http-listen")
        let server = try DemoServer(recordDirectory: recordDirectory, http: http, console: context.console)
        let status: Int32
        do {
            let key = try server.show.hostIngestKey()
            context.console.print("Watch it live (open in a browser on this machine): \(server.watchPage)")
            context.console.print("Go live from the browser as the host (a development token, good for this run "
                + "only): \(server.hostPage)")
            context.console.print("Its show card: \(server.showCard) (JSON) and \(server.showCard)/poster.jpg (its "
                + "picture, while live)")
            let settings = broadcastOptions.configuration.settings
            let options = RTMPClient.Options(socketSendBufferSize: RTMPSink.socketSendBufferSize(for: settings))
            status = try BroadcastRunner.run(
                configuration: broadcastOptions.configuration,
                sinks: [RTMPSink(url: server.ingestURL, streamKey: key, options: options)], context: context)
        } catch {
            server.stop()
            throw error
        }
        // The host ends the show: open pages say so before the server goes.
        server.show.end()
        usleep(500_000)
        server.stop()
        for failure in server.failedRecordings {
            context.console.printError("stream: recording failed: \(failure)")
        }
        guard status == ExitCode.success else { return status }
        guard let recording = server.finishedRecordings.last ?? Self.newestRecording(in: recordDirectory) else {
            context.console.printError("stream: the built-in server recorded nothing in \(recordDirectory)")
            return ExitCode.failure
        }
        context.console.print("Recording: \(recording)")
        context.console.print("Play it with: ffplay \(recording) (or open it in a browser)")
        return ExitCode.success
    }

    /// The most recently modified recording (`.mp4`, or `.flv` from an earlier version) in `directory`, if any.
    private static func newestRecording(in directory: String) -> String? {
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".mp4") || $0.hasSuffix(".flv") }
            .map { "\(directory)/\($0)" }
            .max { left, right in
                let leftDate = (try? manager.attributesOfItem(atPath: left)[.modificationDate] as? Date) ?? .distantPast
                let rightDate = (try? manager.attributesOfItem(atPath: right)[.modificationDate] as? Date)
                    ?? .distantPast
                return leftDate < rightDate
            }
    }
}
