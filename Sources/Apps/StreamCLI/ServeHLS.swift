import HTTP
import HTTPServer
import Identity
import IngestServer
import LiveHLS
import LiveProtocol
import LiveShows
import Locking
import ShowServer

/// `stream serve`'s LL-HLS (docs/hls.md): every publish the ingest receives is packaged in memory and served on the
/// HTTP listener.
///
/// - A plain publish at `/hls/{app}/{tag}/index.m3u8`, where `tag` is 128 bits of an HMAC of the app and key
///   with a key of the server's (never the stream key, and not found by trying keys or tags); the address is
///   printed when the publish starts. A client asking for many that do not exist is answered 429 for a while.
/// - A live show's tiles at `/hls/{stream}/{token}/{tile}.m3u8`, and its main picture at
///   `/hls/{stream}/{token}/main.m3u8`, following the show's state machine (the host's choice), with a
///   discontinuity where it switches. `token` is the media token the show server gave a session that joined (its
///   welcome's `access`): every playlist, part and init segment of a show is refused without one (401), with one
///   that is not this server's, this show's or current (401), or one of a user banned since (403). Playlists
///   name their parts relative to themselves, so a player's requests carry the token and the playlists stay the
///   same for every viewer.
///
/// A publish that ends gets EXT-X-ENDLIST; its playlist stays served for a minute.
final class ServeHLS: Sendable {
    let origin: HLSOrigin
    /// The shows' posters, fed with their main pictures' keyframes.
    let posters: ServePosters
    /// The shows' replays, fed with their main pictures; nil when not recording.
    let replays: ServeReplays?
    private let router = Locked(HLSPublishRouter())
    private let baseURL = Locked<String?>(nil)
    /// Shows whose main picture's address was printed (with their first tile's, before it: issue 34 item 13b), until
    /// the main picture stops.
    private let printedMains = Locked(Set<String>())
    /// The live shows, whose media tokens the show routes check; nil without --shows.
    private let shows = Locked<ShowServer?>(nil)
    /// Clients that ask for many plain publishes that do not exist wait (429) before more are looked up.
    let misses = MissLimiter()
    private let console: Console
    /// Where requests and refusals are counted for `/metrics`.
    private let counters: ServeMetrics.Counters

    init(console: Console, configuration: HLSOrigin.Configuration = HLSOrigin.Configuration(),
         counters: ServeMetrics.Counters = ServeMetrics.Counters(), replays: ServeReplays? = nil) {
        self.console = console
        self.counters = counters
        self.replays = replays
        origin = HLSOrigin(configuration: configuration)
        posters = ServePosters(counters: counters)
    }

    /// Feeds the origin from the ingest; with live shows, learns from the publish gate which publishes are tiles.
    /// - Parameter mediaTagKey: the key of plain publishes' address tags (with `--shows`, derived from the token
    ///   secret, so addresses outlive a restart); nil draws one for this process.
    func configureIngest(_ configuration: inout RTMPServer.Configuration, shows: ShowServer?,
                         mediaTagKey: [UInt8]? = nil) {
        let tagKey = mediaTagKey ?? {
            var generator = SystemRandomNumberGenerator()
            return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }()
        configuration.mediaTagKey = tagKey
        let previous = configuration.onMedia
        configuration.onMedia = { [self] event in
            previous?(event)
            handle(event)
        }
        self.shows.withLock { $0 = shows }
        guard let shows, let gate = configuration.publishGate else { return }
        let router = self.router
        configuration.publishGate = PublishGate(authorize: { app, key in
            let decision = gate.authorize(app, key)
            // The gate admitted a show's key: which show and tile it publishes (the key stops here).
            if case .allow = decision, case .allow(let ticket) = shows.authorizePublish(streamKey: key) {
                let publish = HLSPublishRouter.Publish(app: app, keyTag: StreamKeyTag.media(key, app: app, key: tagKey))
                router.withLock { $0.expect(publish, show: ticket.show, tile: ticket.tile.rawValue) }
            }
            return decision
        }, started: gate.started, stopped: gate.stopped)
    }

    /// A WHIP publish admitted into a show (``ServeWHIPShows``): its media is that show's picture, as a publish the
    /// RTMP gate admitted with a grant.
    func expectShowPublish(app: String, keyTag: String, show: String, tile: TileKind) {
        let publish = HLSPublishRouter.Publish(app: app, keyTag: keyTag)
        router.withLock { $0.expect(publish, show: show, tile: tile.rawValue) }
    }

