import ByteIO
import FLV
import RTP

/// An RTMP publish's H.264 as RTP packets (RFC 6184, through ``H264Packetizer``) for its WHEP players: its FLV
/// video tags in, packets out, as a WebRTC sender's would come (one SSRC, sequence numbers counting up, a 90 kHz
/// timestamp from the tag's milliseconds, the marker on each frame's last packet). Pure.
///
/// The SPS and PPS of the sequence header go before every keyframe (an RTMP keyframe usually has them only in
/// that header; a player joining needs them in-band). WebRTC has no composition offsets: a frame with one (B-frames,
/// which come in decode order and play out of order) ends the forwarding, with ``refusal`` saying why.
struct RTMPVideoPackets {
    /// The SSRC the packets carry (each player's rewriter gives them its own).
    let ssrc: UInt32
    /// The payload type the packets carry (each player's rewriter maps it to its offer's).
    static let payloadType: UInt8 = 96
    private let packetizer = H264Packetizer()
    private var parameterSets: [[UInt8]] = []
    private var lengthSize = 4
    private var sequence: UInt16
    /// The `profile-level-id` of the sequence header's SPS (six hex digits), once one came.
    private(set) var profileLevelID: String?
    /// Why the stream cannot be forwarded (B-frames), once it cannot.
    private(set) var refusal: String?

    init(ssrc: UInt32, firstSequence: UInt16) {
        self.ssrc = ssrc
        sequence = firstSequence
    }

    /// The RTP packets of one FLV tag: none for audio, metadata, a sequence header (kept) or after a refusal.
    mutating func packets(for tag: FLVTag) -> [[UInt8]] {
        guard refusal == nil, tag.type == .video, let body = try? FLVVideoTagBody(parsing: tag.body) else { return [] }
        switch body.packetType {
        case .sequenceHeader:
            guard let record = try? AVCDecoderConfigurationRecord(parsing: body.data) else { return [] }
            parameterSets = record.sequenceParameterSets + record.pictureParameterSets
            lengthSize = record.nalUnitLengthSize
            if let sps = record.sequenceParameterSets.first, sps.count >= 4 {
                profileLevelID = Hex.encode(sps[1...3])
            }
            return []
        case .endOfSequence:
            return []
        case .nalu:
            break
        }
        guard body.compositionTime == 0 else {
            refusal = "the RTMP publish has B-frames (composition offsets), which WebRTC plays out of order"
            return []
        }
        var units: [ArraySlice<UInt8>] = []
        var offset = 0
        let data = body.data
        while offset + lengthSize <= data.count {
            var size = 0
            for index in 0..<lengthSize { size = size << 8 | Int(data[offset + index]) }
            offset += lengthSize
            guard size > 0, offset + size <= data.count else { break }
            units.append(data[offset..<offset + size])
            offset += size
        }
        guard !units.isEmpty else { return [] }
        let hasSPS = units.contains { $0.first.map { $0 & 0x1f == 7 } ?? false }
        if body.isKeyFrame, !hasSPS {
            units.insert(contentsOf: parameterSets.map { $0[...] }, at: 0)
        }
        let payloads = packetizer.payloads(for: units)
        let timestamp = tag.timestamp &* 90
        var packets: [[UInt8]] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            packets.append(RTPPacket(payloadType: Self.payloadType, marker: index == payloads.count - 1,
                                     sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
                                     payload: payload).encoded)
            sequence &+= 1
        }
        return packets
    }
}
