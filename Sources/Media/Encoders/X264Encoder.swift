#if canImport(CX264)
import CX264

/// H.264 through libx264, tuned for live streaming to RTMP ingests.
///
/// Choices (see `X264Options` for preset, tune, profile and threads):
/// - **Timestamps** are milliseconds and pass through x264 unchanged. Rate control budgets `1 / framesPerSecond`
///   per picture (x264's `b_vfr_input` off, as `zerolatency` sets it): budgeting by timestamps would hold every
///   picture back until the next one arrives, one frame of latency. A source that delivers fewer pictures than
///   `framesPerSecond` therefore gets proportionally fewer bits.
/// - **Keyframes** exactly every `keyframeIntervalSeconds * framesPerSecond` pictures: scene-cut detection is off
///   so the cadence ingests expect (2 s) never drifts; `forceKeyframe()` starts a new cadence from that picture.
/// - **Rate control** is ABR capped by VBV with max rate = target and a 1-second buffer, which is what "CBR" means
///   to RTMP ingests without wasting bits on filler. `setBitrate(kbps:)` changes all three live.
/// - **Headers** are repeated before every keyframe (players may join at any keyframe), Annex B start codes.
///
/// Owns its `x264_t`; not `Sendable`: use it from one actor or thread.
public final class X264Encoder: VideoEncoder {
    /// NAL unit types (ITU-T H.264 Table 7-1) this encoder picks out of x264's headers.
    private static let nalTypeSPS: Int32 = 7
    private static let nalTypePPS: Int32 = 8

    /// The settings in use; `bitrateKbps` follows `setBitrate(kbps:)`.
    public private(set) var configuration: VideoEncoderConfiguration
    /// The x264 options the encoder was opened with.
    public let options: X264Options
    /// The sequence parameter set NAL unit (without start code), for the AVC sequence header.
    public let sps: [UInt8]
    /// The picture parameter set NAL unit (without start code), for the AVC sequence header.
    public let pps: [UInt8]

    /// SPS and PPS together; never nil for x264 (known as soon as the encoder opens).
    public var parameterSets: H264ParameterSets? { H264ParameterSets(sps: sps, pps: pps) }

    private let encoder: OpaquePointer
    private let log: X264Log
    private var keyframeRequested = false
    private var lastPTS: Int64?
    private var finished = false

    /// Opens an encoder.
    /// - Parameters:
    ///   - configuration: size, frame rate, bitrate and keyframe interval.
    ///   - options: x264 preset, tune, profile and threads (live defaults).
    /// - Throws: `EncoderError` `.invalidConfiguration` for impossible settings or an unknown preset/tune/profile,
    ///   `.openFailed` when x264 refuses to open.
    public init(configuration: VideoEncoderConfiguration, options: X264Options = X264Options()) throws {
        try configuration.validate()
        let summary = configuration.summary
        guard options.threads >= 0, options.threads <= 64 else {
            throw EncoderError(.invalidConfiguration,
                               "cannot encode video \(summary): x264 threads must be 0 (automatic) to 64")
        }
        try Self.checkName(options.preset, of: "preset", in: stream_x264_preset_names(), summary: summary)
        for tune in (options.tune ?? "").split(whereSeparator: { ",./-+".contains($0) }) {
            try Self.checkName(String(tune), of: "tune", in: stream_x264_tune_names(), summary: summary)
        }
        try Self.checkName(options.profile, of: "profile", in: stream_x264_profile_names(), summary: summary)
        let log = X264Log()
        var param = x264_param_t()
        guard x264_param_default_preset(&param, options.preset, options.tune) == 0 else {
            throw EncoderError(.invalidConfiguration, "cannot encode video \(summary): x264 refused preset "
                + "'\(options.preset)' with tune '\(options.tune ?? "none")'; use at most one of film, animation, "
                + "grain, stillimage, psnr, ssim, plus fastdecode or zerolatency")
        }
        log.attach(to: &param)

        param.i_threads = Int32(options.threads)
        param.i_width = Int32(configuration.width)
        param.i_height = Int32(configuration.height)
        param.i_csp = X264_CSP_I420
        param.i_fps_num = UInt32(configuration.framesPerSecond)
        param.i_fps_den = 1
        param.b_vfr_input = 0

        param.i_keyint_max = Int32(configuration.keyframeIntervalFrames)
        // x264 clamps keyint_min to keyint_max / 2 + 1; with scene cuts off it never places a keyframe early anyway.
        param.i_keyint_min = Int32(configuration.keyframeIntervalFrames)
        param.i_scenecut_threshold = 0
        param.b_open_gop = 0

        param.rc.i_rc_method = X264_RC_ABR
        Self.applyBitrate(configuration.bitrateKbps, to: &param)

        param.b_repeat_headers = 1
        param.b_annexb = 1

        guard x264_param_apply_profile(&param, options.profile) == 0 else {
            throw EncoderError(.invalidConfiguration, "cannot encode video \(summary): x264 cannot apply profile "
                + "'\(options.profile)' to 8-bit 4:2:0 video; use baseline, main or high")
        }
        guard let encoder = stream_x264_encoder_open(&param) else {
            throw EncoderError(.openFailed,
                               "x264 could not open an encoder for \(summary): \(log.drain())")
        }
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        var sps: [UInt8] = []
        var pps: [UInt8] = []
        if x264_encoder_headers(encoder, &nals, &count) >= 0, let nals {
            for nal in UnsafeBufferPointer(start: nals, count: Int(count)) {
                let bytes = Self.stripStartCode(UnsafeBufferPointer(start: nal.p_payload, count: Int(nal.i_payload)))
                if nal.i_type == Self.nalTypeSPS { sps = bytes }
                if nal.i_type == Self.nalTypePPS { pps = bytes }
            }
        }
        guard !sps.isEmpty, !pps.isEmpty else {
            // Not yet owned by `self` (deinit will not run): close it here.
            x264_encoder_close(encoder)
            throw EncoderError(.openFailed,
                               "x264 opened an encoder for \(summary) but gave no SPS/PPS: \(log.drain())")
        }
        self.encoder = encoder
        self.log = log
        self.configuration = configuration
        self.options = options
        self.sps = sps
        self.pps = pps
    }

