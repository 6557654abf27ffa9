import LiveProtocol

/// What the RTMP ingest needs to decide a publish with a show's key, kept up to date by the shows: which show owns
/// each OBS key (by hash), each show's generation and ended flag, and which tiles are being published.
///
/// A pure value: the driver keeps it behind a lock, the shows' facts update it, the ingest reads it.
public struct IngestDirectory: Sendable {
    /// A show as the ingest sees it.
    public struct Entry: Sendable, Hashable {
        /// The show's generation: grants from another one are refused.
        public var generation: Int64
        /// Whether the host ended the show: its OBS key is refused until the host goes live again.
        public var ended: Bool
        /// The hash of its OBS key.
        public var keyHash: String?

        /// Creates an entry.
        public init(generation: Int64, ended: Bool, keyHash: String?) {
            self.generation = generation
            self.ended = ended
            self.keyHash = keyHash
        }
    }

    /// A publisher the directory allowed: what its stop must release.
    public struct Ticket: Sendable, Hashable {
        /// The stream name.
        public var show: String
        /// The picture.
        public var tile: TileKind
        /// The generation it publishes under.
        public var generation: Int64
        /// The OBS key's hash, for an OBS publisher (renewing that key cuts it).
        public var keyHash: String?
    }

    /// The decision on a publish.
    public enum Verdict: Sendable, Hashable {
        /// Not a show's key: the ingest's other rules decide.
        case notAShowKey
        /// Allowed: publishing goes live on this tile.
        case allow(Ticket)
        /// Refused, with the reason for the log (never the key).
        case refuse(String)
    }

    private var shows: [String: Entry] = [:]
    private var keyOwners: [String: String] = [:]
    private var busy: Set<TileAddress> = []

    private struct TileAddress: Hashable {
        var show: String
        var tile: TileKind
    }

    /// Creates an empty directory.
    public init() {}

    /// The entry of a show.
    public func entry(_ show: String) -> Entry? { shows[show] }

    /// Sets a show's entry (after a media or key fact, or at start-up from the store).
    public mutating func update(_ show: String, _ entry: Entry) {
        if let old = shows[show]?.keyHash, old != entry.keyHash { keyOwners[old] = nil }
        if let hash = entry.keyHash { keyOwners[hash] = show }
        shows[show] = entry
    }

    /// Forgets a show that has nothing the ingest needs (no OBS key, never ended, nothing published), so that
    /// looking at many show names does not grow the directory; a show that needs its entry keeps it.
    public mutating func forgetIfPlain(_ show: String) {
        guard let entry = shows[show], entry.keyHash == nil, entry.generation == 0, !entry.ended,
              !busy.contains(where: { $0.show == show }) else { return }
        shows[show] = nil
    }

    /// Decides a publish.
    /// - Parameters:
    ///   - streamKey: the key the publisher gave (a secret: never logged).
    ///   - now: milliseconds since 1970.
    ///   - credentials: to read grants.
    public func authorize(streamKey: String, now: Int64, credentials: IngestCredentials) -> Verdict {
        if streamKey.hasPrefix(IngestCredentials.grantPrefix) {
            guard let claims = credentials.readGrant(streamKey) else { return .refuse("not a valid publish grant") }
            guard now <= claims.expiresAt else { return .refuse("the publish grant expired") }
            guard let entry = shows[claims.show], entry.generation == claims.generation, !entry.ended else {
                return .refuse("the publish grant is from before the show ended")
            }
            guard !busy.contains(TileAddress(show: claims.show, tile: claims.tile)) else {
                return .refuse("the \(claims.tile.rawValue) picture is already being published")
            }
            return .allow(Ticket(show: claims.show, tile: claims.tile, generation: claims.generation, keyHash: nil))
        }
        if streamKey.hasPrefix(IngestCredentials.ingestKeyPrefix) {
            let hash = IngestCredentials.hash(streamKey)
            guard let show = keyOwners[hash], let entry = shows[show], entry.keyHash == hash else {
                return .refuse("unknown or renewed OBS key")
            }
            guard !entry.ended else { return .refuse("the host ended the show: go live again to reopen it") }
            guard !busy.contains(TileAddress(show: show, tile: .obs)) else {
                return .refuse("the OBS picture is already being published")
            }
            return .allow(Ticket(show: show, tile: .obs, generation: entry.generation, keyHash: hash))
        }
        return .notAShowKey
    }

    /// Whether that picture of the show is being published now.
    public func isPublishing(show: String, tile: TileKind) -> Bool {
        busy.contains(TileAddress(show: show, tile: tile))
    }

    /// Marks an allowed publisher as publishing (a second one on the same tile is then refused).
    public mutating func started(_ ticket: Ticket) {
        busy.insert(TileAddress(show: ticket.show, tile: ticket.tile))
    }

    /// Marks a publisher as gone.
    public mutating func stopped(_ ticket: Ticket) {
        busy.remove(TileAddress(show: ticket.show, tile: ticket.tile))
    }
}
