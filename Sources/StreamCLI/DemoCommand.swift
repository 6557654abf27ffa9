import Broadcast
import Engine
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import IngestServer
import Publisher
import StreamCore
import Locking

/// `stream demo`: the whole stack on one machine, with nothing to install or configure.
///
/// Starts the ingest server in-process on a free loopback port, recording to a directory; broadcasts the test
/// sources (PiP on) into it for about ten seconds; then says where the recording is and how to play it.
struct DemoCommand: Command {
    let name = "demo"
    let summary = "Broadcast the test sources into a built-in server for ~10 s and keep the recording."
    let discussion = """
        No outside server is needed: 'stream serve' runs in-process on 127.0.0.1 (a free port) and records
        what it receives. The saved settings are not used: the demo is 720p30 with the camera PiP on, unless
        the flags below say otherwise. The recording goes to --output DIR (default: the 'demo' folder of
        Stream's data directory, $XDG_DATA_HOME/stream or ~/.local/share/stream); the path is printed.
        """

    var options: [OptionSpec] {
        [.value("output", valueName: "DIR",
                help: "Where the server records (default $XDG_DATA_HOME/stream/demo or ~/.local/share/stream/demo).")]
            + BroadcastOptions.specs.filter {
                !["key-stdin", "ca-file", "record"].contains($0.name)
                    && !BroadcastOptions.captureOnlyNames.contains($0.name)
            }
    }

    /// The demo's length unless `--duration` says otherwise.
    static let defaultDuration = Duration.seconds(10)
    /// The publish name used in the built-in server (not a secret: the server accepts any key).
    static let streamName = "demo"

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
        let recordings = Locked<[String]>([])
        let failures = Locked<[String]>([])
        let server: RTMPServer
        let port: Int
        do {
            server = try RTMPServer(configuration: RTMPServer.Configuration(
                listen: ("127.0.0.1", 0), recordDirectory: recordDirectory,
                onEvent: { event in
                    switch event {
                    case .recordingFinished(let path, _): recordings.withLock { $0.append(path) }
                    case .recordingFailed(let path, let reason): failures.withLock { $0.append("\(path): \(reason)") }
                    default: break
                    }
                }))
            let ports = try runBlocking { try await server.start() }
            guard let bound = ports.rtmp else { throw CLIError.failure("the built-in server bound no RTMP port") }
            port = bound
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("cannot start the built-in server: \(error)")
        }
        context.console.print("Built-in server listening on rtmp://127.0.0.1:\(port)/live, recording to "
                                + recordDirectory)
        let url = IngestURL(scheme: .rtmp, host: "127.0.0.1", port: port, app: "live")
        let status: Int32
        do {
            let settings = broadcastOptions.configuration.settings
            let options = RTMPClient.Options(socketSendBufferSize: RTMPSink.socketSendBufferSize(for: settings))
            status = try BroadcastRunner.run(
                configuration: broadcastOptions.configuration,
                sinks: [RTMPSink(url: url, streamKey: Self.streamName, options: options)], context: context)
        } catch {
            server.stop()
            throw error
        }
        server.stop()
        for failure in failures.withLock({ $0 }) {
            context.console.printError("stream: recording failed: \(failure)")
        }
        guard status == ExitCode.success else { return status }
        guard let recording = recordings.withLock({ $0.last }) ?? Self.newestFLV(in: recordDirectory) else {
            context.console.printError("stream: the built-in server recorded nothing in \(recordDirectory)")
            return ExitCode.failure
        }
        context.console.print("Recording: \(recording)")
        context.console.print("Play it with: ffplay \(recording)")
        return ExitCode.success
    }

    /// The most recently modified `.flv` file in `directory`, if any.
    private static func newestFLV(in directory: String) -> String? {
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".flv") }
            .map { "\(directory)/\($0)" }
            .max { left, right in
                let leftDate = (try? manager.attributesOfItem(atPath: left)[.modificationDate] as? Date) ?? .distantPast
                let rightDate = (try? manager.attributesOfItem(atPath: right)[.modificationDate] as? Date)
                    ?? .distantPast
                return leftDate < rightDate
            }
    }
}