    deinit {
        x264_encoder_close(encoder)
    }

    /// Keeps this process's memory in ordinary 4 KiB pages: x264 asks for transparent huge pages on each frame
    /// buffer of 1.75 MB or more, and a 2 MB huge page is resident whole, padding included. At 720p that is ~6 MB of
    /// resident memory for no measurable speed (same CPU time in and out of huge pages on this machine). Affects the
    /// whole process and its children from then on; call it before opening an encoder.
    /// - Returns: false when the kernel refuses (then huge pages stay as they were).
    @discardableResult
    public static func avoidHugePages() -> Bool {
        stream_disable_transparent_huge_pages() == 0
    }

    /// Encodes one picture. With `zerolatency` the access unit comes back from the same call; other tunes may return
    /// nothing for the first pictures and catch up later (and in `flush()`).
    /// - Parameters:
    ///   - picture: an I420 picture of the configured size.
    ///   - pts: presentation time in milliseconds, strictly increasing.
    /// - Returns: zero or one access unit.
    /// - Throws: `EncoderError` `.invalidInput` for a wrong size, short strides or a non-increasing pts,
    ///   `.finished` after `flush()`, `.encodeFailed` when x264 fails.
    public func encode(_ picture: I420Planes, pts: Int64) throws -> [EncodedVideoPacket] {
        guard !finished else { throw EncoderError(.finished, "the video encoder was flushed; open a new one") }
        guard picture.width == configuration.width, picture.height == configuration.height else {
            throw EncoderError(.invalidInput, "a \(picture.width)x\(picture.height) picture reached a video encoder "
                + "opened for \(configuration.width)x\(configuration.height); scale pictures to the encode size")
        }
        guard picture.yStride >= picture.width, picture.uStride >= picture.chromaWidth,
              picture.vStride >= picture.chromaWidth, picture.yStride <= Int(Int32.max),
              picture.uStride <= Int(Int32.max), picture.vStride <= Int(Int32.max) else {
            throw EncoderError(.invalidInput, "an I420 picture has a stride shorter than its width")
        }
        if let lastPTS, pts <= lastPTS {
            throw EncoderError(.invalidInput,
                               "video pts \(pts) ms does not increase (previous \(lastPTS) ms); drop the picture")
        }
        var input = x264_picture_t()
        x264_picture_init(&input)
        input.img.i_csp = X264_CSP_I420
        input.img.i_plane = 3
        // x264 only reads the input planes (it copies them into its own frame), so casting away const is safe.
        input.img.plane = (UnsafeMutablePointer(mutating: picture.y), UnsafeMutablePointer(mutating: picture.u),
                           UnsafeMutablePointer(mutating: picture.v), nil)
        input.img.i_stride = (Int32(picture.yStride), Int32(picture.uStride), Int32(picture.vStride), 0)
        input.i_pts = pts
        if keyframeRequested {
            input.i_type = X264_TYPE_IDR
        }
        let packets = try encode(&input)
        keyframeRequested = false
        lastPTS = pts
        return packets
    }

