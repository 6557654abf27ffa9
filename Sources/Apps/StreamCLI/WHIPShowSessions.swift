import LiveProtocol
import LiveShows

/// The WHIP sessions admitted into shows (``ServeWHIPShows``), by media tag: each one's ticket, its session id once
/// its offer is answered, and whether it connected. A pure table: time comes in as `now`.
///
/// A session that connected is forgotten when it stops (the WebRTC server always says so). One that never connects
/// is never said to stop, so once the table is full an admission not started within ``pendingLifetime`` is dropped:
/// without that, clients that POST and vanish would fill the table and refuse every later publish.
struct WHIPShowSessions {
    /// Most admissions held: the WebRTC server's own bound is lower, so this is reached only by abandoned ones.
    static let maximum = 4096
    /// How long an admission may wait to connect: past the server's connect (15 s) and DTLS (20 s) deadlines.
    static let pendingLifetime: Duration = .seconds(60)

    private struct Entry {
        var ticket: IngestDirectory.Ticket
        var session: String?
        var admittedAt: Duration
        var started = false
        /// The session of the same picture this one takes over once it connects.
        var replacing: String?
    }

    private var entries: [String: Entry] = [:]

    /// How many are held.
    var count: Int { entries.count }

    /// Admits a session under `tag`; a full table first drops the admissions that never connected in time.
    /// - Returns: false when the table is full (answer 503).
    /// - Parameter replacing: the session of the same picture it takes over (ended once this one connects).
    mutating func admit(_ tag: String, ticket: IngestDirectory.Ticket, now: Duration, replacing: String? = nil) -> Bool {
        if entries.count >= Self.maximum {
            entries = entries.filter { $0.value.started || now - $0.value.admittedAt < Self.pendingLifetime }
        }
        guard entries.count < Self.maximum else { return false }
        entries[tag] = Entry(ticket: ticket, session: nil, admittedAt: now, replacing: replacing)
        return true
    }

    /// The session's offer was answered: its id, for closing it when the show ends.
    mutating func created(_ tag: String, session: String) {
        entries[tag]?.session = session
    }

    /// The offer was refused after all.
    mutating func abandon(_ tag: String) {
        entries[tag] = nil
    }

    /// The session connected: its ticket, to put the picture live, and the session it replaces, to end now (nil:
    /// not a show's session).
    mutating func started(_ tag: String) -> (ticket: IngestDirectory.Ticket, replacing: String?)? {
        guard var entry = entries[tag] else { return nil }
        entry.started = true
        let replacing = entry.replacing
        entry.replacing = nil
        entries[tag] = entry
        return (entry.ticket, replacing)
    }

    /// The session ended: its ticket, to stop the picture (nil: not a show's session).
    mutating func stopped(_ tag: String) -> IngestDirectory.Ticket? {
        entries.removeValue(forKey: tag)?.ticket
    }

    /// The media tag of the connected session publishing the show's `tile` (its WHEP players' source); nil: none.
    func connectedTag(show: String, tile: TileKind) -> String? {
        entries.first { $0.value.started && $0.value.ticket.show == show && $0.value.ticket.tile == tile }?.key
    }

    /// The connected session publishing the show's `tile`: its media tag and session id (the one a new WHIP publish
    /// of that picture replaces); nil: none, or its offer's answer not yet recorded.
    func connectedSession(show: String, tile: TileKind) -> (tag: String, session: String)? {
        guard let (tag, entry) = entries.first(where: { $0.value.started && $0.value.ticket.show == show
                                                   && $0.value.ticket.tile == tile }),
              let session = entry.session else { return nil }
        return (tag, session)
    }

    /// The ids of the show's sessions whose offers were answered.
    func sessions(of show: String) -> [String] {
        entries.values.filter { $0.ticket.show == show }.compactMap(\.session)
    }
}
