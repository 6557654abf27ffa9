/// The requests one LL-HLS stream holds until what they ask for exists: blocking playlist reloads (RFC 8216bis
/// §6.2.5.2) and requests for the hinted part, each until its deadline.
///
/// No I/O and no clock. The driver tells each event what the stream has now (its ``PlaylistPosition``, whether it
/// ended, what a resource name finds) and what time it is (`now`, a `Duration` since any fixed instant of a monotonic
/// clock), and answers the waiters the event returns. It arms one timer for ``nextDeadline`` and calls
/// ``expire(now:hasPlaylist:)`` when it fires:
///
/// - ``answer(_:position:isEnded:resource:)``: a request's answer now, or nil when it must wait.
/// - ``hold(_:key:waiter:deadline:position:isEnded:resource:)``: keeps a waiter, unless the stream can answer it now.
/// - ``release(position:isEnded:resource:)``: the stream changed (a part or segment was published, it ended).
/// - ``expire(now:hasPlaylist:)``: time passed; the holds past their deadline end (503, or 404 before a playlist).
/// - ``cancel(_:)``: the client left; ``removeAll(answer:)``: the stream was replaced.
public struct HoldTable<Waiter> {
    /// What a request asks for.
    public enum Request: Sendable, Hashable {
        /// The media playlist, with its delivery directives.
        case playlist(BlockingReload.Directives)
        /// An init segment, part or segment.
        case resource(ResourceName)

        /// An init segment, part or segment (not a playlist).
        public var isResource: Bool {
            if case .resource = self { return true }
            return false
        }
    }

    /// What a request is answered with.
    public enum Answer: Sendable, Hashable {
        /// 200 with the playlist as it stands; `blocking`: it answers `_HLS_msn` and may be cached (§6.2.5.2).
        case playlist(blocking: Bool)
        /// 200 with the resource's bytes (available now).
        case media(ResourceName)
        /// 400, with the reason.
        case badRequest(String)
        /// 404, with the reason.
        case notFound(String)
        /// 503: not there within the hold time.
        case unavailable
    }

    /// Waiters answered together: each gets `answer`.
    public struct Release {
        /// What they are answered with.
        public var answer: Answer
        /// Who, in the order they were kept.
        public var waiters: [Waiter]
    }

    /// What an event asks the driver to do: answer each release's waiters (media before playlists, so that a reader
    /// has first the part it plays first), and arm its timer for `nextDeadline` (nil: no hold is left).
    public struct Action {
        /// The waiters to answer, grouped by answer.
        public var releases: [Release]
        /// When the earliest hold left ends.
        public var nextDeadline: Duration?

        /// How many waiters are answered.
        public var count: Int { releases.reduce(0) { $0 + $1.waiters.count } }
    }

    /// What ``hold(_:key:waiter:deadline:position:isEnded:resource:)`` did.
    public enum HoldOutcome {
        /// The stream can answer it now (it changed since the request was first looked at): nothing was kept.
        case answer(Answer)
        /// Kept; the earliest hold now ends at `nextDeadline`.
        case held(nextDeadline: Duration)
    }

    private struct Entry {
        let request: Request
        let deadline: Duration
        let waiter: Waiter
    }

    /// The most distinct requests a release looks for among those it answered already: a stream's waiters ask for
    /// a few things (the next playlist and the hinted part, mostly); past the bound an answer is only not shared.
    static var maximumSharedAnswers: Int { 16 }

    private var entries: [UInt64: Entry] = [:]
    /// No hold ends before this; nil when none is held.
    public private(set) var nextDeadline: Duration?

    /// An empty table.
    public init() {}

    /// How many requests are held.
    public var count: Int { entries.count }

    /// Whether no request is held.
    public var isEmpty: Bool { entries.isEmpty }

    // MARK: Events

    /// Keeps `waiter` under `key` until its request can be answered or `deadline` passes, unless it can be answered
    /// now (the stream changed since the driver's first look at it).
    /// - Parameter key: unique among the driver's waiters (``cancel(_:)`` takes it).
    public mutating func hold(_ request: Request, key: UInt64, waiter: Waiter, deadline: Duration,
                              position: PlaylistPosition?, isEnded: Bool,
                              resource: (ResourceName) -> ResourceLookup) -> HoldOutcome {
        if let answer = Self.answer(request, position: position, isEnded: isEnded, resource: resource) {
            return .answer(answer)
        }
        entries[key] = Entry(request: request, deadline: deadline, waiter: waiter)
        let next = min(nextDeadline ?? deadline, deadline)
        nextDeadline = next
        return .held(nextDeadline: next)
    }