    /// Drains delayed pictures (none under `zerolatency`); afterwards `encode` throws `.finished`.
    /// - Returns: the remaining access units in decode order.
    /// - Throws: `EncoderError` `.encodeFailed` when x264 fails.
    public func flush() throws -> [EncodedVideoPacket] {
        finished = true
        var packets: [EncodedVideoPacket] = []
        while x264_encoder_delayed_frames(encoder) > 0 {
            let drained = try encode(nil)
            if drained.isEmpty { break }
            packets += drained
        }
        return packets
    }

    /// Changes the target bitrate, VBV max rate and VBV buffer (1 s) from the next picture on.
    /// - Parameter kbps: the new target in kbit/s.
    /// - Throws: `EncoderError` `.invalidConfiguration` for an out-of-range value, `.reconfigureFailed` when x264
    ///   refuses; the previous bitrate then stays in effect.
    public func setBitrate(kbps: Int) throws {
        try VideoEncoderConfiguration.validate(bitrateKbps: kbps, summary: configuration.summary)
        var param = x264_param_t()
        x264_encoder_parameters(encoder, &param)
        Self.applyBitrate(kbps, to: &param)
        guard x264_encoder_reconfig(encoder, &param) >= 0 else {
            throw EncoderError(.reconfigureFailed, "x264 refused to change the bitrate of \(configuration.summary) "
                + "to \(kbps) kbps: \(log.drain())")
        }
        configuration.bitrateKbps = kbps
    }

    /// Makes the next picture given to `encode` an IDR keyframe (with SPS and PPS); the regular keyframe cadence
    /// restarts from it.
    public func forceKeyframe() {
        keyframeRequested = true
    }

    // MARK: - Private

    /// Checks a preset, tune or profile name against x264's own list, so a typo becomes an `EncoderError` instead
    /// of a line x264 prints on stderr.
    private static func checkName(_ name: String, of kind: String, in list: UnsafePointer<UnsafePointer<CChar>?>?,
                                  summary: String) throws {
        var known: [String] = []
        var index = 0
        while let list, let entry = list[index] {
            known.append(String(cString: entry))
            index += 1
        }
        guard known.contains(name) else {
            throw EncoderError(.invalidConfiguration, "cannot encode video \(summary): x264 has no \(kind) "
                + "'\(name)'; use one of \(known.joined(separator: ", "))")
        }
    }

    private static func applyBitrate(_ kbps: Int, to param: inout x264_param_t) {
        param.rc.i_bitrate = Int32(kbps)
        param.rc.i_vbv_max_bitrate = Int32(kbps)
        param.rc.i_vbv_buffer_size = Int32(kbps)  // kbit: one second at the target rate
    }

    /// Runs `x264_encoder_encode` with a picture, or nil to drain, and copies out the access unit if any.
    private func encode(_ input: UnsafeMutablePointer<x264_picture_t>?) throws -> [EncodedVideoPacket] {
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        var output = x264_picture_t()
        let size = x264_encoder_encode(encoder, &nals, &count, input, &output)
        guard size >= 0 else {
            throw EncoderError(.encodeFailed, "x264 failed to encode a picture of \(configuration.summary): "
                + log.drain())
        }
        guard size > 0, let nals, count > 0 else { return [] }
        // x264 guarantees the payloads of one call are contiguous, starting at the first NAL's payload.
        let data = Array(UnsafeBufferPointer(start: nals[0].p_payload, count: Int(size)))
        return [EncodedVideoPacket(data: data, pts: output.i_pts, dts: output.i_dts,
                                   isKeyframe: output.b_keyframe != 0)]
    }

    /// Drops the leading `00 00 01` or `00 00 00 01` of an Annex B NAL unit.
    private static func stripStartCode(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var index = 0
        while index < bytes.count, bytes[index] == 0 { index += 1 }
        if index >= 2, index < bytes.count, bytes[index] == 1 { return Array(bytes[(index + 1)...]) }
        return Array(bytes)
    }
}
#endif
