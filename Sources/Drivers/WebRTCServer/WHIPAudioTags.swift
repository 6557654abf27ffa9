#if os(Linux)
import Encoders
import FLV
import Opus
import RTP

/// Turns a WHIP session's Opus RTP packets into the AAC FLV audio tags an RTMP publish carries, so that its LL-HLS
/// has sound: the one audio transcode the architecture allows (WebRTC takes Opus, HLS plays AAC).
///
/// Each packet is placed on the session's 48 kHz timeline (``OpusRTPTimeline``: gaps concealed by libopus' PLC up
/// to 1 s, longer ones skipped, late packets dropped), decoded to stereo PCM and fed to the AAC encoder, which
/// returns a packet per 1024 samples. The AAC sequence header (`11 90`, 48 kHz stereo AAC-LC) does not depend on
/// the packets: the server sends ``sequenceHeader`` when the session starts, before any video, so that the LL-HLS
/// packager's first init segment (made at the first keyframe) already has the audio track. What is held is bounded: one Opus packet's PCM (at most 120 ms) and the encoder's one
/// 1024-sample frame; nothing queues.
///
/// Timestamps share the video tags' timeline by first-packet alignment: the video tags count from the first frame
/// passed on (``WHIPVideoTags``); the first audio packet after it is placed at the wall-clock time since then, and
/// the rest follow its RTP timestamps. The error is the difference of the two tracks' network and encoding
/// latencies (tens of milliseconds on a LAN); RTCP sender reports would remove it. Audio before the first video tag
/// is dropped (there is no timeline yet; the player starts at a keyframe anyway). Single owner: the event loop.
final class WHIPAudioTags {
    /// Output channels: WebRTC's Opus is stereo-capable (RFC 7587 §6.1 `sprop-stereo`), mono decodes as two.
    static let channels = 2
    /// The AAC bitrate: 128 kbit/s, what `stream broadcast` sends over RTMP.
    static let bitrateKbps = 128

    private let decoder: OpusAudioDecoder
    private let encoder: AACEncoder
    private var timeline = OpusRTPTimeline()
    /// Where the timeline's sample 0 is on the video tags' timeline, in milliseconds; nil before the first packet.
    private var originMilliseconds: Int64?
    /// Samples skipped (gaps over 1 s) so far, added to the encoder's sample count for timestamps: the packets the
    /// encoder still holds from before a skip (its 1600-sample delay) come out placed after it, 33 ms at most.
    private var skippedSamples: Int64 = 0
    /// Opus packets libopus could not decode (concealed instead).
    private(set) var undecodable = 0
    /// AAC frames passed on.
    private(set) var frames = 0

    /// Opens the Opus decoder and the AAC encoder.
    /// - Throws: `EncoderError` when either library refuses.
    init() throws {
        decoder = try OpusAudioDecoder(channels: Self.channels)
        encoder = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: OpusAudioDecoder.sampleRate,
                                                                          channels: Self.channels,
                                                                          bitrateKbps: Self.bitrateKbps))
    }

    /// The AAC sequence header every session's audio has, at time 0.
    static let sequenceHeader = FLVTag(
        audio: .sequenceHeader(AudioSpecificConfig(sampleRate: OpusAudioDecoder.sampleRate,
                                                   channelConfiguration: UInt8(channels))),
        timestamp: 0)

    /// Packets dropped as late or duplicates.
    var dropped: Int { timeline.dropped }

    /// Transcodes one Opus RTP packet.
    /// - Parameters:
    ///   - packet: the packet (its payload one Opus packet).
    ///   - sinceVideoStart: time from the first video tag passed on to now; nil while none was, and the packet is
    ///     dropped.
    /// - Returns: the AAC frame tags that became ready (about 47 a second).
    func tags(for packet: RTPPacket, sinceVideoStart: Duration?) -> [FLVTag] {
        if originMilliseconds == nil {
            guard let sinceVideoStart else { return [] }
            originMilliseconds = Int64((sinceVideoStart / .milliseconds(1)).rounded(.down))
        }
        guard case .decode(let conceal, let skip) = timeline.place(timestamp: packet.timestamp) else { return [] }
        var pcm: [Float] = []
        var left = conceal
        while left > 0 {
            let chunk = min(left, Int64(OpusAudioDecoder.maximumSamplesPerPacket))
            pcm += decoder.conceal(samples: Int(chunk))
            left -= chunk
        }
        let decoded: [Float]
        do {
            decoded = try decoder.decode(packet.payload)
        } catch {
            undecodable += 1
            decoded = decoder.conceal(samples: OpusAudioDecoder.sampleRate / 50)  // RFC 7587's usual 20 ms
        }
        timeline.advance(by: decoded.count / Self.channels)
        pcm += decoded
        // A skip moves the timeline without samples: later AAC packets are placed that much later.
        if skip > 0 { skippedSamples += skip }
        guard let packets = try? encoder.encode(interleaved: pcm) else { return [] }
        return flvTags(packets)
    }

    private func flvTags(_ packets: [EncodedAudioPacket]) -> [FLVTag] {
        guard let origin = originMilliseconds, !packets.isEmpty else { return [] }
        var tags: [FLVTag] = []
        for packet in packets {
            let milliseconds = origin + OpusRTPTimeline.milliseconds(atSample: packet.pts + skippedSamples)
            let timestamp = UInt32(clamping: max(0, milliseconds))
            tags.append(FLVTag(audio: .frame(packet.data), timestamp: timestamp))
            frames += 1
        }
        return tags
    }
}
#endif
