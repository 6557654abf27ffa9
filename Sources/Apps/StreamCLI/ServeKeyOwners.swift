import IngestServer
import Locking

/// Which publishes are live over RTMP and over WHIP, by app and media tag (a keyed hash of the key, never the key).
/// An RTMP and a WHIP publish with one key would feed one LL-HLS stream, so while one is live the other is refused:
/// RTMP as a second RTMP publisher is ("already publishing"), WHIP with 409.
final class ServeKeyOwners: Sendable {
    private let rtmp = Locked(Set<String>())
    private let whip = Locked(Set<String>())

    /// Refuses RTMP publishes of keys live over WHIP and learns which are live over RTMP. Call after the LL-HLS
    /// side set the media tag key (``ServeHLS/configureIngest(_:shows:mediaTagKey:)``).
    func configureIngest(_ configuration: inout RTMPServer.Configuration) {
        guard let tagKey = configuration.mediaTagKey else { return }
        let whip = self.whip
        let rtmp = self.rtmp
        let gate = configuration.publishGate
        configuration.publishGate = PublishGate(authorize: { app, key in
            if whip.withLock({ $0.contains(Self.stream(app, StreamKeyTag.media(key, app: app, key: tagKey))) }) {
                return .refuse("already publishing over WHIP")
            }
            return gate?.authorize(app, key) ?? .pass
        }, started: { id in gate?.started(id) }, stopped: { id in gate?.stopped(id) })
        let previous = configuration.onMedia
        configuration.onMedia = { event in
            switch event {
            case .publishStarted(let app, let tag): rtmp.withLock { _ = $0.insert(Self.stream(app, tag)) }
            case .publishStopped(let app, let tag): rtmp.withLock { _ = $0.remove(Self.stream(app, tag)) }
            case .tag: break
            }
            previous?(event)
        }
    }

    /// Whether the publish with this media tag is live over RTMP.
    func isLiveOverRTMP(app: String, tag: String) -> Bool {
        rtmp.withLock { $0.contains(Self.stream(app, tag)) }
    }

    /// A WHIP publish's media started or stopped.
    func whip(app: String, tag: String, live: Bool) {
        whip.withLock { set in
            if live { set.insert(Self.stream(app, tag)) } else { set.remove(Self.stream(app, tag)) }
        }
    }

    private static func stream(_ app: String, _ tag: String) -> String { app + "/" + tag }
}
