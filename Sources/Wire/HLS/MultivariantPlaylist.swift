/// What a multivariant playlist says of one stream (RFC 8216bis §4.4.6.2, EXT-X-STREAM-INF), so a player can choose
/// before it downloads: its bit rates, codecs, picture size and frame rate.
public struct VariantDescription: Sendable, Hashable {
    /// BANDWIDTH: the highest bit rate of a segment of the window (media only, init segments aside).
    public var peakBitsPerSecond: Int
    /// AVERAGE-BANDWIDTH: the bit rate over the window's segments.
    public var averageBitsPerSecond: Int
    /// CODECS (RFC 6381): "avc1.64001f", "mp4a.40.2".
    public var codecs: [String]
    /// RESOLUTION, when there is video.
    public var width: Int?
    public var height: Int?
    /// FRAME-RATE, when there is video: frames per second.
    public var framesPerSecond: Double?

    /// Creates a description.
    public init(peakBitsPerSecond: Int, averageBitsPerSecond: Int, codecs: [String], width: Int? = nil,
                height: Int? = nil, framesPerSecond: Double? = nil) {
        self.peakBitsPerSecond = peakBitsPerSecond
        self.averageBitsPerSecond = averageBitsPerSecond
        self.codecs = codecs
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }
}

/// The multivariant playlist of one stream: a single variant, its media playlist beside it. Players that choose
/// before they download (as Apple's authoring rules expect) learn the codecs, size and bit rate from it; the media
/// playlist stays where it is.
public enum MultivariantPlaylist {
    /// The playlist's text.
    /// - Parameters:
    ///   - variant: the stream's description.
    ///   - uri: the media playlist, relative to the multivariant playlist ("index.m3u8").
    public static func render(_ variant: VariantDescription, uri: String) -> String {
        var attributes = ["BANDWIDTH=\(max(1, variant.peakBitsPerSecond))",
                          "AVERAGE-BANDWIDTH=\(max(1, variant.averageBitsPerSecond))",
                          "CODECS=\"" + variant.codecs.joined(separator: ",") + "\""]
        if let width = variant.width, let height = variant.height {
            attributes.append("RESOLUTION=\(width)x\(height)")
        }
        if let rate = variant.framesPerSecond, rate > 0 {
            attributes.append("FRAME-RATE=" + DecimalText.seconds(Int64((rate * 1000).rounded()), scale: 1000,
                                                                  digits: 3))
        }
        return "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:" + attributes.joined(separator: ",") + "\n"
            + uri + "\n"
    }
}

extension LLHLSPackager {
    /// The stream as a multivariant playlist describes it, from the segments of the window; nil until the first
    /// segment is complete.
    public var variant: VariantDescription? {
        var peak = 0.0
        var bits = 0.0
        var seconds = 0.0
        var frames = 0
        // RFC 8216bis §4.4.6.2: FRAME-RATE is the maximum. The average over the window is lower as soon as the
        // encoder dropped a frame (a segment now spans its holes), so each whole second-or-longer segment's own
        // rate counts, and the average only when no segment is that long.
        var fastest = 0.0
        for segment in segments {
            guard let ticks = segment.durationTicks, ticks > 0 else { continue }
            let segmentBits = Double(segment.byteCount) * 8
            let segmentSeconds = Double(ticks) / 90_000
            peak = max(peak, segmentBits / segmentSeconds)
            bits += segmentBits
            seconds += segmentSeconds
            frames += segment.videoFrames
            if ticks >= 90_000 { fastest = max(fastest, Double(segment.videoFrames) / segmentSeconds) }
        }
        guard seconds > 0, let last = segments.last, let tracks = initTracks(last.initIndex) else { return nil }
        var codecs: [String] = []
        if let video = tracks.video { codecs.append(video.codec) }
        if let audio = tracks.audio { codecs.append("mp4a.40.\(audio.configuration.objectType)") }
        return VariantDescription(peakBitsPerSecond: Int(peak.rounded(.up)),
                                  averageBitsPerSecond: Int((bits / seconds).rounded()), codecs: codecs,
                                  width: tracks.video?.width, height: tracks.video?.height,
                                  framesPerSecond: tracks.video == nil ? nil
                                      : fastest > 0 ? fastest : Double(frames) / seconds)
    }
}
