import FLV

/// Which packaged streams each publish feeds, without I/O: a plain publish feeds `/hls/{app}/{tag}/index.m3u8`; a
/// live show's tile feeds `/hls/{stream}/{tile}.m3u8` and, while it is the show's main picture, also
/// `/hls/{stream}/main.m3u8`.
///
/// The main picture follows the show's state machine (``pictures(show:tiles:main:)``, called with each change of
/// the show's tiles or the host's choice): when it switches to another tile the main stream gets a discontinuity
/// and the new tile's sequence headers, and goes on from that tile's next keyframe; when the show has no main
/// picture any more (its last tile stopped, or the host ended it) the main stream ends (EXT-X-ENDLIST).
///
/// Publishes are named as the ingest names them: the application and the key's one-way tag.
public struct HLSPublishRouter: Sendable {
    /// What the origin is to do.
    public enum Action: Sendable, Equatable {
        /// A packaged stream starts (a new publish: any earlier one of that ID is replaced).
        case start(HLSStreamID)
        /// A tag for a packaged stream.
        case append(FLVTag, HLSStreamID)
        /// The packaged stream's source changes: the next tags are another publisher's.
        case discontinuity(HLSStreamID)
        /// The packaged stream ended.
        case stop(HLSStreamID)
    }

    /// A publish as the ingest names it.
    public struct Publish: Sendable, Hashable {
        /// The RTMP application.
        public var app: String
        /// The publish's media tag (32 hex digits, `StreamKeyTag.media`).
        public var keyTag: String

        /// Creates a name.
        public init(app: String, keyTag: String) {
            self.app = app
            self.keyTag = keyTag
        }
    }

    private struct Tile: Sendable {
        var show: String
        var tile: String
        /// The last sequence headers: a main picture switching to this tile starts with them.
        var videoHeader: FLVTag?
        var audioHeader: FLVTag?
    }

    private struct ShowPictures: Sendable {
        /// The tile the main stream carries now, if it runs.
        var main: String?
    }

    /// Show tiles announced by the publish gate, by publish, before their publish starts.
    private var expected: [Publish: (show: String, tile: String)] = [:]
    /// Live publishes and the stream they feed.
    private var plain: [Publish: HLSStreamID] = [:]
    private var tiles: [Publish: Tile] = [:]
    private var shows: [String: ShowPictures] = [:]

    /// The most admissions waiting for their publish to start.
    static let maximumExpected = 256

    /// Creates a router with nothing live.
    public init() {}

    /// Whether a live publish is a plain one (its own LL-HLS address), not a show's tile (served behind tokens).
    public func isPlain(_ publish: Publish) -> Bool {
        plain[publish] != nil
    }

    /// The show and tile a live publish feeds, when it is a show's tile (nil for a plain publish or none).
    public func showTile(of publish: Publish) -> (show: String, tile: String)? {
        tiles[publish].map { ($0.show, $0.tile) }
    }

    /// The publish with `keyTag` on `app` is a show's tile (the publish gate admitted it): when it starts it
    /// feeds that tile's stream rather than a plain one.
    public mutating func expect(_ publish: Publish, show: String, tile: String) {
        // Admissions whose publish never started (refused after the gate, or the peer left) are forgotten in bulk.
        if expected.count >= Self.maximumExpected { expected.removeAll() }
        expected[publish] = (show, tile)
    }

    /// A publish started.
    /// - Returns: the actions, and the stream it feeds (nil if its names make no address).
    public mutating func publishStarted(_ publish: Publish) -> (actions: [Action], id: HLSStreamID?) {
        var actions = stop(publish)
        if let (show, tile) = expected.removeValue(forKey: publish) {
            guard let id = HLSStreamID(show: show, picture: tile) else { return (actions, nil) }
            tiles[publish] = Tile(show: show, tile: tile)
            actions.append(.start(id))
            return (actions, id)
        }
        guard let id = HLSStreamID(app: publish.app, tag: publish.keyTag) else { return (actions, nil) }
        plain[publish] = id
        actions.append(.start(id))
        return (actions, id)
    }

    /// One tag of a publish.
    public mutating func tag(_ tag: FLVTag, of publish: Publish) -> [Action] {
        if let id = plain[publish] { return [.append(tag, id)] }
        guard var tile = tiles[publish], let id = HLSStreamID(show: tile.show, picture: tile.tile) else { return [] }
        if tag.isSequenceHeader {
            if tag.type == .video { tile.videoHeader = tag } else if tag.type == .audio { tile.audioHeader = tag }
            tiles[publish] = tile
        }
        var actions: [Action] = [.append(tag, id)]
        if shows[tile.show]?.main == tile.tile,
           let main = HLSStreamID(show: tile.show, picture: HLSStreamID.mainPicture) {
            actions.append(.append(tag, main))
        }
        return actions
    }

    /// A publish stopped: its stream ends. (A show's main picture ends when the show says it has none.)
    public mutating func publishStopped(_ publish: Publish) -> [Action] {
        stop(publish)
    }

    /// The show's tiles or the host's choice changed.
    /// - Parameters:
    ///   - show: the stream's name.
    ///   - tiles: the published tiles' names.
    ///   - main: the main picture's tile, nil when nothing is published.
    public mutating func pictures(show: String, tiles published: [String], main: String?) -> [Action] {
        guard let mainID = HLSStreamID(show: show, picture: HLSStreamID.mainPicture) else { return [] }
        let current = shows[show]?.main
        guard main != current else { return [] }
        guard let main, published.contains(main) else {
            shows[show] = nil
            return current == nil ? [] : [.stop(mainID)]
        }
        shows[show] = ShowPictures(main: main)
        var actions: [Action] = current == nil ? [.start(mainID)] : [.discontinuity(mainID)]
        if let source = tiles.values.first(where: { $0.show == show && $0.tile == main }) {
            for header in [source.videoHeader, source.audioHeader].compactMap({ $0 }) {
                actions.append(.append(header, mainID))
            }
        }
        return actions
    }

    private mutating func stop(_ publish: Publish) -> [Action] {
        if let id = plain.removeValue(forKey: publish) { return [.stop(id)] }
        if let tile = tiles.removeValue(forKey: publish), let id = HLSStreamID(show: tile.show, picture: tile.tile) {
            return [.stop(id)]
        }
        return []
    }
}
