import CoreVideo

/// A camera frame handed from the capture queue to the sample-handler thread.
///
/// `@unchecked Sendable` is safe here: a `CVPixelBuffer` is a reference-counted, internally synchronized Core Video
/// object; the capture output never writes to a buffer after delivering it, and the compositor only reads it.
struct SendablePixelBuffer: @unchecked Sendable {
    let buffer: CVPixelBuffer
    /// When the camera produced it, in host-clock seconds.
    let seconds: Double
}
