import ByteIO
import Digest
import FLV
import HTTP
import HTTPServer
import JSON
import LiveHLS
import LiveProtocol
import Locking
import Posters
import ShowServer

#if canImport(Glibc)
import Glibc
#endif

/// `stream serve`'s posters (docs/live-protocol.md, "Posters"): `GET /v1/streams/{name}/poster.jpg` is a JPEG of a
/// live show's main picture, decoded from its last keyframe when someone asks and the poster is older than ten
/// seconds. The keyframes come from the LL-HLS origin's feed of the main picture (``ServeHLS``), one per live show;
/// decodes run on a thread of their own (libavcodec and libturbojpeg, loaded at the first poster), one per show at a
/// time, two at most. The route asks the show server as the status route does, so the same callers see it.
final class ServePosters: Sendable {
    private let keyframes = Locked(PosterKeyframes())
    private let cache = Locked(PosterCache<CheckedContinuation<PosterAnswer, Never>>())
    private let clock: @Sendable () -> Int64
    private let counters: ServeMetrics.Counters

    /// The path of a show's poster.
    static func path(of stream: String) -> String { "/v1/streams/\(stream)/poster.jpg" }

    init(counters: ServeMetrics.Counters,
         clock: @escaping @Sendable () -> Int64 = ServePosters.monotonicMilliseconds) {
        self.counters = counters
        self.clock = clock
    }

    // MARK: The main picture's feed

    /// A tag of a show's main picture (only video tags are looked at; a keyframe is kept without a copy).
    func mainPictureTag(_ tag: FLVTag, show: String) {
        guard tag.type == .video, tag.isSequenceHeader || tag.isVideoKeyFrame else { return }
        keyframes.withLock { $0.append(tag, show: show) }
    }

    /// The main picture switched to another tile.
    func mainPictureSwitched(show: String) {
        keyframes.withLock { $0.discontinuity(show: show) }
    }

    /// The show's main picture started or ended: its keyframe and poster go.
    func mainPictureEnded(show: String) {
        keyframes.withLock { $0.ended(show: show) }
        cache.withLock { $0.ended(show: show) }
    }

    // MARK: The route

    /// Adds `GET /v1/streams/{name}/poster.jpg` (HEAD too). Without live shows it is 404.
    func addRoutes(to router: inout HTTPRouter, shows: Locked<ShowServer?>) {
        router.get("/v1/streams/{name}/poster.jpg") { [self] request in
            guard let server = shows.withLock({ $0 }) else { return .status(.notFound) }
            let name = request.parameters["name"] ?? ""
            let token = request.queryValue("access_token") ?? request.bearerToken
            switch await server.status(of: name, token: token) {
            case .failure(let refusal):
                return Self.refusal(refusal.status, refusal.error)
            case .success(let status) where status.state != .live:
                return Self.refusal(404, ShowError(.notFound, "\(name) is not live: no poster"))
            case .success:
                break
            }
            switch await poster(of: name) {
            case .noKeyframe:
                return Self.refusal(404, ShowError(.notFound, "\(name) has no keyframe yet: try again in a second"))
            case .busy:
                var response = Self.refusal(503, ShowError(.unavailable, "posters are being made: try again in a second"))
                response.headers.add("Retry-After", "1")
                return response
            case .failed(let reason):
                return Self.refusal(503, ShowError(.unavailable, reason))
            case .poster(let poster):
                return Self.response(poster, request: request, personal: token != nil, now: clock())
            }
        }
    }

    /// The show's poster: the cached one, or one decoded now; nil without a keyframe.
    func poster(of show: String) async -> PosterAnswer {
        let keyframe = keyframes.withLock { $0.keyframe(of: show) }
        let now = clock()
        return await withCheckedContinuation { (continuation: CheckedContinuation<PosterAnswer, Never>) in
            let decision = cache.withLock { $0.request(show: show, keyframe: keyframe, now: now,
                                                       waiter: continuation) }
            switch decision {
            case .none:
                continuation.resume(returning: .noKeyframe)
            case .serve(let poster):
                continuation.resume(returning: .poster(poster))
            case .wait:
                break
            case .busy:
                continuation.resume(returning: .busy)
            case .failed(let reason):
                continuation.resume(returning: .failed(reason))
            case .decode(let keyframe):
                decode(keyframe, show: show, for: continuation)
            }
        }
    }

    /// Decodes on a thread of its own (a blocking C call of a few milliseconds), then answers everyone waiting.
    private func decode(_ keyframe: PosterKeyframes.Keyframe, show: String,
                        for first: CheckedContinuation<PosterAnswer, Never>) {
        DetachedThread.start(name: "stream-poster") { [self] in
            let result: Result<PosterPicture, PosterError>
            do throws(PosterError) {
                result = .success(try PosterRenderer.render(annexB: keyframe.annexB()))
            } catch {
                result = .failure(error)
            }
            counters.posterDecoded()
            let tag = (try? result.get()).map { Hex.encode(SHA256.hash($0.jpeg).prefix(16)) } ?? ""
            let (waiters, outcome) = cache.withLock {
                $0.decoded(show: show, keyframe: keyframe.number, result: result, entityTag: tag, now: clock())
            }
            let answer: PosterAnswer
            switch outcome {
            case .success(let poster): answer = .poster(poster)
            case .failure(let error): answer = .failed(error.description)
            }
            first.resume(returning: answer)
            for waiter in waiters { waiter.resume(returning: answer) }
        }
    }

    /// The poster with its ETag, Age and Cache-Control (fresh for what is left of its ten seconds), or 304.
    static func response(_ poster: CachedPoster, request: HTTPRequest, personal: Bool,
                         now: Int64) -> HTTPResponse {
        let age = max(0, (now - poster.madeAt) / 1000)
        let left = max(0, PosterCache<Int>.refreshMilliseconds / 1000 - age)
        let tag = HTTPEntityTag(poster.entityTag)
        var headers = HTTPHeaders()
        headers.add("ETag", tag.description)
        headers.add("Age", String(age))
        headers.add("Cache-Control", (personal ? "private" : "public") + ", max-age=\(left)")
        if let condition = request.headers["If-None-Match"], HTTPEntityTag.ifNoneMatch(condition, matches: tag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add("Content-Type", "image/jpeg")
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(poster.picture.jpeg))
    }

    /// A JSON error answer as the status route gives (`{"error": {...}}`), never cached.
    static func refusal(_ status: Int, _ error: ShowError) -> HTTPResponse {
        var response = HTTPResponse.json(JSONWriter.bytes(.object([("error", LiveCodec.json(error))])),
                                         status: HTTPStatus(code: status))
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    @Sendable static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
