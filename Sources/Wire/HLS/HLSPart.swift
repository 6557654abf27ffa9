/// A complete partial segment: one CMAF chunk (`moof` + `mdat`) of audio and video.
public struct HLSPart: Sendable, Hashable {
    /// Its place in its parent segment, from 0.
    public let index: Int
    /// Its duration in 90 kHz ticks (the lead track's time it covers).
    public let durationTicks: Int64
    /// Whether it starts with a keyframe (INDEPENDENT=YES).
    public let isIndependent: Bool
    /// The chunk's bytes.
    public let bytes: [UInt8]
}

/// A media segment of the window: its parts, and once closed its exact duration.
public struct HLSSegment: Sendable, Hashable {
    /// Its media sequence number.
    public let msn: Int
    /// Where it starts on the stream's 90 kHz output timeline.
    public let startTicks: Int64
    /// The wall-clock time of its start.
    public let programDateTime: ProgramDateTime
    /// The init segment version its media needs.
    public let initIndex: Int
    /// Whether an EXT-X-DISCONTINUITY goes before it (a new source or configuration).
    public let isDiscontinuity: Bool
    /// Its parts so far.
    public internal(set) var parts: [HLSPart]
    /// Its duration in 90 kHz ticks once closed (from its start to the next segment's start); nil while open.
    public internal(set) var durationTicks: Int64?
    /// The video frames in its parts (for the frame rate a multivariant playlist states).
    public internal(set) var videoFrames = 0

    /// The bytes of all its parts.
    public var byteCount: Int { parts.reduce(0) { $0 + $1.bytes.count } }

    /// The duration of its parts so far.
    var partTicks: Int64 { parts.reduce(0) { $0 + $1.durationTicks } }
}
