/// Orders what reaches the ingest once it accepts the publish: metadata and the AAC sequence header first, the AVC
/// sequence header as soon as the encoder has produced its parameter sets, then video from a keyframe on (a player
/// cannot decode anything before one). Media before the publish is accepted is dropped: the extension does not
/// buffer while connecting, to stay within its memory.
public struct StreamStartGate: Sendable, Hashable {
    /// Something to send before the item at hand.
    public enum Step: Sendable, Hashable {
        /// `@setDataFrame onMetaData`.
        case metadata
        /// The AAC sequence header (AudioSpecificConfig).
        case audioHeader
        /// The AVC sequence header (SPS and PPS).
        case videoHeader
        /// Ask the video encoder for a keyframe now.
        case requestKeyframe
    }

    /// A media item.
    public enum Item: Sendable, Hashable {
        /// An AAC frame.
        case audio
        /// An H.264 access unit.
        case video(isKeyframe: Bool)
    }

    /// What to do with an item.
    public struct Admission: Sendable, Hashable {
        /// Steps to run first, in order.
        public var before: [Step]
        /// Whether the item itself is sent.
        public var send: Bool

        /// Creates an admission.
        /// - Parameters:
        ///   - before: steps to run first.
        ///   - send: whether the item is sent.
        public init(before: [Step], send: Bool) {
            self.before = before
            self.send = send
        }
    }

    /// Whether the ingest accepted the publish.
    public private(set) var isLive = false
    private var videoHeaderSent = false
    private var videoStarted = false
    private var keyframeRequested = false

    /// Creates a gate for a session that is not live yet.
    public init() {}

    /// The ingest accepted the publish.
    /// - Parameter videoHeaderAvailable: whether the encoder's parameter sets are known.
    /// - Returns: the steps to run now.
    public mutating func published(videoHeaderAvailable: Bool) -> [Step] {
        guard !isLive else { return [] }
        isLive = true
        keyframeRequested = true
        if videoHeaderAvailable {
            videoHeaderSent = true
            return [.metadata, .audioHeader, .videoHeader, .requestKeyframe]
        }
        return [.metadata, .audioHeader, .requestKeyframe]
    }

    /// Decides one item.
    /// - Parameters:
    ///   - item: the encoded item.
    ///   - videoHeaderAvailable: whether the encoder's parameter sets are known now.
    public mutating func admit(_ item: Item, videoHeaderAvailable: Bool) -> Admission {
        guard isLive else { return Admission(before: [], send: false) }
        switch item {
        case .audio:
            return Admission(before: [], send: true)
        case .video(let isKeyframe):
            var before: [Step] = []
            if !videoHeaderSent {
                guard videoHeaderAvailable else { return Admission(before: [], send: false) }
                videoHeaderSent = true
                before.append(.videoHeader)
            }
            if !videoStarted {
                guard isKeyframe else {
                    if !keyframeRequested {
                        keyframeRequested = true
                        before.append(.requestKeyframe)
                    }
                    return Admission(before: before, send: false)
                }
                videoStarted = true
            }
            return Admission(before: before, send: true)
        }
    }
}