    /// A show's tiles or main picture changed (the show server's ``ShowServer/Configuration/onPictures``).
    func picturesChanged(stream: String, tiles: [TileKind], main: TileKind?) {
        router.withLock { router in
            apply(router.pictures(show: stream, tiles: tiles.map(\.rawValue), main: main?.rawValue))
        }
    }

    /// Where the HTTP listener answers ("http://127.0.0.1:8080"), for the addresses printed.
    func setBaseURL(_ url: String) {
        baseURL.withLock { $0 = url }
    }

    /// Whether a live RTMP publish is a plain one, with its own LL-HLS address: a show's tile is served only with a
    /// media token, so it is never played over WHEP, whose tag is its only capability.
    func isPlainPublish(app: String, tag: String) -> Bool {
        router.withLock { $0.isPlain(HLSPublishRouter.Publish(app: app, keyTag: tag)) }
    }

    /// The show and tile a live RTMP publish feeds, when the publish gate admitted it as a show's picture.
    func showTile(app: String, tag: String) -> (show: String, tile: TileKind)? {
        guard let found = router.withLock({ $0.showTile(of: HLSPublishRouter.Publish(app: app, keyTag: tag)) }),
              let tile = TileKind(rawValue: found.tile) else { return nil }
        return (found.show, tile)
    }

    /// Prints where a WHIP publish plays over WHEP, beside its LL-HLS address: the same app and tag (no key).
    func printWHEPAddress(app: String, tag: String) {
        guard let base = baseURL.withLock({ $0 }) else { return }
        console.print("WHEP: \(base)/whep/\(app)/\(tag)")
    }

    /// Feeds one publish's media event to the origin: the ingest's, and WHIP publishes' (``ServeWebRTC``).
    func handle(_ event: IngestMediaEvent) {
        router.withLock { router in
            switch event {
            case .publishStarted(let app, let keyTag):
                apply(router.publishStarted(HLSPublishRouter.Publish(app: app, keyTag: keyTag)).actions)
            case .tag(let app, let keyTag, let tag):
                apply(router.tag(tag, of: HLSPublishRouter.Publish(app: app, keyTag: keyTag)))
            case .publishStopped(let app, let keyTag):
                apply(router.publishStopped(HLSPublishRouter.Publish(app: app, keyTag: keyTag)))
            }
        }
    }

    /// Runs the router's actions (under its lock, so the main picture's tags keep their order across a switch).
    private func apply(_ actions: [HLSPublishRouter.Action]) {
        // The addresses of what started, printed after the actions.
        var started: [HLSStreamID] = []
        defer { printAddresses(of: started) }
        for action in actions {
            switch action {
            case .start(let id):
                origin.publishStarted(id)
                started.append(id)
                if id.playlist == HLSStreamID.mainPicture {
                    posters.mainPictureEnded(show: id.directory)
                    replays?.mainPictureStarted(show: id.directory)
                }
            case .append(let tag, let id):
                origin.append(tag, to: id)
                if id.playlist == HLSStreamID.mainPicture {
                    posters.mainPictureTag(tag, show: id.directory)
                    replays?.mainPictureTag(tag, show: id.directory)
                }
            case .discontinuity(let id):
                origin.beginDiscontinuity(id)
                if id.playlist == HLSStreamID.mainPicture {
                    posters.mainPictureSwitched(show: id.directory)
                    replays?.mainPictureSwitched(show: id.directory)
                }
            case .stop(let id):
                origin.publishStopped(id)
                if id.playlist == HLSStreamID.mainPicture {
                    printedMains.withLock { _ = $0.remove(id.directory) }
                    posters.mainPictureEnded(show: id.directory)
                    replays?.mainPictureEnded(show: id.directory)
                }
            }
        }
    }

