#if canImport(CAVCodec) && canImport(CTurboJPEG)
import CAVCodec
import CTurboJPEG

/// Makes a poster of one H.264 keyframe: libavcodec decodes it, libjpeg-turbo compresses its planes as they are.
///
/// Both libraries are loaded at the first call (dlopen), so only a server that is asked for a poster maps them. The
/// call blocks for the decode (a few milliseconds at 720p): run it off the event loop and off the cooperative pool.
/// Every call has its own decoder, used on the calling thread only, so calls may run on several threads at once.
public enum PosterRenderer {
    /// The JPEG quality (libjpeg's 1–100 scale): a show card's picture, about 50–100 KB at 720p.
    public static let quality: Int32 = 80

    /// The poster of a keyframe.
    /// - Parameter annexB: the keyframe's access unit in Annex B with its parameter sets first (SPS, PPS, then the
    ///   picture's NAL units, each after a 00 00 00 01 start code).
    /// - Returns: the JPEG and its size.
    /// - Throws: ``PosterError`` when a library is missing, the keyframe does not decode, or the picture is not
    ///   8-bit 4:2:0.
    public static func render(annexB: [UInt8]) throws(PosterError) -> PosterPicture {
        if let reason = stream_avcodec_load_error() {
            throw .libraryMissing("libavcodec", String(cString: reason))
        }
        if let reason = stream_turbojpeg_load_error() {
            throw .libraryMissing("libturbojpeg", String(cString: reason))
        }
        let decoder = try H264PictureDecoder()
        let frame = try decoder.decode(annexB)
        return try JPEGCompressor.compress(frame.pointer, quality: quality)
    }
}

/// One AVFrame, freed with its owner.
final class DecodedFrame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init(_ pointer: UnsafeMutablePointer<AVFrame>) {
        self.pointer = pointer
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}

/// libavcodec's H.264 decoder for one access unit: sent with a flush, so its one picture comes out at once.
final class H264PictureDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?

    init() throws(PosterError) {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw .decodeFailed("this libavcodec has no H.264 decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .decodeFailed("no decoder context") }
        self.context = context
        // One thread: the decode runs on the caller's thread, and frame threading would hold the picture back.
        context.pointee.thread_count = 1
        try check(avcodec_open2(context, codec, nil), "opening the decoder")
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// The picture of `annexB` (one access unit).
    func decode(_ annexB: [UInt8]) throws(PosterError) -> DecodedFrame {
        guard let context else { throw .decodeFailed("no decoder context") }
        guard let packet = av_packet_alloc() else { throw .decodeFailed("no packet") }
        var packetSlot: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetSlot) }
        // The decoder reads up to AV_INPUT_BUFFER_PADDING_SIZE bytes past the end: they must be there, and zero.
        var padded = annexB
        padded.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        let sent = padded.withUnsafeMutableBufferPointer { bytes -> Int32 in
            // Not reference-counted: libavcodec copies the data before avcodec_send_packet returns.
            packet.pointee.data = bytes.baseAddress
            packet.pointee.size = Int32(annexB.count)
            packet.pointee.flags = AV_PKT_FLAG_KEY
            let result = avcodec_send_packet(context, packet)
            packet.pointee.data = nil
            packet.pointee.size = 0
            return result
        }
        try check(sent, "sending the keyframe")
        try check(avcodec_send_packet(context, nil), "flushing the decoder")
        guard let frame = av_frame_alloc() else { throw .decodeFailed("no frame") }
        let decoded = DecodedFrame(frame)
        let received = avcodec_receive_frame(context, frame)
        if received == stream_averror_eof() || received == stream_averror_again() {
            throw .decodeFailed("the keyframe gave no picture")
        }
        try check(received, "receiving the picture")
        return decoded
    }

    /// libavcodec's return codes, converted in one place.
    private func check(_ result: Int32, _ step: String) throws(PosterError) {
        guard result < 0 else { return }
        var text = [CChar](repeating: 0, count: 128)
        let message = av_strerror(result, &text, text.count) == 0
            ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : "error \(result)"
        throw .decodeFailed("\(step): \(message)")
    }
}

/// libjpeg-turbo's compressor over a decoded frame's planes.
enum JPEGCompressor {
    /// A JPEG of `frame`, which must be 8-bit 4:2:0 (limited or full range).
    static func compress(_ frame: UnsafeMutablePointer<AVFrame>, quality: Int32) throws(PosterError) -> PosterPicture {
        let format = frame.pointee.format
        guard format == AV_PIX_FMT_YUV420P.rawValue || format == AV_PIX_FMT_YUVJ420P.rawValue else {
            throw .unsupportedPicture("pixel format \(format) is not 8-bit 4:2:0")
        }
        let width = frame.pointee.width
        let height = frame.pointee.height
        guard width > 0, height > 0, let y = frame.pointee.data.0, let u = frame.pointee.data.1,
              let v = frame.pointee.data.2 else {
            throw .unsupportedPicture("the decoder gave an empty picture")
        }
        guard let handle = tjInitCompress() else { throw .compressFailed("no compressor") }
        defer { _ = tjDestroy(handle) }
        var planes: [UnsafePointer<UInt8>?] = [UnsafePointer(y), UnsafePointer(u), UnsafePointer(v)]
        let strides: [Int32] = [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2]
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = tjCompressFromYUVPlanes(handle, &planes, width, strides, height, Int32(TJSAMP_420.rawValue),
                                             &buffer, &size, quality, 0)
        defer { if let buffer { tjFree(buffer) } }
        guard result == 0, let buffer else {
            throw .compressFailed(tjGetErrorStr2(handle).map { String(cString: $0) } ?? "error \(result)")
        }
        return PosterPicture(jpeg: Array(UnsafeBufferPointer(start: buffer, count: Int(size))),
                             width: Int(width), height: Int(height))
    }
}
#endif
