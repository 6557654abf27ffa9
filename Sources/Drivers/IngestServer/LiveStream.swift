import AMF
import FLV
import RTMP

/// One stream name under one application: its publisher, its players, and what a new player needs first.
///
/// A loop-thread object, owned by ``StreamHub``.
final class LiveStream {
    struct Key: Hashable {
        var app: String
        var name: String
    }

    /// A player and the message stream it plays on.
    struct Player {
        /// Unowned, checked: the connection's tear-down removes the player (``StreamHub/stopPlaying``) before the hub
        /// lets go of the connection, so no entry outlives its connection; if one ever did (a missed tear-down path,
        /// as the second play on one message stream was), the server stops at the check instead of relaying into
        /// freed memory that a peer chose. Unchecked (`unowned(unsafe)`) saved ~1 % of a 4 x 1 relay's samples.
        unowned let connection: ServerConnection
        let streamID: UInt32
        /// True after the player fell behind: video is skipped until the next keyframe.
        var waitingForKeyframe: Bool
    }

    let key: Key
    let keyTag: String
    /// Held strongly and let go in ``detachPublisher()``, which the publisher's tear-down always reaches: a weak
    /// reference would give the connection a side table, and its retains and releases (several per relayed message)
    /// the runtime's slow path.
    private(set) var publisher: ServerConnection?
    private(set) var players: [ObjectIdentifier: Player] = [:]
    private(set) var metadata: AMF0Object?
    private var videoHeader: MediaMessage?
    private var audioHeader: MediaMessage?
    /// Media since the last video keyframe, so that a new player starts with a picture (bounded), as the chunk
    /// bytes the live players got (the body is not kept beside them): players joining replay those shared bytes
    /// instead of each encoding a copy.
    private var groupOfPictures: [SharedMediaChunks] = []
    private var groupOfPicturesBytes = 0
    private var groupOfPicturesOverflowed = false
    /// The recording of the current publish, when the server records.
    var recording: StreamRecording?

    /// The tag its media events carry: ``StreamKeyTag/media(_:app:key:)`` with the server's media tag key, else
    /// ``keyTag``.
    let mediaTag: String

    init(key: Key, mediaTagKey: [UInt8]?) {
        self.key = key
        self.keyTag = StreamKeyTag.tag(key.name)
        mediaTag = mediaTagKey.map { StreamKeyTag.media(key.name, app: key.app, key: $0) } ?? keyTag
    }

    var isLive: Bool { publisher != nil }
    var isEmpty: Bool { publisher == nil && players.isEmpty }

    func attachPublisher(_ connection: ServerConnection) {
        publisher = connection
        metadata = nil
        videoHeader = nil
        audioHeader = nil
        clearGroupOfPictures()
    }

    func detachPublisher() {
        publisher = nil
        clearGroupOfPictures()
        for player in players.values {
            player.connection.endPlay(streamID: player.streamID)
        }
    }

    func addPlayer(_ connection: ServerConnection, streamID: UInt32) {
        players[ObjectIdentifier(connection)] = Player(connection: connection, streamID: streamID,
                                                       waitingForKeyframe: false)
        guard isLive else { return }
        if let metadata { connection.sendMetadata(metadata, streamID: streamID) }
        for header in [videoHeader, audioHeader].compactMap({ $0 }) {
            connection.sendMedia(header, streamID: streamID)
        }
        for index in groupOfPictures.indices {
            connection.sendMedia(sharing: &groupOfPictures[index], streamID: streamID)
            groupOfPictures[index].dropBody()
        }
    }

    func removePlayer(_ connection: ServerConnection) {
        players[ObjectIdentifier(connection)] = nil
    }

    func publishMetadata(_ object: AMF0Object) {
        metadata = object
        for player in players.values {
            player.connection.sendMetadata(object, streamID: player.streamID)
        }
        // The recording stores it as an onMetaData script tag, as nginx-rtmp does.
        recording?.writeMetadata(object)
    }

    /// Relays one audio or video message from the publisher to every player and the recording.
    /// - Parameters:
    ///   - playerQueueLimit: past this many queued bytes a player skips to the next keyframe.
    ///   - budgetShare: when all players' queues together are past the server's budget, each player's share of
    ///     it: a player holding more skips to the next keyframe too. Nil while the budget holds.
    ///   - onBehind: called when a player starts skipping, with its queued bytes.
    func publishMedia(_ message: MediaMessage, playerQueueLimit: Int, budgetShare: Int?,
                      onBehind: (ServerConnection, Int) -> Void) {
        let tag = message.flvTag
        let isVideo = message.kind == .video
        let isKeyframe = tag.isVideoKeyFrame
        let isHeader = tag.isSequenceHeader
        if isHeader {
            if isVideo { videoHeader = message } else if message.kind == .audio { audioHeader = message }
        }
        let limit = min(playerQueueLimit, budgetShare ?? .max)
        // Chunk-encoded once for all players (per chunk size and stream id), not once per player.
        var chunks = SharedMediaChunks(message)
        for (id, var player) in players {
            let connection = player.connection
            if !isHeader && connection.queuedBytes > limit {
                // This player cannot keep up: drop its backlog of frames, resume at a keyframe.
                if !player.waitingForKeyframe {
                    player.waitingForKeyframe = true
                    players[id] = player
                    onBehind(connection, connection.queuedBytes)
                }
                continue
            }
            if player.waitingForKeyframe {
                guard isKeyframe || isHeader || message.kind == .audio else { continue }
                if isKeyframe {
                    player.waitingForKeyframe = false
                    players[id] = player
                }
            }
            connection.sendMedia(sharing: &chunks, streamID: player.streamID)
        }
        if !isHeader {
            remember(chunks, isKeyframe: isKeyframe)
        }
        recording?.write(message, isKeyframe: isKeyframe, isHeader: isHeader,
                         headers: StreamRecording.Headers(metadata: metadata, video: videoHeader, audio: audioHeader))
    }

    private func remember(_ chunks: SharedMediaChunks, isKeyframe: Bool) {
        if isKeyframe {
            clearGroupOfPictures()
        } else if groupOfPicturesOverflowed || groupOfPictures.isEmpty {
            return  // no keyframe to start from yet: a player joining now waits for the next one
        }
        // Players got the message's chunk bytes: joiners replay those, and the body they carry is not kept twice.
        var kept = chunks
        kept.dropBody()
        let bytes = kept.heldByteCount
        guard groupOfPicturesBytes + bytes <= StreamHub.groupOfPicturesLimit else {
            clearGroupOfPictures()
            groupOfPicturesOverflowed = true
            return
        }
        groupOfPictures.append(kept)
        groupOfPicturesBytes += bytes
    }

    private func clearGroupOfPictures() {
        groupOfPictures.removeAll(keepingCapacity: true)
        groupOfPicturesBytes = 0
        groupOfPicturesOverflowed = false
    }
}
