/// Chunk stream id limits and the ids this module uses by convention.
public enum ChunkStreamID {
    /// RTMP §5.3.1.1: ids 0 and 1 only signal the 2- and 3-byte basic header forms; 2 is the lowest real id.
    public static let minimum: UInt32 = 2
    /// RTMP §5.3.1.1: the 3-byte form reaches 65599 (64 + 65535).
    public static let maximum: UInt32 = 65599
    /// RTMP §5.4: protocol control messages travel on chunk stream 2.
    public static let control: UInt32 = 2
    /// Commands (connect, createStream, publish, ...), as ffmpeg, OBS and nginx-rtmp use.
    public static let command: UInt32 = 3
    /// Audio messages (ffmpeg's and OBS's choice).
    public static let audio: UInt32 = 4
    /// Data messages (`@setDataFrame`) and per-stream commands (publish, play, onStatus).
    public static let data: UInt32 = 5
    /// Video messages.
    public static let video: UInt32 = 6
}
