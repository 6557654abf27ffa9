import LiveHLS
import Posters

/// A poster ready to serve.
struct CachedPoster: Sendable, Hashable {
    var picture: PosterPicture
    /// The strong ETag's opaque part: a hash of the JPEG.
    var entityTag: String
    /// When it was decoded (milliseconds, the driver's clock).
    var madeAt: Int64
    /// The keyframe's number in ``PosterKeyframes``.
    var keyframe: UInt64
}

/// What a poster request gets from ``ServePosters``.
enum PosterAnswer: Sendable {
    case poster(CachedPoster)
    /// The show has no keyframe yet (or its picture ended).
    case noKeyframe
    /// Too many decodes or waiters.
    case busy
    /// The keyframe gave no poster: why.
    case failed(String)
}

/// The posters of live shows and the decodes under way, without I/O or a clock of its own: `stream serve` decides
/// here, under one lock, whether a request is answered with the poster it has or waits for a decode.
///
/// A poster is made only when asked for: a request finds the poster fresh (younger than ``refreshMilliseconds``, or
/// made from the keyframe that is still the show's last) and gets it; otherwise one request per show starts a
/// decode and the others of that show wait for it (at most ``maximumWaiters``), or get the older poster at once if
/// there is one. At most ``maximumDecodes`` decodes run at a time, all shows together; past that a show without a
/// poster is told to come back (busy). `Waiter` is what the driver resumes (a continuation; an integer in tests).
struct PosterCache<Waiter> {
    typealias Poster = CachedPoster

    /// What a request gets.
    enum Decision {
        /// The poster, now.
        case serve(Poster)
        /// Decode this keyframe (off the event loop), then call ``decoded(show:keyframe:result:now:)``.
        case decode(PosterKeyframes.Keyframe)
        /// A decode of this show runs: the waiter is resumed with its result.
        case wait
        /// Too many decodes or waiters: try again in a second.
        case busy
        /// The show's last keyframe failed to decode: the reason.
        case failed(String)
    }

    /// The poster is refreshed about this often while live (issue 33).
    static var refreshMilliseconds: Int64 { 10_000 }
    /// Decodes at once, all shows together (the server's machine has two cores).
    static var maximumDecodes: Int { 2 }
    /// Requests waiting for one show's first poster.
    static var maximumWaiters: Int { 64 }

    private struct Entry {
        var poster: Poster?
        var decoding = false
        var waiters: [Waiter] = []
        /// The keyframe that failed to decode, and why (not tried again until the next keyframe).
        var failure: (keyframe: UInt64, reason: String)?
        /// The show's picture ended while a decode ran: the entry goes when it finishes.
        var ended = false
    }

    private var entries: [String: Entry] = [:]
    private(set) var decodes = 0

    /// A request for `show`'s poster, whose last keyframe is `keyframe` (nil when there is none: the caller answers
    /// 404 and the show's poster is forgotten).
    mutating func request(show: String, keyframe: PosterKeyframes.Keyframe?, now: Int64,
                          waiter: @autoclosure () -> Waiter) -> Decision? {
        guard let keyframe else {
            ended(show: show)
            return nil
        }
        var entry = entries[show] ?? Entry()
        if entry.ended { entry = Entry(decoding: true, waiters: entry.waiters) }
        defer { entries[show] = entry }
        if let poster = entry.poster,
           poster.keyframe == keyframe.number || now - poster.madeAt < Self.refreshMilliseconds {
            return .serve(poster)
        }
        if let failure = entry.failure, failure.keyframe == keyframe.number {
            return entry.poster.map { .serve($0) } ?? .failed(failure.reason)
        }
        if entry.decoding {
            if let poster = entry.poster { return .serve(poster) }
            guard entry.waiters.count < Self.maximumWaiters else { return .busy }
            entry.waiters.append(waiter())
            return .wait
        }
        guard decodes < Self.maximumDecodes else { return entry.poster.map { .serve($0) } ?? .busy }
        decodes += 1
        entry.decoding = true
        return .decode(keyframe)
    }

    /// A decode finished: keeps the poster (unless the show ended meanwhile) and hands back the waiters to resume.
    mutating func decoded(show: String, keyframe: UInt64, result: Result<PosterPicture, PosterError>,
                          entityTag: String, now: Int64) -> (waiters: [Waiter], result: Result<Poster, PosterError>) {
        decodes -= 1
        let outcome = result.map { Poster(picture: $0, entityTag: entityTag, madeAt: now, keyframe: keyframe) }
        guard var entry = entries[show] else { return ([], outcome) }
        let waiters = entry.waiters
        guard !entry.ended else {
            entries[show] = nil
            return (waiters, outcome)
        }
        entry.waiters = []
        entry.decoding = false
        switch outcome {
        case .success(let poster):
            entry.poster = poster
            entry.failure = nil
        case .failure(let error):
            entry.failure = (keyframe, error.description)
        }
        entries[show] = entry
        return (waiters, outcome)
    }

    /// The show's main picture ended: its poster is dropped (a decode under way still answers its waiters).
    mutating func ended(show: String) {
        guard var entry = entries[show] else { return }
        guard entry.decoding else {
            entries[show] = nil
            return
        }
        entry.ended = true
        entries[show] = entry
    }

    /// Shows with a poster or a decode under way.
    var count: Int { entries.count }
}