    /// Prints where each stream that started is served. A show's main picture starts after its first tile (the
    /// show learns of the tile first), so its address is printed before that tile's, and not again when it starts:
    /// a newcomer reading the first address opens the main picture.
    private func printAddresses(of started: [HLSStreamID]) {
        guard !started.isEmpty, let base = baseURL.withLock({ $0 }) else { return }
        var lines: [HLSStreamID] = []
        for id in started where id.playlist != HLSStreamID.plainPlaylist {
            let first = printedMains.withLock { $0.insert(id.directory).inserted }
            if first, let main = HLSStreamID(show: id.directory, picture: HLSStreamID.mainPicture) {
                lines.append(main)
            }
            if id.playlist != HLSStreamID.mainPicture { lines.append(id) }
        }
        for id in started where id.playlist == HLSStreamID.plainPlaylist { lines.append(id) }
        for id in lines {
            // A plain publish has no watch page of a show: the player page beside its playlist plays it.
            if id.playlist == HLSStreamID.plainPlaylist {
                console.print("LL-HLS: \(base)\(id.playlistPath)")
                console.print("Player: \(base)\(id.path)\(Self.playerPage)")
            } else {
                // A show's media needs a session's token, which is never printed.
                console.print("LL-HLS: \(base)\(id.path)\(Self.tokenPlaceholder)/\(id.playlist).m3u8 "
                              + "(TOKEN: the media token of a session that joined)")
            }
        }
    }

    // MARK: Routes

    /// The player page beside a plain publish's playlist (`/hls/{app}/{tag}/index.html`).
    static let playerPage = "index.html"
    /// Where a show's printed address has its token.
    static let tokenPlaceholder = "TOKEN"
    /// The multivariant playlist beside a stream's media playlist (a plain publish's, a show's main picture).
    static let multivariant = "multivariant.m3u8"

    /// Adds `/hls/{app}/{tag}/{file}` (plain publishes), `/hls/{stream}/{token}/{file}` (shows' pictures; a media
    /// token starts with `m1.`, which no tag does) and `/hls/{stream}/{file}` (refused: a show's media needs a
    /// token). They answer on the HTTP server's event loop what exists now; a request that must be held (a
    /// blocking reload, the hinted part) is kept by the origin as a callback, answered from the thread that
    /// completes its part (no task).
    func addRoutes(to router: inout HTTPRouter) {
        let origin = self.origin
        let shows = self.shows
        let misses = self.misses
        let counters = self.counters
        router.add(.get, "/hls/{app}/{tag}/{file}", .immediateOrLater { request in
            let app = request.parameters["app"] ?? ""
            let tag = request.parameters["tag"] ?? ""
            let file = request.parameters["file"] ?? ""
            if tag.hasPrefix(MediaToken.prefix) {
                counters.hlsRequest(show: true)
                return counters.hlsAnswered(Self.show(origin, shows, stream: app, token: tag, file: file,
                                                      query: request.target.rawQuery))
            }
            counters.hlsRequest(show: false)
            let client = MissLimiter.client(of: request.remoteAddress)
            if let wait = misses.retryAfter(client) {
                var response = HTTPResponse.status(.tooManyRequests, message: "too many requests for streams that "
                                                       + "do not exist: wait \(wait) s")
                response.headers.add("Retry-After", String(wait))
                return counters.hlsAnswered(.response(response))
            }
            let answer: HTTPRouter.ImmediateOrLater
            if let id = HLSStreamID(app: app, tag: tag) {
                if file == Self.multivariant {
                    answer = .response(ServeHLS.response(origin.multivariant(id, uri: id.playlist + ".m3u8")))
                } else if file == id.playlist + ".m3u8" {
                    answer = Self.playlist(origin, id, query: request.target.rawQuery)
                } else if file == Self.playerPage {
                    answer = .response(ServeWatch.playerPage())
                } else {
                    answer = Self.resource(origin, directory: id.directory, name: file)
                }
            } else {
                answer = .response(.status(.notFound))
            }
            if case .response(let response) = answer, response.status == .notFound { misses.missed(client) }
            return answer
        })
        router.add(.get, "/hls/{stream}/{file}", .immediateOrLater { request in
            counters.hlsRequest(show: true)
            return counters.hlsAnswered(Self.show(origin, shows, stream: request.parameters["stream"] ?? "",
                                                  token: nil, file: request.parameters["file"] ?? "",
                                                  query: request.target.rawQuery))
        })
        posters.addRoutes(to: &router, shows: shows)
        replays?.addRoutes(to: &router, shows: shows)
    }

