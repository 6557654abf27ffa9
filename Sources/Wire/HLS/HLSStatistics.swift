/// Counters of what a packager skipped or dropped, each for a stated reason.
public struct HLSStatistics: Sendable, Hashable {
    /// Tags that could not be read (malformed, unsupported codec, frame before its sequence header); skipped.
    public var rejectedTags = 0
    /// Video frames before the first keyframe of the stream or of a new source; a segment starts on a keyframe.
    public var framesBeforeKeyframe = 0
    /// Audio frames dropped before the stream started (more than a second ahead of the first keyframe, or earlier
    /// than it) or of a track the current init segment does not describe.
    public var droppedAudioFrames = 0
    /// Segments that left the window (their parts too); requests for them get 404.
    public var segmentsDropped = 0
    /// Of those, segments dropped early because the window held more than ``HLSConfiguration/maximumWindowBytes``.
    public var segmentsDroppedForMemory = 0
    /// Segments cut without a keyframe because the keyframe interval outgrew the target duration.
    public var forcedSegmentCuts = 0
    /// Video decode times that went backwards and were moved forward.
    public var reorderedTimestamps = 0
    /// Gaps in the video (frames the publisher dropped) after a part closed, filled by starting the next frame
    /// where that part ended.
    public var filledHoles = 0
    /// Stalls in the video longer than a part can hold: the segment ends at the last frame before, and the next
    /// one starts with the frame after (a gap in the timeline between them).
    public var stalls = 0

    /// Creates zeroed counters.
    public init() {}
}
