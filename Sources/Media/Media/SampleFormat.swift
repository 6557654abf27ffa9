/// How one PCM sample is stored.
public enum SampleFormat: Sendable, Hashable, CustomStringConvertible {
    /// Signed 16-bit integers, native (little) endian.
    case int16
    /// 32-bit IEEE floats, nominally in -1...1.
    case float32

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .float32: 4
        }
    }

    /// "s16" or "f32", as ffmpeg names them.
    public var description: String {
        switch self {
        case .int16: "s16"
        case .float32: "f32"
        }
    }
}