    /// The stream changed: the waiters it can answer now are removed and returned, grouped by answer (each distinct
    /// request is decided once, however many wait for it).
    public mutating func release(position: PlaylistPosition?, isEnded: Bool,
                                 resource: (ResourceName) -> ResourceLookup) -> Action {
        guard !entries.isEmpty else { return Action(releases: [], nextDeadline: nil) }
        var releases: [Release] = []
        // Each distinct request seen, and where its waiters go in `releases` (nil: it still waits).
        var asked: [(request: Request, group: Int?)] = []
        var last = 0
        var released: [UInt64] = []
        for (key, entry) in entries {
            if asked.isEmpty || asked[last].request != entry.request {
                if asked.count <= Self.maximumSharedAnswers,
                   let index = asked.firstIndex(where: { $0.request == entry.request }) {
                    last = index
                } else {
                    var group: Int?
                    if let answer = Self.answer(entry.request, position: position, isEnded: isEnded,
                                                resource: resource) {
                        releases.append(Release(answer: answer, waiters: []))
                        group = releases.count - 1
                    }
                    asked.append((entry.request, group))
                    last = asked.count - 1
                }
            }
            if let group = asked[last].group {
                releases[group].waiters.append(entry.waiter)
                released.append(key)
            }
        }
        if released.count == entries.count {
            entries.removeAll(keepingCapacity: true)
        } else {
            for key in released { entries[key] = nil }
        }
        if !released.isEmpty { nextDeadlineChanged() }
        if releases.count > 1 {
            // Media first; the groups are a handful.
            releases = releases.filter { Self.isMedia($0.answer) } + releases.filter { !Self.isMedia($0.answer) }
        }
        return Action(releases: releases, nextDeadline: nextDeadline)
    }

    /// Time passed: the holds whose deadline is at or before `now` end, answered 503, or 404 for a playlist when the
    /// stream has none yet (`hasPlaylist` false: its first segment never came).
    public mutating func expire(now: Duration, hasPlaylist: Bool) -> Action {
        guard let earliest = nextDeadline, earliest <= now else {
            return Action(releases: [], nextDeadline: nextDeadline)
        }
        var unavailable = Release(answer: .unavailable, waiters: [])
        var noPlaylist = Release(answer: Self.noPlaylistYet, waiters: [])
        for (key, entry) in entries where entry.deadline <= now {
            entries[key] = nil
            if case .playlist = entry.request, !hasPlaylist {
                noPlaylist.waiters.append(entry.waiter)
            } else {
                unavailable.waiters.append(entry.waiter)
            }
        }
        nextDeadlineChanged()
        return Action(releases: [unavailable, noPlaylist].filter { !$0.waiters.isEmpty }, nextDeadline: nextDeadline)
    }

    /// The client left: its waiter is removed, unanswered.
    /// - Returns: the waiter and what it asked for, or nil when it is no longer held (answered, or being answered).
    public mutating func cancel(_ key: UInt64) -> (request: Request, waiter: Waiter)? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        if entry.deadline == nextDeadline { nextDeadlineChanged() }
        return (entry.request, entry.waiter)
    }

    /// Every waiter removed, all to be answered `answer` (the stream was replaced by a new publish).
    public mutating func removeAll(answer: Answer) -> Action {
        let waiters = entries.values.map(\.waiter)
        entries.removeAll()
        nextDeadline = nil
        return Action(releases: waiters.isEmpty ? [] : [Release(answer: answer, waiters: waiters)], nextDeadline: nil)
    }

    // MARK: Decisions

    /// The answer to a held request whose hold ended without what it asked for (its deadline passed, or the client
    /// is answered early).
    public static func ended(_ request: Request, hasPlaylist: Bool) -> Answer {
        if case .playlist = request, !hasPlaylist { return noPlaylistYet }
        return .unavailable
    }

    /// The answer to `request` now, or nil while it must wait.
    /// - Parameters:
    ///   - position: where the playlist stands; nil before its first segment.
    ///   - isEnded: whether the stream ended (nothing more will come).
    ///   - resource: what the stream has under a name.
    public static func answer(_ request: Request, position: PlaylistPosition?, isEnded: Bool,
                              resource: (ResourceName) -> ResourceLookup) -> Answer? {
        switch request {
        case .playlist(let directives):
            switch BlockingReload.decide(directives, position: position) {
            case .ready:
                if position == nil { return endedEarly }
                return .playlist(blocking: directives.isBlocking && !isEnded)
            case .hold:
                return isEnded ? endedEarly : nil
            case .badRequest(let reason):
                return .badRequest(reason)
            }
        case .resource(let name):
            switch resource(name) {
            case .available: return .media(name)
            case .pending: return nil
            case .notFound: return .notFound("no such part or segment (it may have left the window)")
            }
        }
    }

    private static var endedEarly: Answer { .notFound("the stream ended before its first segment") }
    private static var noPlaylistYet: Answer { .notFound("the stream has no playlist yet") }

    private static func isMedia(_ answer: Answer) -> Bool {
        if case .media = answer { return true }
        return false
    }

    /// Some waiters were removed: the earliest deadline is that of those left.
    private mutating func nextDeadlineChanged() {
        nextDeadline = entries.values.lazy.map(\.deadline).min()
    }
}