    /// A show's playlist or resource, once its media token is checked (before anything is looked up: a refused
    /// request learns nothing of what exists).
    private static func show(_ origin: HLSOrigin, _ shows: Locked<ShowServer?>, stream: String, token: String?,
                             file: String, query: String?) -> HTTPRouter.ImmediateOrLater {
        guard let server = shows.withLock({ $0 }) else { return .response(.status(.notFound)) }
        if case .refused(let status, let reason) = server.checkMedia(stream: stream, token: token) {
            var response = HTTPResponse.status(HTTPStatus(code: status), message: reason)
            response.headers.add("Cache-Control", "no-store")
            return .response(response)
        }
        if file == multivariant, let main = HLSStreamID(show: stream, picture: HLSStreamID.mainPicture) {
            return .response(response(origin.multivariant(main, uri: main.playlist + ".m3u8")))
        }
        if file.hasSuffix(".m3u8") {
            guard let id = HLSStreamID(show: stream, picture: String(file.dropLast(5))) else {
                return .response(.status(.notFound))
            }
            return playlist(origin, id, query: query)
        }
        return resource(origin, directory: stream, name: file)
    }

    /// The playlist now, or held (without a task) until it can be answered: the query is parsed and the stream
    /// looked at once.
    private static func playlist(_ origin: HLSOrigin, _ id: HLSStreamID, query: String?)
        -> HTTPRouter.ImmediateOrLater {
        answer(origin, origin.playlistLookup(id, query: query))
    }

    /// The resource now, or held (without a task) until it can be answered.
    private static func resource(_ origin: HLSOrigin, directory: String, name: String)
        -> HTTPRouter.ImmediateOrLater {
        answer(origin, origin.resourceLookup(directory: directory, name: name))
    }

    private static func answer(_ origin: HLSOrigin, _ lookup: HLSOrigin.Lookup) -> HTTPRouter.ImmediateOrLater {
        switch lookup {
        case .reply(let reply):
            return .response(response(reply))
        case .hold(let hold):
            // ServeHLS.response, not response: inside a static method the bare name captures the dynamic Self, and
            // a closure capturing that beside `pending` needs a context allocated per held request.
            return .later { pending in
                pending.onCancel(origin.hold(hold) { pending.respond(ServeHLS.response($0)) })
            }
        }
    }

    /// The HTTP response of an origin's reply: its fields in their fixed order, encoded once for every reply that
    /// has them (the hundreds of answers a part releases share one encoding), its body shared (not copied).
    static func response(_ reply: HLSReply) -> HTTPResponse {
        HTTPResponse(status: reply.status == 200 ? .ok : HTTPStatus(code: reply.status),
                     encodedFields: encodedFields(reply), body: .bytes(reply.body))
    }

    private struct FieldsKey: Hashable {
        var contentType: String
        var cacheControl: String
    }

    /// The encoded fields by Content-Type and Cache-Control: a handful (media, the live and the blocking playlist
    /// per target duration, errors), at most ``maximumEncodedFields``; others are encoded per reply.
    private static let encodedFieldsCache = Locked([FieldsKey: HTTPEncodedFields]())
    static let maximumEncodedFields = 16

    /// The fields of every part and segment.
    private static let mediaFields = encode(HLSReply(status: 200, contentType: HLSReply.mediaContentType,
                                                     cacheControl: HLSReply.mediaCacheControl, body: []))

    private static func encodedFields(_ reply: HLSReply) -> HTTPEncodedFields {
        // Media first, without the table (the same strings compare at once).
        if reply.contentType == HLSReply.mediaContentType && reply.cacheControl == HLSReply.mediaCacheControl {
            return mediaFields
        }
        let key = FieldsKey(contentType: reply.contentType, cacheControl: reply.cacheControl)
        if let fields = encodedFieldsCache.withLock({ $0[key] }) { return fields }
        let fields = encode(reply)
        encodedFieldsCache.withLock { cache in
            if cache.count < maximumEncodedFields { cache[key] = fields }
        }
        return fields
    }

    /// A reply's fields, in the order ``HLSReply/fields`` gives them, encoded.
    private static func encode(_ reply: HLSReply) -> HTTPEncodedFields {
        var headers = HTTPHeaders()
        for field in reply.fields { headers.add(field.name, field.value) }
        return HTTPEncodedFields(headers)
    }
}
