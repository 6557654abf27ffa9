#if canImport(CFFmpeg)
import CFFmpeg

/// AAC-LC through libavcodec's native encoder.
///
/// Takes interleaved Float32 PCM in chunks of any size, de-interleaves it straight into the planar (FLTP) frame the
/// encoder wants, and sends a frame whenever 1024 samples per channel are collected. Timestamps count samples from
/// the first input sample. The encoder holds one frame back (priming): the first `encode` calls return no packet and
/// `flush()` returns the tail, including a short last frame for the leftover samples.
///
/// Owns its `AVCodecContext`, `AVFrame` and `AVPacket`; not `Sendable`: use it from one actor or thread.
public final class AACEncoder: AudioEncoder {
    /// The settings the encoder was opened with.
    public let configuration: AudioEncoderConfiguration
    /// The AudioSpecificConfig from the encoder's extradata, e.g. `11 90` for 48 kHz stereo AAC-LC.
    public let audioSpecificConfig: [UInt8]
    /// Samples per channel in one AAC frame (1024).
    public let frameSize: Int
    /// Samples the decoder drops at the start (libavcodec's `initial_padding`, 1024).
    public let primingSamples: Int

    private let context: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// Samples per channel already written into `frame`.
    private var filled = 0
    /// Samples per channel sent to the encoder so far: the pts of the next frame.
    private var samplesSent: Int64 = 0
    private var finished = false

    /// Opens an encoder.
    /// - Parameter configuration: sample rate, channel count and bitrate.
    /// - Throws: `EncoderError` `.invalidConfiguration` for unsupported settings, `.openFailed` when libavcodec has
    ///   no AAC encoder or refuses the settings.
    public init(configuration: AudioEncoderConfiguration) throws {
        try configuration.validate()
        let summary = configuration.summary
        // libavcodec logs statistics ("Qavg: …") to stderr at close; errors reach the user through EncoderError.
        av_log_set_level(AV_LOG_ERROR)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            throw EncoderError(.openFailed, "libavcodec has no AAC encoder; install a complete libavcodec")
        }
        var contextOrNil = avcodec_alloc_context3(codec)
        var frameOrNil = av_frame_alloc()
        var packetOrNil = av_packet_alloc()
        func freeAll() {
            av_packet_free(&packetOrNil)
            av_frame_free(&frameOrNil)
            avcodec_free_context(&contextOrNil)
        }
        guard let context = contextOrNil, let frame = frameOrNil, let packet = packetOrNil else {
            freeAll()
            throw EncoderError(.openFailed, "libavcodec could not allocate an AAC encoder (out of memory)")
        }
        do {
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(configuration.sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(configuration.channels))
            context.pointee.bit_rate = Int64(configuration.bitrateKbps) * 1000
            context.pointee.profile = FF_PROFILE_AAC_LOW
            context.pointee.time_base = AVRational(num: 1, den: Int32(configuration.sampleRate))
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            try check(avcodec_open2(context, codec, nil), .openFailed,
                      "libavcodec could not open the AAC encoder for \(summary)")
            guard context.pointee.frame_size > 0, let extradata = context.pointee.extradata,
                  context.pointee.extradata_size >= 2 else {
                throw EncoderError(.openFailed,
                                   "libavcodec opened the AAC encoder for \(summary) without frame size or config")
            }

            frame.pointee.nb_samples = context.pointee.frame_size
            frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.pointee.sample_rate = context.pointee.sample_rate
            try check(av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout), .openFailed,
                      "libavutil could not set up the AAC input frame for \(summary)")
            try check(av_frame_get_buffer(frame, 0), .openFailed,
                      "libavutil could not allocate the AAC input frame for \(summary)")

