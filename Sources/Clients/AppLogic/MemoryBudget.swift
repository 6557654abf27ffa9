import Encoders
import Engine
import StreamCore

/// The broadcast extension's memory choices. Broadcast upload extensions are killed by jetsam past about 50 MB, and
/// ReplayKit's own in-flight screen surfaces count against that, so every buffer the extension allocates is counted
/// here, allocated once, and the quality steps down when the estimate does not fit.
///
/// The per-item figures are estimates for planning (NV12 frames at 1.5 bytes per pixel, a fixed overhead for code,
/// frameworks and the encoder sessions), not measurements.
public enum MemoryBudget {
    /// The budget: 50 MiB.
    public static let budgetBytes = 50 * 1024 * 1024
    /// Code, frameworks, the Metal-backed `CIContext`, the VideoToolbox and AudioToolbox sessions.
    public static let fixedOverheadBytes = 10 * 1024 * 1024
    /// Screen frames ReplayKit keeps in flight at full screen size.
    public static let screenFramesInFlight = 3
    /// Frames the video encoder may hold at the encode size (the seed's `setVideoInputBufferCounts(5)`):
    /// `kVTCompressionPropertyKey_MaxFrameDelayCount` is set to this.
    public static let encoderFramesInFlight = 5
    /// Buffers of the compositor's `CVPixelBufferPool` at the encode size (only when compositing):
    /// `kCVPixelBufferPoolMinimumBufferCountKey`.
    public static let compositorPoolBuffers = 3
    /// Camera buffers: the capture output's own pool plus the one latest frame the compositor keeps.
    public static let cameraBuffers = 4
    /// Camera frames kept for the compositor: only the latest (`alwaysDiscardsLateVideoFrames` and one slot).
    public static let cameraFramesKept = 1
    /// The capture size of the facecam: the overlay is at most 40 % of a 1080-pixel-wide frame (432 pixels), so
    /// 640 × 480 (`AVCaptureSession.Preset.vga640x480`) is always enough.
    public static let cameraSize = PixelSize(width: 640, height: 480)
    /// The engine's send queue policy, which bounds what waits for the network: video is dropped past
    /// `dropVideoAfterMilliseconds` of queued media, audio only past `hopelessAfterMilliseconds`.
    public static let sendQueuePolicy = SendQueue.Policy()
    /// The mix's sample rate (the AAC encoder's and the `AVAudioConverter`'s target).
    public static let audioSampleRate = 48_000
    /// The mix's channels (interleaved stereo).
    public static let audioChannels = 2

    /// The AAC encoder's configuration on iOS (the extension's and the go-live camera's): the mix's format at the
    /// settings' bitrate.
    /// - Parameter settings: the user's settings.
    public static func audioConfiguration(_ settings: StreamSettings) -> AudioEncoderConfiguration {
        AudioEncoderConfiguration(sampleRate: audioSampleRate, channels: audioChannels,
                                  bitrateKbps: settings.audioBitrateKbps)
    }
    /// The `CIContext` is created once per broadcast, Metal-backed, with no intermediate caching.
    public static let ciContextCount = 1

    /// Bytes of one NV12 (4:2:0, 8-bit) frame.
    /// - Parameter size: the frame size.
    public static func frameBytes(_ size: PixelSize) -> Int {
        size.width * size.height * 3 / 2
    }

    /// The estimated footprint of a broadcast.
    /// - Parameters:
    ///   - screen: the screen size in pixels.
    ///   - encode: the encode size.
    ///   - facecam: whether the camera runs and frames are composited.
    ///   - videoBitrateKbps: the video bitrate (the send queue holds up to the policy's video threshold of it).
    ///   - audioBitrateKbps: the audio bitrate (held up to the policy's hopeless threshold).
    /// - Returns: bytes.
    public static func estimatedBytes(screen: PixelSize, encode: PixelSize, facecam: Bool, videoBitrateKbps: Int,
                                      audioBitrateKbps: Int) -> Int {
        var bytes = fixedOverheadBytes
        bytes += screenFramesInFlight * frameBytes(screen)
        bytes += encoderFramesInFlight * frameBytes(encode)
        if facecam {
            bytes += compositorPoolBuffers * frameBytes(encode)
            bytes += (cameraBuffers + cameraFramesKept) * frameBytes(cameraSize)
        }
        // kbit/s × ms / 8 = bytes.
        bytes += max(videoBitrateKbps, 0) * Int(sendQueuePolicy.dropVideoAfterMilliseconds) / 8
        bytes += max(audioBitrateKbps, 0) * Int(sendQueuePolicy.hopelessAfterMilliseconds) / 8
        bytes += BroadcastOutput.defaultSinkBufferLimit
        return bytes
    }

    /// The quality a broadcast actually uses: the chosen one when it fits the budget, otherwise the highest lower
    /// one that does (e.g. 720p instead of 1080p on an iPad's very large frames), and 480p when nothing fits.
    public struct Plan: Sendable, Hashable {
        /// The quality to encode at.
        public var quality: StreamSettings.Quality
        /// The encode size at that quality.
        public var encodeSize: PixelSize
        /// The estimated footprint.
        public var estimatedBytes: Int
        /// Whether the quality is lower than the one chosen.
        public var steppedDown: Bool

        /// Whether the estimate is within the budget.
        public var fits: Bool { estimatedBytes <= MemoryBudget.budgetBytes }

        /// A note for the settings screen when the quality had to step down, else nil.
        public var note: String? {
            guard steppedDown else { return nil }
            let megabytes = MemoryBudget.budgetBytes / (1024 * 1024)
            return "The chosen quality would exceed the broadcast's ~\(megabytes) MB memory limit on this screen; "
                + "\(quality.rawValue) (\(encodeSize)) is used instead."
        }
    }

    /// Plans a broadcast.
    /// - Parameters:
    ///   - screen: the upright screen size in pixels.
    ///   - settings: quality, bitrates and PiP.
    ///   - facecam: whether the camera will run (`FacecamPlan.startsCamera`).
    public static func plan(screen: PixelSize, settings: StreamSettings, facecam: Bool) -> Plan {
        let qualities = StreamSettings.Quality.allCases.sorted { $0.shortEdge > $1.shortEdge }
            .filter { $0.shortEdge <= settings.quality.shortEdge }
        var last: Plan?
        for quality in qualities {
            let encode = EncodeGeometry.lockedSize(source: screen, shortEdge: quality.shortEdge)
            let bytes = estimatedBytes(screen: screen, encode: encode, facecam: facecam,
                                       videoBitrateKbps: settings.videoBitrateKbps,
                                       audioBitrateKbps: settings.audioBitrateKbps)
            let plan = Plan(quality: quality, encodeSize: encode, estimatedBytes: bytes,
                            steppedDown: quality != settings.quality)
            if plan.fits { return plan }
            last = plan
        }
        // `qualities` always holds at least the chosen quality.
        return last ?? Plan(quality: settings.quality, encodeSize: screen, estimatedBytes: 0, steppedDown: false)
    }
}
