#if os(Linux)
import Encoders
import FLV
import Media
import Opus
import RTP

/// An RTMP publish's AAC as Opus RTP packets for its WHEP players, the mirror of ``WHIPAudioTags``: WebRTC players
/// take Opus, RTMP publishers send AAC, so the server transcodes once per publish (never per player).
///
/// The AAC sequence header opens an AAC decoder (FAAD2, ``AACAudioDecoder``); each AAC frame is decoded to PCM,
/// resampled to 48 kHz if the publish is not (RFC 7587: Opus in RTP runs at 48 kHz), and fed to a stereo Opus
/// encoder, which returns a 20 ms packet per 960 samples. The packets carry one SSRC and count their sequence
/// numbers up; the 48 kHz timestamp follows the samples encoded from the first frame's FLV time (as
/// ``RTMPVideoPackets`` puts video at the tag's time), and moves on to a tag's time when the publisher left a gap of
/// more than 100 ms.
/// What is held is bounded: one AAC frame's PCM and the encoder's one partial 20 ms frame. Single owner: the
/// event loop.
final class RTMPAudioPackets {
    /// Output channels: Opus in WebRTC is stereo-capable; a mono publish is sent as two equal channels.
    static let channels = 2
    /// The Opus bitrate: 64 kbit/s, plenty for stereo speech and music at 20 ms.
    static let bitrateKbps = 64
    /// The payload type the packets carry (each player's rewriter maps it to its offer's).
    static let payloadType: UInt8 = 111

    /// The SSRC the packets carry.
    let ssrc: UInt32
    private var decoder: AACAudioDecoder?
    private var resampler: LinearResampler?
    private var encoder: OpusAudioEncoder?
    private var sequence: UInt16
    private let firstTimestamp: UInt32
    /// The next PCM sample's time on the 48 kHz timeline (from the first frame's FLV time); nil before a frame.
    private var nextSample: Int64?
    /// Samples given to the encoder and not yet out as a packet, to place the packets that come out.
    private var samplesInEncoder: Int64 = 0
    /// Why the sound is not forwarded (a configuration FAAD2 or libopus refused), once it is not.
    private(set) var refusal: String?
    /// AAC frames the decoder could not decode (dropped).
    private(set) var undecodable = 0
    /// Opus packets made.
    private(set) var packetsMade = 0

    init(ssrc: UInt32, firstSequence: UInt16, firstTimestamp: UInt32) {
        self.ssrc = ssrc
        sequence = firstSequence
        self.firstTimestamp = firstTimestamp
    }

    /// The Opus RTP packets one FLV audio tag makes: none for a sequence header (it opens the decoder), for the
    /// first 20 ms, or once the sound cannot be forwarded.
    func packets(for tag: FLVTag) -> [[UInt8]] {
        guard refusal == nil, tag.type == .audio, let body = try? FLVAudioTagBody(parsing: tag.body) else { return [] }
        switch body.packetType {
        case .sequenceHeader:
            open(body.data)
            return []
        case .raw:
            break
        }
        guard let decoder, let encoder else { return [] }
        let pcm: [Float]
        do {
            pcm = try decoder.decode(body.data)
        } catch {
            undecodable += 1
            return []
        }
        guard !pcm.isEmpty else { return [] }
        let resampled = Self.stereo(resampler?.process(pcm) ?? pcm, channels: decoder.channels)
        let tagSample = Int64(tag.timestamp) * 48
        let encoderRate = Int64(OpusAudioEncoder.sampleRate)
        if let next = nextSample, abs(tagSample - (next + samplesInEncoder)) > encoderRate / 10 {
            // A gap (or a jump) in the publisher's audio: go on from the tag's time.
            nextSample = tagSample - samplesInEncoder
        } else if nextSample == nil {
            nextSample = tagSample
        }
        let packets: [EncodedAudioPacket]
        do {
            packets = try resampled.withUnsafeBufferPointer { try encoder.encode(interleaved: $0) }
        } catch {
            refusal = "the Opus encoder failed: \(error)"
            return []
        }
        samplesInEncoder += Int64(resampled.count / Self.channels)
        var result: [[UInt8]] = []
        for packet in packets {
            let start = nextSample ?? 0
            let timestamp = firstTimestamp &+ UInt32(truncatingIfNeeded: start)
            result.append(RTPPacket(payloadType: Self.payloadType, marker: false, sequenceNumber: sequence,
                                    timestamp: timestamp, ssrc: ssrc, payload: packet.data).encoded)
            sequence &+= 1
            nextSample = start + packet.duration
            samplesInEncoder -= packet.duration
            packetsMade += 1
        }
        return result
    }

    /// `samples` of `channels` interleaved channels as stereo: mono doubled, stereo as it is.
    static func stereo(_ samples: [Float], channels: Int) -> [Float] {
        guard channels == 1 else { return samples }
        var doubled = [Float](repeating: 0, count: samples.count * 2)
        for (index, sample) in samples.enumerated() {
            doubled[2 * index] = sample
            doubled[2 * index + 1] = sample
        }
        return doubled
    }

    /// Opens the decoder for an AudioSpecificConfig, the resampler to 48 kHz if needed, and the Opus encoder.
    private func open(_ audioSpecificConfig: [UInt8]) {
        do {
            let decoder = try AACAudioDecoder(audioSpecificConfig: audioSpecificConfig)
            if encoder == nil {
                encoder = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(
                    sampleRate: OpusAudioEncoder.sampleRate, channels: Self.channels, bitrateKbps: Self.bitrateKbps))
            }
            self.decoder = decoder
            resampler = decoder.sampleRate == OpusAudioEncoder.sampleRate ? nil
                : LinearResampler(inputRate: decoder.sampleRate, outputRate: OpusAudioEncoder.sampleRate,
                                  channels: decoder.channels)
        } catch {
            refusal = "the publish's AAC cannot be transcoded to Opus: \(error)"
        }
    }
}
#endif
