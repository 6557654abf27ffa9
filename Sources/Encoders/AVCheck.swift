#if canImport(CFFmpeg)
import CFFmpeg

/// libav* return codes as Swift errors: every call into libavcodec/libavutil that can fail goes through here.
enum AVCheck {
    /// The text libavutil has for an error code, e.g. "Invalid argument".
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let found = buffer.withUnsafeMutableBufferPointer { av_strerror(code, $0.baseAddress, $0.count) } == 0
        guard found else { return "libav error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Throws an `EncoderError` when a libav* call returned a negative code.
/// - Parameters:
///   - code: the call's return value.
///   - errorCode: the `EncoderError.Code` to throw.
///   - doing: what was being attempted, e.g. "libavcodec could not open the AAC encoder for 48000 Hz stereo".
/// - Returns: `code` when it is not an error (some calls return a count).
/// - Throws: `EncoderError` with `doing` and libavutil's description of the code.
@discardableResult
func check(_ code: Int32, _ errorCode: EncoderError.Code, _ doing: @autoclosure () -> String) throws -> Int32 {
    guard code < 0 else { return code }
    throw EncoderError(errorCode, "\(doing()): \(AVCheck.describe(code))")
}
#endif
