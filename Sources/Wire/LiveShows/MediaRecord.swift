import LiveProtocol

/// A show's pictures as the store keeps them: which tiles are published, whether the host ended the show, the
/// generation (raised by every `end()`, so grants and publishers from before it are refused) and the host's
/// choice of main picture. The show's state follows from it.
public struct MediaRecord: Sendable, Hashable {
    /// The published tiles.
    public var tiles: Set<TileKind>
    /// Whether the host ended the show (until the host goes live again).
    public var ended: Bool
    /// Raised by every `end()`.
    public var generation: Int64
    /// The host's choice of main picture, if any.
    public var mainChoice: TileKind?

    /// Creates a record.
    public init(tiles: Set<TileKind> = [], ended: Bool = false, generation: Int64 = 0, mainChoice: TileKind? = nil) {
        self.tiles = tiles
        self.ended = ended
        self.generation = generation
        self.mainChoice = mainChoice
    }

    /// Live while any picture is published; else ended if the host ended it; else idle.
    public var state: ShowState {
        if !tiles.isEmpty { return .live }
        return ended ? .ended : .idle
    }

    /// The main picture.
    public var main: TileKind? { TileKind.main(of: tiles, choice: mainChoice) }

    /// The published tiles in list order.
    public var sortedTiles: [TileKind] { tiles.sorted() }

    /// The record after a write, as every store computes it (a store may run this in its transaction, or express
    /// the same rule in SQL).
    /// - Returns: the new record, or nil when the write does not concern media (or is stale: a tile change from
    ///   an older generation is ignored).
    public func applying(_ write: StoreWrite) -> MediaRecord? {
        var next = self
        switch write {
        case .tileStarted(let tile, let generation):
            guard generation == self.generation else { return nil }
            next.tiles.insert(tile)
            next.ended = false
        case .tileStopped(let tile, let generation):
            guard generation == self.generation else { return nil }
            next.tiles.remove(tile)
        case .end:
            next.tiles = []
            next.ended = true
            next.generation += 1
            next.mainChoice = nil
        case .reopen:
            next.ended = false
        case .setMain(let tile):
            next.mainChoice = tile
        case .message, .deleteMessage, .clearChat, .pin, .slow, .ban, .unban, .timeout, .kick, .reaction, .ingestKey:
            return nil
        }
        return next
    }
}

/// A show's OBS key as stored: only its SHA-256 and the nonce it was derived from (the key itself can be derived
/// again only with the server's secret, which the store never sees).
public struct IngestKeyRecord: Sendable, Hashable {
    /// SHA-256 of the key, in hex.
    public var hash: String
    /// The random nonce the key was derived from, in hex.
    public var nonce: String

    /// Creates a record.
    public init(hash: String, nonce: String) {
        self.hash = hash
        self.nonce = nonce
    }
}

extension MediaRecord {
    /// The tiles as a store's integer column keeps them: bit n for `TileKind.allCases[n]`.
    public static func tiles(fromBits bits: Int64) -> Set<TileKind> {
        Set(TileKind.allCases.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element))
    }

    /// The integer column of ``tiles(fromBits:)``.
    public static func bits(of tiles: Set<TileKind>) -> Int64 {
        TileKind.allCases.enumerated().reduce(0) { tiles.contains($1.element) ? $0 | (1 << $1.offset) : $0 }
    }
}
