import ByteIO
import HTTPServer
import LiveProtocol
import Locking
import IngestServer
import WebRTCServer

/// `stream serve`'s WebRTC side (docs/webrtc.md, "The server"): WHIP ingest on the HTTP listener, media on one
/// UDP port.
enum ServeWebRTC {
    static let listen = OptionSpec.value(
        "webrtc-listen", valueName: "HOST:PORT",
        help: "UDP address of every WHIP session's media (default 127.0.0.1:8189; port 0 = any free).")
    static let publicIP = OptionSpec.value(
        "webrtc-public-ip", valueName: "IP",
        help: "The address WHIP answers give for the UDP port (default: the --webrtc-listen host).")

    static let maxSessions = OptionSpec.value(
        "webrtc-max-sessions", valueName: "N",
        help: "Most WebRTC sessions at once, WHIP and WHEP (default 256; 1-10000; players take at most 3/4).")

    /// The options `stream serve` adds for WebRTC.
    static let options = [listen, publicIP, maxSessions]

    /// The largest `--webrtc-max-sessions`: about 50 KB of state a session, 0.5 GB at the bound.
    static let sessionRange = 1...10_000

    static let defaultListen = "127.0.0.1:8189"

    /// The configuration the arguments ask for, or nil when HTTP is off (WHIP's offers come over HTTP).
    /// - Throws: `CLIError.usage` for a bad address, or a wildcard address without `--webrtc-public-ip`.
    /// - Parameter hls: where WHIP publishes' H.264 and AAC (transcoded from their Opus) go, as an RTMP publish's do.
    /// - Parameter owners: told when a WHIP publish's media starts and stops.
    /// - Parameter shows: told when a WHIP publish into a show starts and stops; nil without `--shows`.
    /// - Parameter recordings: where WHIP publishes are recorded; nil when the server does not record.
    static func configuration(_ arguments: ParsedArguments, httpEnabled: Bool, hls: ServeHLS?, owners: ServeKeyOwners,
                              shows: ServeWHIPShows? = nil, recordings: ServeWHIPRecordings? = nil,
                              console: Console) throws -> WebRTCServer.Configuration? {
        guard httpEnabled else {
            for option in options where arguments.value(option.name) != nil {
                throw CLIError.usage("--\(option.name) needs HTTP (WHIP offers come over HTTP): drop --no-http")
            }
            return nil
        }
        let (host, port) = try ServeCommand.hostPort(arguments.value(listen.name) ?? defaultListen,
                                                     flag: "--\(listen.name)")
        let candidate = arguments.value(publicIP.name)
        if let candidate, TransportAddress(host: candidate, port: 1) == nil {
            throw CLIError.usage("--\(publicIP.name) must be a numeric IP address, not '\(candidate.prefix(40))'")
        }
        if candidate == nil && (host == "0.0.0.0" || host == "::") {
            throw CLIError.usage("--\(listen.name) \(host) listens on every interface: give the address clients "
                + "reach with --\(publicIP.name) IP")
        }
        var configuration = configuration(listenHost: host, listenPort: port, candidateHost: candidate, hls: hls,
                                          owners: owners, shows: shows, recordings: recordings, console: console)
        if let text = arguments.value(maxSessions.name) {
            guard let count = Int(text), sessionRange.contains(count) else {
                throw CLIError.usage("--\(maxSessions.name) must be a whole number from \(sessionRange.lowerBound) to "
                    + "\(sessionRange.upperBound), not '\(text.prefix(40))'")
            }
            configuration.maximumSessions = count
            configuration.maximumPlayers = count * 3 / 4
        }
        return configuration
    }

    /// The configuration for a port at `listenHost`:`listenPort` whose WHIP publishes go to `hls` (plain ones, and
    /// a show's pictures through `shows`) and `recordings`, told to `owners`.
    static func configuration(listenHost: String, listenPort: Int, candidateHost: String?, hls: ServeHLS?,
                              owners: ServeKeyOwners, shows: ServeWHIPShows?, recordings: ServeWHIPRecordings? = nil,
                              console: Console) -> WebRTCServer.Configuration {
        var onMedia: (@Sendable (WHIPMediaEvent) -> Void)?
        if hls != nil || recordings != nil {
            onMedia = { event in
                switch event {
                case .started(let app, let tag):
                    owners.whip(app: app, tag: tag, live: true)
                    recordings?.started(app: app, tag: tag)
                    guard let hls else { return }
                    hls.handle(.publishStarted(app: app, keyTag: tag))
                    // A show's picture plays only on its media-token routes: a plain publish's WHEP address is printed.
                    if shows?.started(streamTag: tag) != true { hls.printWHEPAddress(app: app, tag: tag) }
                case .tag(let app, let tag, let flv):
                    recordings?.tag(app: app, tag: tag, flv)
                    hls?.handle(.tag(app: app, keyTag: tag, flv))
                case .stopped(let app, let tag):
                    owners.whip(app: app, tag: tag, live: false)
                    recordings?.stopped(app: app, tag: tag)
                    hls?.handle(.publishStopped(app: app, keyTag: tag))
                    shows?.stopped(streamTag: tag)
                }
            }
        }
        return WebRTCServer.Configuration(listenHost: listenHost, listenPort: listenPort, candidateHost: candidateHost,
                                          onEvent: { event in console.print(ServeCommand.timestamp() + " \(event)") },
                                          onMedia: onMedia)
    }

