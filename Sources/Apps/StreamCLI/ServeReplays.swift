#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import FLV
import HLS
import HTTP
import HTTPServer
import IngestServer
import JSON
import LiveProtocol
import Locking
import MP4
import Recording
import ShowServer

/// `stream serve`'s replays (docs/http.md, "Replays"): each live show's main picture, what its viewers watched, is
/// recorded as fragmented MP4 (a fragment per keyframe) in `RECORD_DIR/replays/NAME/`, a file per run of one tile
/// (a switch of the main picture to another tile, or a disk that filled, starts a new file), and the finished ones
/// are listed at `GET /v1/streams/{name}/recordings` and served as HLS VOD playlists of byte ranges over the file.
///
/// The routes ask the show server as the status route does (an access token in `access_token` or `Authorization:
/// Bearer`, nothing for a visitor): whoever may watch the show may watch its replays, and only they. A file being
/// written is never listed; its name is only known once it is finished.
final class ServeReplays: Sendable {
    /// Where each show's directory is.
    let directory: String
    private let console: Console
    /// The webhooks, once they exist: a finished replay is a `recording.ready` event.
    private let webhooks: Locked<ServeWebhooks?>
    /// The recording of each show's main picture while it runs.
    private let recordings = Locked([String: TagRecording]())
    /// Recordings being written (their paths): not listed, and never deleted by retention.
    private let inUse: RecordingsInUse
    /// The indexes of finished files by path, with the size and modification time they were made of.
    private let indexes = Locked([String: CachedIndex]())
    /// The most indexes kept; past it the cache starts again (indexing a file is a few hundred small reads).
    static let maximumCachedIndexes = 1024

    private struct CachedIndex {
        var size: Int
        var modified: Int
        var index: FragmentIndex
    }

    init(recordDirectory: String, inUse: RecordingsInUse, console: Console, webhooks: Locked<ServeWebhooks?>) {
        directory = recordDirectory + "/" + Self.folder
        self.inUse = inUse
        self.console = console
        self.webhooks = webhooks
    }

    /// The folder of the recording directory where replays go, a folder per show.
    static let folder = "replays"

    /// A show's directory: its name with every character but letters, digits, `-`, `_` and `~` percent-encoded (`:`
    /// and `.` too), so that no name can reach outside or collide with another's.
    func directory(of show: String) -> String {
        // RFC 3986's unreserved characters stay but ".", which would let ".." name the parent.
        directory + "/" + PercentEncoding.encode(show).split(separator: ".", omittingEmptySubsequences: false)
            .joined(separator: "%2E")
    }

    // MARK: Recording the main picture

