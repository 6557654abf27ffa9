#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTPServer
import IngestServer
import Locking
import Recording
import Transport
import WebRTCServer

/// `stream serve`: an RTMP/RTMPS ingest that relays each stream to players and records it.
struct ServeCommand: Command {
    let name = "serve"
    let summary = "Run an RTMP/RTMPS ingest server: accept publishers, relay to players, record to FLV or MP4."
    let discussion = """
        Publishers (OBS, ffmpeg, `stream broadcast`) push to rtmp://HOST:PORT/APP with a stream key; players
        (ffplay, ffmpeg, VLC) play rtmp://HOST:PORT/APP/KEY. A new player starts at the last keyframe. Each publish
        is recorded as APP-TAG-TIME.flv (or .mp4 with --record-format mp4: fragmented MP4, a fragment per keyframe,
        H.264/AAC), where TAG is a short one-way tag of the key: the key itself never appears in file names or
        logs. Without --keys-file any key may publish, as with nginx-rtmp. A query on the app or
        key (live?token=t1) is not part of the stream's name. Until a peer may publish it can send only commands
        (64 KiB); all peers' unfinished messages, and all players' queues, have a 64 MiB budget each (past it, the
        peers holding the most are closed, the players holding the most skip to the next keyframe). Peers past
        --max-connections are logged, a line every few seconds with counts. A --record-dir that cannot be written
        is an error at start; when the disk fills, the file is closed at its last whole tag (or MP4 fragment), the
        stream goes on, and recording resumes in a new file once space is freed. Ctrl-C stops the server and closes the
        recordings cleanly. It also serves HTTP (GET /v1/health answers a small JSON status; see docs/http.md)
        unless --no-http. Every publish is served there as LL-HLS (docs/hls.md): /hls/APP/TAG/index.m3u8, printed
        when the publish starts (TAG: 128 bits of a keyed hash of the app and key, never the key; ?mode=plain drops
        the LL-HLS tags; an empty key is refused; a client guessing addresses is answered 429), with a
        page that plays it in a browser beside it (/hls/APP/TAG/index.html, also printed) and its multivariant
        playlist (/hls/APP/TAG/multivariant.m3u8: bit rates, codecs, size, frame rate). With
        --shows FILE it serves live shows at /v1/streams/NAME (docs/live-protocol.md), their main picture at
        /hls/NAME/TOKEN/main.m3u8 and each tile at /hls/NAME/TOKEN/TILE.m3u8 (TOKEN: the media token a session gets
        when it joins; without it 401, once its user is banned 403), checks its hosts' publish grants and OBS keys,
        and keeps chat and moderation in --data-dir; /v1/streams/NAME/poster.jpg is a JPEG of a live show's main
        picture, at most 10 s old. Each show's web page is /watch/NAME (docs/watch.md; a token
        goes in the address's fragment, #token=...); /assets/hls-player.js is the player, for pages of your own.
        While recording, each show's main picture is also recorded as fragmented MP4 in RECORD_DIR/replays/NAME/;
        GET /v1/streams/NAME/recordings lists the finished ones, each an HLS VOD playlist (byte ranges of its file,
        seekable) that the watch page plays while the show is not live, for whoever may watch the show
        (docs/http.md, "Replays"). --recordings-keep-days DAYS and --recordings-keep N delete old recordings and
        replays at start and every 10 minutes, a line each (docs/operations.md, "Recordings").
        GET /metrics answers Prometheus's text format (0.0.4) on a listener of its own, --metrics-listen (default
        127.0.0.1:9464, loopback; off for none), never on the public HTTP port: connections by protocol, live
        publishes, bytes, LL-HLS requests, live shows' watchers, WebRTC sessions, chat messages, deliveries, drops and
        refusals by reason, and the show store's commit latency (rendered at most every 0.5 s; docs/operations.md
        lists every metric).
        WebRTC publishers (OBS, browsers, `stream broadcast`) push over WHIP to http://HOST:PORT/whip/APP on the
        HTTP listener with the stream key as the bearer token (--keys-file applies as for RTMP); every session's media
        (ICE-lite, DTLS-SRTP, H.264 and Opus) comes to one UDP port, --webrtc-listen (default 127.0.0.1:8189; if
        that default is taken, WHIP is left off with a line saying so), and answers name --webrtc-public-ip as its
        address. DELETE on the session's Location ends it (docs/webrtc.md, "The server"). A WHIP publish's H.264 is
        served as LL-HLS at the address an RTMP publish with the same key gets, printed the same way, with its Opus
        transcoded to AAC (48 kHz stereo, 128 kbit/s), and recorded as an RTMP publish is (TAG in the file's name:
        the first 8 hex digits of the LL-HLS address's tag). With --shows, a host publishes a show's camera or
        screen over WHIP to http://HOST:PORT/v1/streams/NAME/whip?tile=camera|screen with the host's access token or
        a goLive grant as the bearer token: that tile goes live as with an RTMP grant, its H.264 and AAC in the
        tile's (and the main picture's) LL-HLS; no token 401, not a host 403, no such show 404, another tile 400,
        the tile busy or the show ended 409, too many sessions 503. DELETE on the Location ends the tile.
        WebRTC players (WHEP) play a WHIP publish at http://HOST:PORT/whep/APP/TAG, its LL-HLS address's app and
        tag (printed as "WHEP:" when the publish starts; no token: the tag is unguessable). Its H.264 and Opus RTP
        are forwarded, not transcoded, on the same UDP port; a player starts at the last keyframe. An RTMP
        publish plays there too (its H.264 forwarded, its AAC transcoded to Opus; refused with B-frames, which
        WebRTC plays out of order).
        With --shows, viewers play a show at http://HOST:PORT/v1/streams/NAME/whep (the main picture, following the
        host's choice) or .../whep?tile=camera|screen with their access token, a session's media token, or no token
        where the show lets visitors watch; its role rule and bans apply as for its LL-HLS (401, 403), nothing live
        there 404, too many players 503; a ban ends the user's players. RTMP pictures (OBS) play there as well.
        --config FILE takes these options from a JSON object, a key per option without its dashes ("http-listen":
        "127.0.0.1:8080", "no-http": true, an array for one given more than once); the command line overrides the
        file, and a reload re-reads it for its webhook settings (other changed keys wait for a restart, and the
        reload says which). Secrets never go in it: they stay in the files --token-secret-file,
        --webhook-secret-file and --keys-file name (docs/operations.md, "A config file").
        --log-format json prints each line as a JSON object: time (UTC, ISO 8601 with milliseconds), level, event
        (a short stable name, "log" for a line without one), message (the text line) and, for publishes and plays,
        app, tag and peer; as in text, never a stream key or a token. An error in --config or --log-format is
        printed as text; any later one that stops stream serve is an object too (event "fatal").
        `stream serve reload [--data-dir DIR | --config FILE]` (or SIGHUP) makes the server of that data directory
        re-read its config, shows, keys and webhook secret files without dropping anyone; it prints what the server said
        and exits 1 if a file was refused (it finds the server by DIR/serve.pid; docs/operations.md, "Reloading").
        """
    let argumentsSynopsis = "[reload]"
    let options: [OptionSpec] = [
        .value("listen", valueName: "HOST:PORT",
               help: "Plain RTMP address (default 127.0.0.1:1935; port 0 = any free)."),
        .flag("no-plain", help: "Do not listen for plain RTMP (RTMPS only)."),
        .value("tls-listen", valueName: "HOST:PORT",
               help: "Also listen for RTMPS here (needs --tls-cert and --tls-key)."),
        .value("tls-cert", valueName: "FILE", help: "PEM certificate chain for RTMPS."),
        .value("tls-key", valueName: "FILE", help: "PEM private key for RTMPS."),
        .value("record-dir", valueName: "DIR", help: "Where recordings go (default $XDG_DATA_HOME/stream/recordings)."),
        .value("record-format", valueName: "flv|mp4", help: "The recordings' container (default flv)."),
        .flag("no-record", help: "Do not record."),
        .value("keys-file", valueName: "FILE", help: "Allowed stream keys, one a line; others are refused."),
        .value("max-connections", valueName: "N", help: "Most connections at once per listener (default 512)."),
        .value("duration", valueName: "SECONDS", help: "Stop after this many seconds (default: until Ctrl-C)."),
    ] + ServeHTTP.options + [ServeWatch.publicURLOption] + ServeWebRTC.options + ServeShows.options
        + [ServeMetrics.listen]
        + ServeWebhooks.options + ServeRetention.options + [ServeConfigFile.option, ServeLogFormat.option]

