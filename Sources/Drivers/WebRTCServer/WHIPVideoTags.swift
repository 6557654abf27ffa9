import FLV
import RTP

/// Turns a WHIP session's H.264 access units into the FLV video tags an RTMP publish carries, so that what feeds an
/// RTMP publish's LL-HLS feeds a WHIP publish's too. Pure: frames in, tags out.
///
/// The SPS and PPS travel in-band (WebRTC has no sequence header): the first pair, and every pair that differs
/// from the last, becomes an AVC sequence header tag before the frame that carries it; frames before the first
/// pair cannot be decoded and are dropped (counted). Timestamps are milliseconds from the first frame's RTP
/// timestamp (90 kHz); WebRTC's H.264 has no B-frames, so the composition time is 0.
struct WHIPVideoTags {
    private var sps: [UInt8]?
    private var pps: [UInt8]?
    private var announced: (sps: [UInt8], pps: [UInt8])?
    private var origin: Int64?
    /// Frames dropped because no SPS and PPS had come yet.
    private(set) var droppedBeforeConfiguration = 0

    mutating func tags(for frame: H264FrameAssembler.Frame) -> [FLVTag] {
        var slices: [[UInt8]] = []
        for unit in frame.nalUnits {
            switch (unit.first ?? 0) & 0x1F {
            case 7: sps = unit
            case 8: pps = unit
            case 9: break  // an access unit delimiter: FLV frames are already delimited
            default: slices.append(unit)
            }
        }
        var header: AVCDecoderConfigurationRecord?
        if let sps, let pps, announced.map({ $0.sps != sps || $0.pps != pps }) ?? true,
           let record = try? AVCDecoderConfigurationRecord(sps: sps, pps: pps) {
            announced = (sps, pps)
            header = record
        }
        guard announced != nil else {
            droppedBeforeConfiguration += 1
            return []
        }
        // Time 0 is the first frame passed on.
        let origin = self.origin ?? frame.timestamp
        self.origin = origin
        let milliseconds = UInt32(clamping: max(0, (frame.timestamp - origin) / 90))
        var tags: [FLVTag] = []
        if let header { tags.append(FLVTag(video: .sequenceHeader(header), timestamp: milliseconds)) }
        guard !slices.isEmpty else { return tags }
        tags.append(FLVTag(video: .frame(AnnexB.lengthPrefixed(nalUnits: slices), isKeyFrame: frame.isKeyframe),
                           timestamp: milliseconds))
        return tags
    }
}
