/// An H.264 encoder for live streaming: pictures in, access units out (Annex B, or length-prefixed as the packet says).
///
/// Backends: `X264Encoder` (libx264, Linux) and, on Apple platforms, VideoToolbox. An encoder is a single-owner
/// object: use it from one actor or thread.
public protocol VideoEncoder: AnyObject {
    /// The settings the encoder was opened with; `bitrateKbps` follows `setBitrate(kbps:)`.
    var configuration: VideoEncoderConfiguration { get }

    /// The SPS and PPS for the AVC sequence header, or nil until the backend knows them.
    var parameterSets: H264ParameterSets? { get }

    /// Encodes one picture.
    /// - Parameters:
    ///   - picture: an I420 picture of the configured size.
    ///   - pts: presentation time in milliseconds; must increase from picture to picture.
    /// - Returns: the access units that became ready (zero or more; not necessarily for this picture).
    /// - Throws: `EncoderError` for a wrong-sized picture, a non-increasing pts or a codec failure.
    func encode(_ picture: I420Planes, pts: Int64) throws -> [EncodedVideoPacket]

    /// Drains the pictures the encoder still holds; afterwards it takes no more input.
    /// - Returns: the remaining access units in decode order.
    /// - Throws: `EncoderError` on a codec failure.
    func flush() throws -> [EncodedVideoPacket]

    /// Changes the target bitrate from the next picture on (adaptive bitrate).
    /// - Parameter kbps: the new target in kbit/s.
    /// - Throws: `EncoderError` (`.invalidConfiguration` or `.reconfigureFailed`); the old bitrate stays.
    func setBitrate(kbps: Int) throws

    /// Makes the next encoded picture an IDR keyframe with SPS and PPS, e.g. after a reconnect.
    func forceKeyframe()
}