    func run(_ commandLine: ParsedArguments, context: CommandContext) throws -> Int32 {
        // --config FILE: the file's options under the command line's (docs/operations.md, "A config file").
        let file = try ServeConfigFile.load(commandLine, options: options)
        let arguments = file?.merged(under: commandLine) ?? commandLine
        if commandLine.positionals.first == "reload" {
            return try reload(commandLine, arguments, context: context)
        }
        let format: ServeLogFormat
        do {
            format = try ServeLogFormat.parse(arguments)
        } catch {
            throw file?.locating(error, commandLine: commandLine) ?? error
        }
        // --log-format json: every line printed from here on is a JSON object (docs/operations.md, "Logs").
        var logged = context
        logged.console = format.console(context.console)
        do {
            let config = file.map { ServeConfigReload(atStart: $0, commandLine: commandLine, options: options) }
            return try serve(arguments, config: config, context: logged)
        } catch let error as CLIError {
            let located = file?.locating(error, commandLine: commandLine) ?? error
            guard format == .json else { throw located }
            // The error that stops the server is a line of the log too, so a collector sees why it stopped.
            logged.console.printError("stream: \(located.message)")
            return located.exitCode
        }
    }

    /// `stream serve reload [--data-dir DIR | --config FILE]`: asks the server of that data directory to re-read
    /// its files, prints what it said, and exits 1 when it refused one.
    private func reload(_ commandLine: ParsedArguments, _ arguments: ParsedArguments,
                        context: CommandContext) throws -> Int32 {
        guard commandLine.positionals.count == 1 else {
            throw CLIError.usage("serve reload takes no arguments: \(commandLine.positionals.dropFirst().first ?? "")")
        }
        let allowed: Set = ["data-dir", ServeConfigFile.option.name]
        if let other = commandLine.values.keys.sorted().first(where: { !allowed.contains($0) })
            ?? commandLine.flags.sorted().first {
            throw CLIError.usage("serve reload takes only --data-dir or --config, not --\(other)")
        }
        let directory = try arguments.value("data-dir") ?? ServeShows.defaultDataDirectory(context.environment)
        let status = try ServeControl(directory: directory).reload()
        for line in status.lines { context.console.print(line) }
        return status.refused ? ExitCode.failure : ExitCode.success
    }