            audioSpecificConfig = Self.plainAudioSpecificConfig(
                Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size))))
            frameSize = Int(context.pointee.frame_size)
            primingSamples = Int(context.pointee.initial_padding)
        } catch {
            freeAll()
            throw error
        }
        self.configuration = configuration
        self.context = context
        self.frame = frame
        self.packet = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&context)
    }

    /// Buffers interleaved samples and encodes every completed 1024-sample frame.
    /// - Parameter samples: interleaved samples in -1...1, a multiple of the channel count long.
    /// - Returns: the packets that became ready.
    /// - Throws: `EncoderError` `.invalidInput` for a partial sample frame, `.finished` after `flush()`,
    ///   `.encodeFailed` when libavcodec fails.
    public func encode(interleaved samples: UnsafeBufferPointer<Float>) throws -> [EncodedAudioPacket] {
        guard !finished else { throw EncoderError(.finished, "the audio encoder was flushed; open a new one") }
        let channels = configuration.channels
        guard samples.count % channels == 0 else {
            throw EncoderError(.invalidInput, "\(samples.count) interleaved samples are not a whole number of "
                + "\(channels)-channel sample frames; pass complete sample frames")
        }
        var packets: [EncodedAudioPacket] = []
        let total = samples.count / channels
        var consumed = 0
        while consumed < total {
            if filled == 0 {
                // The encoder may still reference the last frame's buffers; get private ones before writing.
                try check(av_frame_make_writable(frame), .encodeFailed,
                          "libavutil could not get a writable AAC input frame")
            }
            let count = min(frameSize - filled, total - consumed)
            for channel in 0..<channels {
                guard let plane = frame.pointee.extended_data[channel] else {
                    throw EncoderError(.encodeFailed, "libavutil gave an AAC input frame without channel \(channel)")
                }
                plane.withMemoryRebound(to: Float.self, capacity: frameSize) { destination in
                    var source = consumed * channels + channel
                    for index in filled..<(filled + count) {
                        destination[index] = samples[source]
                        source += channels
                    }
                }
            }
            filled += count
            consumed += count
            if filled == frameSize {
                packets += try sendFrame(samples: frameSize)
            }
        }
        return packets
    }

    /// Encodes the buffered partial frame (as a short last frame) and drains the encoder's delayed frames;
    /// afterwards `encode` throws `.finished`.
    /// - Returns: the remaining packets.
    /// - Throws: `EncoderError` `.encodeFailed` when libavcodec fails.
    public func flush() throws -> [EncodedAudioPacket] {
        guard !finished else { return [] }
        finished = true
        var packets: [EncodedAudioPacket] = []
        if filled > 0 {
            packets += try sendFrame(samples: filled)
        }
        try check(avcodec_send_frame(context, nil), .encodeFailed, "libavcodec could not drain the AAC encoder")
        packets += try receivePackets()
        return packets
    }

    // MARK: - Private

    /// libavcodec appends the backward-compatible "no SBR" signal (ISO 14496-3 §1.6.5.2: syncExtensionType 0x2B7,
    /// extensionAudioObjectType 5, sbrPresentFlag 0) to the two-byte AAC-LC config. It says nothing a decoder does
    /// not already assume, and some players reject configs longer than two bytes, so it is dropped.
    private static func plainAudioSpecificConfig(_ config: [UInt8]) -> [UInt8] {
        guard config.count == 5 else { return config }
        let syncExtensionType = UInt16(config[2]) << 3 | UInt16(config[3] >> 5)
        let extensionObjectType = config[3] & 0x1F
        let sbrPresent = config[4] & 0x80 != 0
        guard syncExtensionType == 0x2B7, extensionObjectType == 5, !sbrPresent else { return config }
        return Array(config.prefix(2))
    }

    private func sendFrame(samples: Int) throws -> [EncodedAudioPacket] {
        frame.pointee.nb_samples = Int32(samples)
        frame.pointee.pts = samplesSent
        try check(avcodec_send_frame(context, frame), .encodeFailed,
                  "libavcodec could not encode AAC frame at sample \(samplesSent) of \(configuration.summary)")
        samplesSent += Int64(samples)
        filled = 0
        return try receivePackets()
    }

    private func receivePackets() throws -> [EncodedAudioPacket] {
        var packets: [EncodedAudioPacket] = []
        while true {
            let status = avcodec_receive_packet(context, packet)
            if status == stream_averror(EAGAIN) || status == stream_averror_eof() { return packets }
            try check(status, .encodeFailed, "libavcodec could not return an AAC packet of \(configuration.summary)")
            defer { av_packet_unref(packet) }
            let size = Int(packet.pointee.size)
            let data = packet.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            packets.append(EncodedAudioPacket(data: data, pts: packet.pointee.pts,
                                              duration: packet.pointee.duration,
                                              sampleRate: configuration.sampleRate))
        }
    }
}
#endif