    /// The show's main picture started: a new file, fed by ``mainPictureTag(_:show:)``.
    func mainPictureStarted(show: String) {
        let folder = directory(of: show)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            console.print(ServeCommand.timestamp() + " replays: cannot create \(folder): \(error); \(show) is not "
                          + "recorded")
            return
        }
        let inUse = self.inUse
        let console = self.console
        let webhooks = self.webhooks
        let recording = TagRecording(directory: folder, format: .mp4, app: "replay", keyTag: "#main", emit: { event in
            inUse.observe(event)
            console.print(ServeCommand.timestamp() + " replay \(event)")
            if case .recordingFinished(let path, let bytes, let seconds) = event {
                let id = String(path.split(separator: "/").last?.dropLast(".mp4".count) ?? "")
                webhooks.withLock { $0 }?.reportReplay(show: show, id: id, path: path, bytes: bytes, seconds: seconds)
            }
        })
        recordings.withLock { $0.updateValue(recording, forKey: show) }?.finish()
    }

    /// A tag of the show's main picture.
    func mainPictureTag(_ tag: FLVTag, show: String) {
        recordings.withLock { $0[show] }?.write(tag)
    }

    /// The main picture switched to another tile: its timestamps and settings are another publisher's, so the file
    /// ends and a new one starts with that tile's sequence headers.
    func mainPictureSwitched(show: String) {
        mainPictureEnded(show: show)
        mainPictureStarted(show: show)
    }

    /// The show's main picture ended (its last tile stopped, or the host ended the show): its file is finished.
    func mainPictureEnded(show: String) {
        recordings.withLock { $0.removeValue(forKey: show) }?.finish()
    }

    /// Finishes every file (the server stops).
    func finishAll() {
        let running = recordings.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for recording in running { recording.finish() }
    }

    // MARK: Finished replays

    /// A finished replay on disk.
    struct Replay {
        /// The file name without `.mp4`: the replay's id in its addresses.
        var id: String
        var path: String
        var bytes: Int
        /// When the file was last written (its end), in milliseconds since 1970.
        var endedAt: Int64
        var index: FragmentIndex
    }

    /// The show's finished replays, newest first; files that are not fragmented MP4 or hold no fragment are left out.
    func replays(of show: String) -> [Replay] {
        let folder = directory(of: show)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let writing = inUse.paths
        var found: [Replay] = []
        for name in names where name.hasSuffix(".mp4") && !name.hasPrefix(".") {
            let path = folder + "/" + name
            guard !writing.contains(path), let replay = replay(id: String(name.dropLast(4)), path: path) else {
                continue
            }
            found.append(replay)
        }
        return found.sorted { ($0.endedAt, $0.id) > ($1.endedAt, $1.id) }
    }

    /// One finished replay by id; nil when there is none (or it is still being written).
    func replay(of show: String, id: String) -> Replay? {
        guard Self.isReplayID(id) else { return nil }
        let path = directory(of: show) + "/" + id + ".mp4"
        guard !inUse.paths.contains(path) else { return nil }
        return replay(id: id, path: path)
    }

    private func replay(id: String, path: String) -> Replay? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        let modified = Int(info.st_mtim.tv_sec) * 1000 + Int(info.st_mtim.tv_nsec) / 1_000_000
        let index: FragmentIndex
        if let cached = indexes.withLock({ $0[path] }), cached.size == size, cached.modified == modified {
            index = cached.index
        } else {
            guard let read = FragmentIndex.read(path: path) else { return nil }
            index = read
            indexes.withLock { cache in
                if cache.count >= Self.maximumCachedIndexes { cache.removeAll() }
                cache[path] = CachedIndex(size: size, modified: modified, index: read)
            }
        }
        guard !index.fragments.isEmpty else { return nil }
        return Replay(id: id, path: path, bytes: size, endedAt: Int64(modified), index: index)
    }

    /// An id as our files are named: letters, digits, `-` and `_` (never a path).
    static func isReplayID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    // MARK: Routes

    /// The path of a show's replay list.
    static func path(of stream: String) -> String { "/v1/streams/\(stream)/recordings" }

    /// Adds `GET /v1/streams/{name}/recordings` (the list) and `GET /v1/streams/{name}/recordings/{file}` (`ID.m3u8`,
    /// the VOD playlist; `ID.mp4`, the file, with Range). Without live shows they are 404.
    func addRoutes(to router: inout HTTPRouter, shows: Locked<ShowServer?>) {
        router.get("/v1/streams/{name}/recordings") { [self] request in
            let name = request.parameters["name"] ?? ""
            if let refused = await Self.check(shows, name: name, request: request) { return refused }
            let query = Self.tokenQuery(request)
            let list = replays(of: name).map { replay -> JSONValue in
                let base = Self.path(of: name) + "/" + replay.id
                let seconds = replay.index.durationSeconds
                return .object([
                    ("id", .string(replay.id)),
                    ("startedAt", .integer(Int(replay.endedAt) - Int((seconds * 1000).rounded()))),
                    ("endedAt", .integer(Int(replay.endedAt))),
                    ("duration", .number((seconds * 1000).rounded() / 1000)),
                    ("bytes", .integer(replay.bytes)),
                    ("container", .string("mp4")),
                    ("playlist", .string(base + ".m3u8" + query)),
                    ("file", .string(base + ".mp4" + query)),
                ])
            }
            var response = HTTPResponse.json(JSONWriter.bytes(.object([("stream", .string(name)),
                                                                        ("recordings", .array(list))])))
            response.headers.add("Cache-Control", "private, no-cache")
            return response
        }
        router.get("/v1/streams/{name}/recordings/{file}") { [self] request in
            let name = request.parameters["name"] ?? ""
            if let refused = await Self.check(shows, name: name, request: request) { return refused }
            let file = request.parameters["file"] ?? ""
            let playlist = file.hasSuffix(".m3u8")
            guard playlist || file.hasSuffix(".mp4"),
                  let replay = replay(of: name, id: String(file.dropLast(playlist ? 5 : 4))) else {
                return ServePosters.refusal(404, ShowError(.notFound, "\(name) has no finished recording \(file.prefix(140))"))
            }
            if playlist {
                let text = VODPlaylist.make(replay.index, uri: replay.id + ".mp4" + Self.tokenQuery(request))
                return HTTPResponse(headers: ["Content-Type": "application/vnd.apple.mpegurl",
                                              "Cache-Control": "private, no-cache"],
                                    body: .bytes(Array(text.utf8)))
            }
            var response = HTTPResponse.file(at: replay.path, for: request, contentType: "video/mp4")
            response.headers.add("Cache-Control", "private, max-age=60")
            return response
        }
    }

    /// nil when the caller may watch the show (its role rule and bans, as for its status and live video); else the
    /// refusal (401 without a token where one is needed, 403, 404 for a name no pattern declares).
    private static func check(_ shows: Locked<ShowServer?>, name: String,
                              request: HTTPRequest) async -> HTTPResponse? {
        guard let server = shows.withLock({ $0 }) else { return .status(.notFound) }
        let token = request.queryValue("access_token") ?? request.bearerToken
        if case .failure(let refusal) = await server.status(of: name, token: token) {
            return ServePosters.refusal(refusal.status, refusal.error)
        }
        return nil
    }

    /// The request's `access_token` query, for the addresses in what it is answered (a player's next requests carry
    /// it); empty when the token came in a header or not at all.
    private static func tokenQuery(_ request: HTTPRequest) -> String {
        guard let token = request.queryValue("access_token") else { return "" }
        return "?access_token=" + PercentEncoding.encode(token)
    }
}