    private func serve(_ arguments: ParsedArguments, config: ServeConfigReload?,
                       context: CommandContext) throws -> Int32 {
        try arguments.requireNoPositionals("serve")
        // Every argument is checked before makeConfiguration creates the recording directory.
        let duration = try arguments.value("duration").map { text -> Double in
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw CLIError.usage("--duration must be a positive number of seconds, not '\(text)'")
            }
            return seconds
        }
        // What /metrics counts as it passes (docs/operations.md).
        let counters = ServeMetrics.Counters()
        // --recordings-keep-days, --recordings-keep: checked before the recording directory is made.
        let retentionPolicy = try ServeRetention.policy(arguments)
        // The recordings being written, which retention leaves alone and the replay list leaves out.
        let inUse = RecordingsInUse()
        var configuration = try makeConfiguration(arguments, context: context, counters: counters, inUse: inUse)
        let console = context.console
        // Each show's main picture recorded as fMP4 and served as VOD (docs/http.md, "Replays").
        let webhookSink = Locked<ServeWebhooks?>(nil)
        let replays = arguments.value("shows") == nil ? nil : configuration.recordDirectory.map {
            ServeReplays(recordDirectory: $0, inUse: inUse, console: console, webhooks: webhookSink)
        }
        // LL-HLS of every publish on the HTTP listener (docs/hls.md).
        let hls = arguments.flag(ServeHTTP.disabled.name)
            ? nil : ServeHLS(console: console, counters: counters, replays: replays)
        // Live shows (docs/live-protocol.md): declarations and secret checked before anything starts.
        let whepSink = Locked<ServeWHEPShows?>(nil)
        let shows = try ServeShows.make(arguments, context: context, onEvent: { event in
            console.print(Self.timestamp() + " " + event.description)
            webhookSink.withLock { $0 }?.report(event)
        }, onPictures: { stream, tiles, main in
            hls?.picturesChanged(stream: stream, tiles: tiles, main: main)
            whepSink.withLock { $0 }?.picturesChanged(stream: stream, tiles: tiles, main: main)
        })
        shows?.configureIngest(&configuration)
        // Webhooks to the app's backend (docs/webhooks.md): shows' events and finished recordings.
        let webhooks = try ServeWebhooks.make(arguments, dataDirectory: shows?.dataDirectory, console: console)
        webhooks?.attach(to: &configuration, sink: webhookSink)
        hls?.configureIngest(&configuration, shows: shows?.server, mediaTagKey: shows?.mediaTagKey)
        // HTTP (docs/http.md), checked before anything starts.
        let httpConfiguration = try ServeHTTP.configuration(arguments, certificate: arguments.value("tls-cert"),
                                                            key: arguments.value("tls-key"), console: console,
                                                            counters: counters)
        if shows != nil && httpConfiguration == nil {
            throw CLIError.usage("--shows serves live shows over HTTP: drop --no-http")
        }
        let metricsAddress = try ServeMetrics.address(arguments, http: httpConfiguration)
        // --public-url: watch pages' link previews name the poster by it.
        let publicURL = try ServeWatch.publicURL(arguments)
        // An RTMP and a WHIP publish with one key would share one LL-HLS stream: one at a time.
        let owners = ServeKeyOwners()
        // WHIP publishes into shows (POST /v1/streams/NAME/whip), beside plain ones.
        let whipShows = shows.flatMap { shows in hls.map { ServeWHIPShows(shows: shows.server, hls: $0) } }
        // WHEP playback of shows (POST /v1/streams/NAME/whep), forwarding their WHIP pictures.
        let whepShows = shows.flatMap { shows in whipShows.map { ServeWHEPShows(shows: shows.server, whip: $0) } }
        whepSink.withLock { $0 = whepShows }
        // WHIP publishes are recorded where RTMP ones are.
        let whipRecordings = configuration.recordDirectory.map {
            ServeWHIPRecordings(directory: $0, format: configuration.recordFormat, inUse: inUse, console: console)
        }
        let webRTCConfiguration = try ServeWebRTC.configuration(arguments, httpEnabled: httpConfiguration != nil,
                                                                hls: hls, owners: owners, shows: whipShows,
                                                                recordings: whipRecordings, console: console)
        if webRTCConfiguration != nil { owners.configureIngest(&configuration) }
        // RTMP publishes' video and sound to WHEP players, once the WebRTC port is bound (below).
        let whepForwarding = Locked<WebRTCServer?>(nil)
        if webRTCConfiguration != nil, let hls {
            ServeWebRTC.forwardIngest(&configuration, to: whepForwarding, hls: hls, shows: whepShows)
        }
        let server: RTMPServer
        do {
            server = try RTMPServer(configuration: configuration)
        } catch {
            throw CLIError.failure(error.description)
        }
        let interrupt = InterruptSignal()
        let ports: RTMPServer.BoundPorts
        do {
            ports = try runBlocking { try await server.start() }
        } catch {
            server.stop()
            throw CLIError.failure("\(error)")
        }
        let keyHint = configuration.allowedKeys == nil ? "any stream key" : "a key from the keys file"
        if let port = ports.rtmp, let listen = configuration.listen {
            console.print("Publish to rtmp://\(Self.urlHost(listen.host)):\(port)/live with \(keyHint)")
        }
        if let port = ports.rtmps, let listen = configuration.tlsListen {
            console.print("Publish to rtmps://\(Self.urlHost(listen.host)):\(port)/live with \(keyHint)")
        }
        console.print("Play with: ffplay rtmp://HOST:PORT/live/KEY")
        if let shows {
            do {
                try shows.start(ingest: server, ingestURL: Self.showIngestURL(ports, configuration))
            } catch {
                server.stop()
                throw error
            }
            console.print("Live shows at /v1/streams/NAME on the HTTP listener; their data in \(shows.dataDirectory)")
            console.print("Watch pages at /watch/NAME on the HTTP listener")
        }
        webhooks?.start()
        // SIGHUP (or `stream serve reload`, which finds this server by the pid file in its data directory) re-reads
        // the config, shows, keys and webhook secret files (docs/operations.md); each outcome goes to the log and
        // the status file.
        let reloadable = ServeReload(config: config,
                                     shows: shows.flatMap { shows in arguments.value("shows").map { (shows, $0) } },
                                     keys: configuration.allowedKeys.flatMap { keys in
                                         arguments.value("keys-file").map { (keys, $0) } },
                                     webhooks: webhooks)
        let control = (shows?.dataDirectory ?? (try? ServeShows.defaultDataDirectory(context.environment)))
            .map(ServeControl.init)
        let reloads = Locked(0)
        let reload = ReloadSignal {
            let outcome = reloadable.run()
            for line in outcome.lines { console.print(Self.timestamp() + " " + line) }
            control?.record(sequence: reloads.withLock { $0 += 1; return $0 }, outcome)
        }
        // WHIP's UDP port, before the HTTP routes that hand it offers.
        let webRTC: WebRTCServer?
        do {
            webRTC = try ServeWebRTC.start(webRTCConfiguration,
                                           explicit: ServeWebRTC.options.contains { arguments.value($0.name) != nil },
                                           console: console)
            whepForwarding.withLock { $0 = webRTC }
        } catch {
            shows?.server.stop()
            server.stop()
            throw error
        }
        if webRTC != nil && whipShows != nil {
            console.print("WHIP into shows at /v1/streams/NAME/whip?tile=camera|screen (the host's access token or "
                + "a goLive grant as bearer token)")
            console.print("WHEP of shows at /v1/streams/NAME/whep[?tile=camera|screen|obs] (the viewer's access "
                + "token, a session's media token, or none for a visitor)")
        }
        // HTTP: its own block, where later issues' routes join (ServeHTTP.router).
        let http: HTTPServer?
        do {
            http = try ServeHTTP.start(httpConfiguration, console: console, addRoutes: { router in
                shows?.server.addRoutes(to: &router)
                hls?.addRoutes(to: &router)
                ServeWatch.addRoutes(to: &router, watchPages: shows != nil, publicURL: publicURL)
                ServeWebRTC.addRoutes(to: &router, server: webRTC, allowedKeys: configuration.allowedKeys,
                                      mediaTagKey: configuration.mediaTagKey, owners: owners,
                                      misses: hls?.misses)
                if let webRTC { whipShows?.addRoutes(to: &router, server: webRTC) }
                if let webRTC { whepShows?.addRoutes(to: &router, server: webRTC) }
            }, started: { base in
                hls?.setBaseURL(base)
            })
        } catch {
            ServeWebRTC.stop(webRTC)
            shows?.server.stop()
            server.stop()
            throw error
        }
        let metrics: HTTPServer?
        do {
            metrics = try metricsAddress.flatMap { address in
                try ServeMetrics.start(address, sources: ServeMetrics.Sources(
                    counters: counters, ingest: server, http: http, hls: hls?.origin, shows: shows?.server,
                    webRTC: webRTC),
                                       console: console)
            }
        } catch {
            ServeHTTP.stop(http)
            shows?.server.stop()
            server.stop()
            throw error
        }
        if let directory = configuration.recordDirectory {
            console.print("Recordings go to \(directory)" + (replays == nil ? "" : ", shows' replays to "
                + "\(directory)/\(ServeReplays.folder)"))
        } else {
            console.print("Not recording")
        }
        let retention = configuration.recordDirectory.map {
            ServeRetention(directory: $0, policy: retentionPolicy, inUse: inUse, console: console)
        }
        retention?.sweep()
        if let control, !control.claim() {
            console.print("Cannot write \(control.pidFile): `stream serve reload` will not find this server "
                          + "(kill -HUP \(getpid()) reloads it)")
        }
        defer { control?.release() }
        try runBlocking {
            // Until Ctrl-C (or --duration), sweeping old recordings every ServeRetention.interval meanwhile.
            let end = duration.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
            while true {
                var slice = retention?.policy.isActive == true ? ServeRetention.interval : nil
                if let end {
                    let left = end - ContinuousClock.now
                    guard left > .zero else { break }
                    slice = min(slice ?? left, left)
                }
                guard let slice else {
                    await interrupt.wait()
                    break
                }
                if await interrupt.wait(upTo: slice) { break }
                retention?.sweep()
            }
        }
        ServeHTTP.stop(metrics)
        ServeHTTP.stop(http)
        ServeWebRTC.stop(webRTC)
        whipRecordings?.finishAll()
        shows?.server.stop()
        server.stop()
        replays?.finishAll()
        if let webhooks { try runBlocking { await webhooks.stop() } }
        withExtendedLifetime(reload) {}
        console.print("Stopped")
        return ExitCode.success
    }

    private func makeConfiguration(_ arguments: ParsedArguments, context: CommandContext,
                                   counters: ServeMetrics.Counters,
                                   inUse: RecordingsInUse) throws -> RTMPServer.Configuration {
        var configuration = RTMPServer.Configuration()
        let console = context.console
        configuration.onEvent = { event in
            counters.ingest(event)
            inUse.observe(event)
            console.print(Self.timestamp() + " " + event.description)
        }
        configuration.listen = arguments.flag("no-plain")
            ? nil : try Self.hostPort(arguments.value("listen") ?? "127.0.0.1:1935", flag: "--listen")
        let certificate = arguments.value("tls-cert")
        let key = arguments.value("tls-key")
        if let tlsListen = arguments.value("tls-listen") {
            guard let certificate, let key else {
                throw CLIError.usage("--tls-listen needs --tls-cert FILE and --tls-key FILE")
            }
            for (flag, file) in [("--tls-cert", certificate), ("--tls-key", key)]
            where !FileManager.default.isReadableFile(atPath: file) {
                throw CLIError.usage("\(flag): cannot read \(file)")
            }
            let (host, port) = try Self.hostPort(tlsListen, flag: "--tls-listen")
            configuration.tlsListen = (host, port, TLSServerConfiguration(certificateFile: certificate,
                                                                          privateKeyFile: key))
        } else if (certificate != nil || key != nil) && arguments.value(ServeHTTP.tlsListen.name) == nil {
            throw CLIError.usage("--tls-cert and --tls-key need --tls-listen HOST:PORT (or --https-listen)")
        }
        if configuration.listen == nil && configuration.tlsListen == nil {
            throw CLIError.usage("--no-plain needs --tls-listen: the server must listen somewhere")
        }
        if let file = arguments.value("keys-file") {
            do {
                configuration.allowedKeys = try KeyList(contentsOfFile: file)
            } catch {
                throw CLIError.usage("--keys-file: \(error.description)")
            }
        }
        if let text = arguments.value("max-connections") {
            guard let count = Int(text), (1...100_000).contains(count) else {
                throw CLIError.usage("--max-connections must be a whole number from 1 to 100000, not '\(text)'")
            }
            configuration.maxConnections = count
        }
        if !arguments.flag("no-record") {
            let directory = try arguments.value("record-dir") ?? Self.defaultRecordDirectory(context.environment)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create the recording directory \(directory): \(error)")
            }
            configuration.recordDirectory = URL(fileURLWithPath: directory).standardizedFileURL.path
        }
        if let text = arguments.value("record-format") {
            guard let format = RecordingFormat(rawValue: text.lowercased()) else {
                throw CLIError.usage("--record-format \(text.prefix(20)) is not flv or mp4")
            }
            configuration.recordFormat = format
        }
        return configuration
    }

    /// Parses "HOST:PORT", "[v6]:PORT" or ":PORT" (all interfaces).
    static func hostPort(_ text: String, flag: String) throws -> (host: String, port: Int) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw CLIError.usage("\(flag) must be HOST:PORT, not '\(text)'") }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            throw CLIError.usage("\(flag) must be HOST:PORT (e.g. 127.0.0.1:1935), not '\(text)'")
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw CLIError.usage("\(flag): the port must be a number from 0 to 65535, not '\(portText)'")
        }
        let resolvedHost = host.isEmpty ? "0.0.0.0" : String(host)
        return (resolvedHost, port)
    }

    static func defaultRecordDirectory(_ environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/stream/recordings"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw CLIError.failure("neither XDG_DATA_HOME nor HOME is set: pass --record-dir DIR or --no-record")
        }
        return home + "/.local/share/stream/recordings"
    }

    /// Where show hosts publish: the RTMPS listener if there is one, else plain RTMP.
    private static func showIngestURL(_ ports: RTMPServer.BoundPorts,
                                      _ configuration: RTMPServer.Configuration) -> String? {
        if let port = ports.rtmps, let listen = configuration.tlsListen {
            return ServeShows.ingestURL(scheme: "rtmps", host: listen.host, port: port)
        }
        if let port = ports.rtmp, let listen = configuration.listen {
            return ServeShows.ingestURL(scheme: "rtmp", host: listen.host, port: port)
        }
        return nil
    }

    private static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    static func timestamp() -> String {
        // Local time of day, through C (no ICU): HH:mm:ss.
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return [parts.tm_hour, parts.tm_min, parts.tm_sec].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
    }
}