    /// Binds the UDP port. With the default address taken (another `stream serve`), WHIP is left off with a line
    /// saying so; an address given on the command line that cannot be bound is an error.
    static func start(_ configuration: WebRTCServer.Configuration?, explicit: Bool,
                      console: Console) throws -> WebRTCServer? {
        guard let configuration else { return nil }
        do {
            let server = try runBlocking { try await WebRTCServer.start(configuration) }
            let host = configuration.candidateHost ?? configuration.listenHost
            console.print("WHIP at /whip/APP on the HTTP listener (the stream key as bearer token); "
                + "media on UDP \(host.contains(":") ? "[\(host)]" : host):\(server.port)")
            return server
        } catch {
            guard explicit else {
                console.print("WHIP is off: \(error) (pass --\(listen.name) HOST:PORT)")
                return nil
            }
            throw CLIError.failure("\(error)")
        }
    }

    /// Adds the WHIP routes; `allowedKeys` is `--keys-file`'s list (nil: any non-empty key), as for RTMP, and
    /// `mediaTagKey` the key of the LL-HLS addresses' tags, as for RTMP (the same key publishes to the same address).
    /// A key live over RTMP on the app is refused with 409 (`owners`). WHEP plays a WHIP publish at its LL-HLS
    /// address's app and tag; `misses` is the LL-HLS routes' limiter of requests for streams that do not exist.
    static func addRoutes(to router: inout HTTPRouter, server: WebRTCServer?, allowedKeys: KeyList?,
                          mediaTagKey: [UInt8]?, owners: ServeKeyOwners, misses: MissLimiter?) {
        guard let server else { return }
        var streamTag: (@Sendable (String, String) -> String)?
        var conflict: (@Sendable (String, String) -> String?)?
        if let mediaTagKey {
            streamTag = { app, key in StreamKeyTag.media(key, app: app, key: mediaTagKey) }
            conflict = { app, key in
                guard owners.isLiveOverRTMP(app: app, tag: StreamKeyTag.media(key, app: app, key: mediaTagKey))
                else { return nil }
                return "this stream key is publishing over RTMP on \(app): stop that publish first"
            }
        }
        WHIPIngestRoutes(server: server, authorize: { key in allowedKeys?.allows(key) ?? true },
                         streamTag: streamTag, conflict: conflict).add(to: &router)
        // The LL-HLS address's tag is the capability, as for the playlist; its miss limiter guards both.
        WHEPPlaybackRoutes(server: server, misses: misses).add(to: &router)
    }

    /// Hands RTMP publishes' video and sound to WHEP players (`server` is set once the WebRTC port is bound) and
    /// prints each plain publish's WHEP address beside its LL-HLS one. A show's RTMP picture (OBS, `stream live`) is
    /// forwarded under the show's name, where the show's WHEP routes find it (`shows`), never at a plain address.
    static func forwardIngest(_ configuration: inout RTMPServer.Configuration, to server: Locked<WebRTCServer?>,
                              hls: ServeHLS, shows: ServeWHEPShows?) {
        let previous = configuration.onMedia
        // The show picture each live RTMP publish feeds, by its app and tag: its forwarding's name until it stops.
        let showPictures = Locked([String: (show: String, tile: TileKind)]())
        configuration.onMedia = { event in
            previous?(event)
            guard let webRTC = server.withLock({ $0 }) else { return }
            switch event {
            case .publishStarted(let app, let tag):
                // The LL-HLS side (`previous`) has placed the publish: plain, or a show's tile.
                if hls.isPlainPublish(app: app, tag: tag) {
                    webRTC.startRTMP(app: app, streamTag: tag)
                    hls.printWHEPAddress(app: app, tag: tag)
                } else if let shows, let picture = hls.showTile(app: app, tag: tag) {
                    showPictures.withLock { $0[app + "/" + tag] = picture }
                    webRTC.startRTMP(app: picture.show, streamTag: tag)
                    shows.rtmpPictureStarted(show: picture.show, tile: picture.tile, streamTag: tag)
                }
            case .tag(let app, let tag, let flv):
                let picture = showPictures.withLock { $0[app + "/" + tag] }
                webRTC.forwardRTMP(app: picture?.show ?? app, streamTag: tag, flv)
            case .publishStopped(let app, let tag):
                if let picture = showPictures.withLock({ $0.removeValue(forKey: app + "/" + tag) }) {
                    shows?.rtmpPictureStopped(show: picture.show, tile: picture.tile, streamTag: tag)
                    webRTC.stopRTMP(app: picture.show, streamTag: tag)
                } else {
                    webRTC.stopRTMP(app: app, streamTag: tag)
                }
            }
        }
    }

    static func stop(_ server: WebRTCServer?) {
        guard let server else { return }
        try? runBlocking { await server.stop() }
    }
}
