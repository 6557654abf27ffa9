/// Keeps the bytes handed to the network but not yet sent within a bound, so a slow uplink costs dropped frames
/// instead of memory the extension does not have.
///
/// Audio and sequence headers always go (they are small and a gap in audio is worse than a frozen picture) unless
/// twice the bound is already waiting. When a video frame does not fit, it is dropped and so is every following
/// non-keyframe (they reference it) until a keyframe fits; the encoder is asked for one right away.
public struct SendBudget: Sendable, Hashable {
    /// What is being sent.
    public enum Item: Sendable, Hashable {
        /// Metadata or a sequence header.
        case header
        /// An AAC frame.
        case audio
        /// An H.264 access unit.
        case video(isKeyframe: Bool)
    }

    /// What to do with an item.
    public enum Decision: Sendable, Hashable {
        /// Send it; call `sent(bytes:)` when the network has taken it.
        case send
        /// Drop it; when `requestKeyframe` is true, ask the encoder for a keyframe now.
        case drop(requestKeyframe: Bool)
    }

    /// The bound in bytes.
    public let limitBytes: Int
    /// Bytes handed over and not yet reported sent.
    public private(set) var inFlightBytes = 0
    /// Whether video waits for a keyframe after a drop.
    public private(set) var waitingForKeyframe = false
    /// Video frames dropped so far.
    public private(set) var droppedVideoFrames = 0
    /// Audio frames dropped so far.
    public private(set) var droppedAudioFrames = 0

    /// A budget for a bitrate: `MemoryBudget.sendQueueMilliseconds` of the stream, at least 64 KiB.
    /// - Parameters:
    ///   - videoBitrateKbps: the video bitrate.
    ///   - audioBitrateKbps: the audio bitrate.
    public init(videoBitrateKbps: Int, audioBitrateKbps: Int) {
        let bytes = (max(videoBitrateKbps, 0) + max(audioBitrateKbps, 0)) * MemoryBudget.sendQueueMilliseconds / 8
        self.init(limitBytes: bytes)
    }

    /// A budget with an explicit bound.
    /// - Parameter limitBytes: the bound, at least 64 KiB.
    public init(limitBytes: Int) {
        self.limitBytes = max(limitBytes, 64 * 1024)
    }

    /// Decides whether an item goes out; counts it as in flight when it does.
    /// - Parameters:
    ///   - item: what it is.
    ///   - bytes: its size on the wire.
    public mutating func admit(_ item: Item, bytes: Int) -> Decision {
        let fits = inFlightBytes + bytes <= limitBytes
        switch item {
        case .header:
            return accept(bytes)
        case .audio:
            guard inFlightBytes + bytes <= 2 * limitBytes else {
                droppedAudioFrames += 1
                return .drop(requestKeyframe: false)
            }
            return accept(bytes)
        case .video(isKeyframe: true):
            guard fits else {
                droppedVideoFrames += 1
                waitingForKeyframe = true
                return .drop(requestKeyframe: false)
            }
            waitingForKeyframe = false
            return accept(bytes)
        case .video(isKeyframe: false):
            guard fits, !waitingForKeyframe else {
                droppedVideoFrames += 1
                let first = !waitingForKeyframe
                waitingForKeyframe = true
                return .drop(requestKeyframe: first)
            }
            return accept(bytes)
        }
    }

    /// The network took bytes that were admitted.
    /// - Parameter bytes: the count sent.
    public mutating func sent(bytes: Int) {
        inFlightBytes = max(inFlightBytes - bytes, 0)
    }

    private mutating func accept(_ bytes: Int) -> Decision {
        inFlightBytes += max(bytes, 0)
        return .send
    }
}
