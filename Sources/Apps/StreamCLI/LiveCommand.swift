import Broadcast
import Engine
#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPClient
import LiveProtocol
import Locking
import RealtimeBroadcast
import RealtimeCalls
import StreamCore
import Transport
import WebRTC
import WHIP

/// `stream live SERVER STREAM`: the host goes live from Linux through the live-show client: preview, go live with
/// the server's publish grant (the test sources, the X11 screen, a camera, the microphone), Ctrl-C ends the show.
struct LiveCommand: Command {
    let name = "live"
    let summary = "Go live in a show as its host: the server's grant says where the picture goes; Ctrl-C ends it."
    let argumentsSynopsis = "SERVER STREAM"
    let discussion = """
        Joins STREAM on SERVER (its HTTP(S) base URL) with your token (a host's), turns the camera and microphone
        on, asks the server to go live and publishes where its grant says (RTMP or RTMPS, the key never shown).
        The picture is what `stream broadcast` would send: --source screen (the X11 screen, published as the
        screen picture, with the camera in a PiP and the saved audio input) or --source test (the test pattern and
        tone, published as the camera picture); --camera test, y4m:PATH or /dev/videoN. With --webrtc the picture
        goes over WebRTC instead, to the server's WHIP route SERVER/v1/streams/STREAM/whip?tile=TILE with your token
        as the bearer (H.264 constrained baseline and Opus, which the server transcodes to AAC for LL-HLS). The
        show's state and count are printed as they change. Ctrl-C (or --duration) ends the show for everyone.
        Exit codes: 0 ended as asked, 1 failed or refused (not_host, unauthorized: the server's code and reason),
        2 usage error.
        """

    var options: [OptionSpec] {
        ShowClientOptions.specs + BroadcastOptions.specs.filter { !["key-stdin", "record"].contains($0.name) }
            + [Self.webRTC]
    }

    static let webRTC = OptionSpec.flag("webrtc", help: "Publish over WebRTC to the server's WHIP route, not RTMP.")

    /// The sink of `--webrtc`: WHIP to the show's route for `tile`, the host's token as the bearer (the grant only
    /// says which picture: the route takes the token, which outlives the grant's 60 s for reconnects).
    static func whipSink(client: ShowClientOptions, tile: TileKind, settings: StreamSettings,
                         loop: EventLoop) throws -> EngineLiveMedia.SinkMaker {
        guard let token = client.token else {
            throw CLIError.usage("--webrtc publishes with the host's token: give it with --token-stdin or --token-file")
        }
        let base = client.server.hasSuffix("/") ? String(client.server.dropLast()) : client.server
        let endpoint: WHIPURL
        do {
            endpoint = try WHIPURL(parsing: base + "/v1/streams/" + client.stream + "/whip?tile=" + tile.rawValue)
        } catch {
            throw CLIError.usage("--webrtc: \(client.server.prefix(80)) is not an http(s) URL: \(error)")
        }
        let httpClient: HTTPClient
        do {
            httpClient = try HTTPClient(options: HTTPClient.Options(caFile: client.caFile), loop: loop)
        } catch {
            throw CLIError.failure("cannot start the HTTP client: \(error)")
        }
        let configuration = WebRTCPublisher.Configuration(videoBitrateKbps: settings.videoBitrateKbps,
                                                          audioBitrateKbps: settings.audioBitrateKbps)
        let sink = WHIPSink(endpoint: endpoint, token: token, configuration: configuration,
                            transport: HTTPClientWHIPTransport(client: httpClient), loop: loop)
        return { _ in sink }
    }

    func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        let client = try ShowClientOptions(arguments, context: context, command: "live")
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("live takes SERVER STREAM only")
        }
        var broadcast = try BroadcastOptions(arguments, context: context, allowsCapture: true)
        var tile = TileKind.camera
        if case .x11 = broadcast.configuration.screen { tile = .screen }
        var makeSink: EngineLiveMedia.SinkMaker?
        var loop: EventLoop?
        defer { loop?.shutdown() }
        if arguments.flag(Self.webRTC.name) {
            // As `stream broadcast` to a WHIP URL: WebRTC carries Opus, and RFC 7742 §6.2's Constrained Baseline.
            broadcast.configuration.audioCodec = .opus
            broadcast.configuration.x264.profile = "baseline"
            let webRTCLoop = try WHIPDestinations.loop()
            loop = webRTCLoop
            makeSink = try Self.whipSink(client: client, tile: tile, settings: broadcast.configuration.settings,
                                         loop: webRTCLoop)
        }
        let media = EngineLiveMedia(configuration: broadcast.configuration, tile: tile, caFile: broadcast.caFile,
                                    makeSink: makeSink)
        let options = broadcast
        let console = context.console
        return try runBlocking {
            try await Self.present(client: client, media: media, broadcast: options, console: console)
        }
    }

    /// Joins as the host, goes live, waits for Ctrl-C (or the end of the broadcast), ends the show.
    private static func present(client: ShowClientOptions, media: EngineLiveMedia, broadcast: BroadcastOptions,
                                console: Console) async throws -> Int32 {
        let tile = media.tile
        let view = WatchView(json: false)
        let show = try await client.join(media: media)
        guard show.you?.role == .host else {
            show.leave()
            throw CLIError.failure("not_host: \(client.stream) is not yours to present (you are "
                                   + "\(show.you?.role.rawValue ?? "a visitor")); ask for a host's token")
        }
        ShowClientOptions.printChanges(of: show, view: view, console: console)
        show.onEnded { console.print(view.ended($0)) }
        do throws(LiveStreamError) {
            try await show.preview()
            console.print("Preview: \(broadcast.configuration.settings.quality) at "
                          + "\(broadcast.configuration.settings.fps) fps as the \(tile.rawValue) picture")
            try await show.goLive()
        } catch {
            show.leave()
            throw ShowClientOptions.failure(error)
        }
        let size = media.session.map { "\($0.encodeSize)" } ?? ""
        console.print("Going live in \(client.stream) as the \(tile.rawValue) picture \(size)")
        let interrupt = InterruptSignal()
        let code = await withTaskGroup(of: String?.self) { group in
            group.addTask { await interrupt.wait() ? "stopped" : nil }
            group.addTask { await media.finished().map { "\($0)" } }
            group.addTask { await show.ended().map { "out of the show: \($0.rawValue)" } ?? "refused" }
            let reason = await group.next() ?? nil
            group.cancelAll()
            var code = ExitCode.success
            if let final = media.session?.state, case .failed(let error) = final {
                console.printError("stream: the broadcast failed: \(error.message)")
                code = ExitCode.failure
            }
            // End first (the server cuts every picture at once), then stop the engine: the task waiting for the
            // broadcast to finish returns, and the group with it.
            do throws(LiveStreamError) {
                try await show.end()
                console.print("Ended the show (\(reason ?? "done"))")
            } catch {
                console.printError("stream: could not end the show: \(error)")
                code = ExitCode.failure
            }
            await media.stop()
            return code
        }
        show.leave()
        _ = await show.ended()
        return code
    }
}
