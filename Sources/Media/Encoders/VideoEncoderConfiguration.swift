/// What to encode: the platform-neutral settings every `VideoEncoder` backend honours.
public struct VideoEncoderConfiguration: Sendable, Hashable {
    /// Largest accepted width or height. H.264 level 6.2 allows 139 264 macroblocks per frame, i.e. 8192x4320.
    public static let maximumDimension = 8192
    /// Highest accepted frame rate.
    public static let maximumFramesPerSecond = 240
    /// Highest accepted bitrate in kbit/s (H.264 High level 6.2 allows 800 000 kbit/s; no live ingest takes more
    /// than a small fraction of it).
    public static let maximumBitrateKbps = 800_000

    /// Picture width in pixels; even, because I420 chroma is subsampled 2x2.
    public var width: Int
    /// Picture height in pixels; even.
    public var height: Int
    /// Nominal frame rate; sets the keyframe cadence and the rate control's frame budget.
    public var framesPerSecond: Int
    /// Target bitrate in kbit/s (1000 bit/s).
    public var bitrateKbps: Int
    /// Seconds between keyframes. Ingests such as YouTube and Twitch ask for 2.
    public var keyframeIntervalSeconds: Int

    /// Creates a configuration.
    /// - Parameters:
    ///   - width: picture width in pixels (even).
    ///   - height: picture height in pixels (even).
    ///   - framesPerSecond: frame rate.
    ///   - bitrateKbps: target bitrate in kbit/s.
    ///   - keyframeIntervalSeconds: seconds between keyframes (default 2).
    public init(width: Int, height: Int, framesPerSecond: Int, bitrateKbps: Int, keyframeIntervalSeconds: Int = 2) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrateKbps = bitrateKbps
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
    }

    /// Frames from one keyframe to the next.
    public var keyframeIntervalFrames: Int { framesPerSecond * keyframeIntervalSeconds }

    /// A short summary for messages, e.g. `1280x720@30 at 2500 kbps`.
    public var summary: String { "\(width)x\(height)@\(framesPerSecond) at \(bitrateKbps) kbps" }

    /// Checks the settings before any codec library sees them.
    /// - Throws: `EncoderError` with code `.invalidConfiguration` naming the bad setting.
    public func validate() throws {
        func fail(_ why: String) -> EncoderError {
            EncoderError(.invalidConfiguration, "cannot encode video \(summary): \(why)")
        }
        guard width > 0, height > 0, width <= Self.maximumDimension, height <= Self.maximumDimension else {
            throw fail("width and height must be between 2 and \(Self.maximumDimension) pixels")
        }
        guard width % 2 == 0, height % 2 == 0 else {
            throw fail("width and height must be even for 4:2:0 video; round the size to even numbers")
        }
        guard framesPerSecond > 0, framesPerSecond <= Self.maximumFramesPerSecond else {
            throw fail("the frame rate must be between 1 and \(Self.maximumFramesPerSecond)")
        }
        try Self.validate(bitrateKbps: bitrateKbps, summary: summary)
        guard keyframeIntervalSeconds > 0, keyframeIntervalSeconds <= 60 else {
            throw fail("the keyframe interval must be between 1 and 60 seconds (ingests expect 2)")
        }
    }

    static func validate(bitrateKbps: Int, summary: String) throws {
        guard bitrateKbps > 0, bitrateKbps <= maximumBitrateKbps else {
            throw EncoderError(
                .invalidConfiguration,
                "cannot encode video \(summary): the bitrate must be between 1 and \(maximumBitrateKbps) kbps")
        }
    }
}
