import Encoders
import FLV
import Media

/// What an ``EncodeDriver`` needs of a broadcast: ``BroadcastEngine``, or a recorder in tests.
public protocol EncodeTarget: AnyObject {
    /// Whether the next picture must be a keyframe (a new connection, a flushed queue); asking clears it.
    func takeKeyframeRequest() -> Bool
    /// The video bitrate adaptive bitrate asks for, if it changed; asking clears it.
    func takeBitrateRequest() -> Int?
    /// Hands an encoded tag to the broadcast.
    func submit(_ tag: FLVTag)
    /// Publishes what the encoding side has done so far.
    func publish(_ counters: EncodeCounters)
}

extension BroadcastEngine: EncodeTarget {}

/// Encoded pictures and the mixed sound into a broadcast as FLV tags: the loop the iOS screen broadcast and camera
/// publisher share, whatever encoders they use (VideoToolbox and AudioToolbox there, x264 and libvo-aacenc in the
/// tests).
///
/// The broadcast starts with the first packet that comes with the encoder's SPS and PPS (the stream's headers need
/// them): `start` makes it. Before that, packets and the mix are dropped, as there is no stream to put them in.
/// Before each picture the broadcast's keyframe and bitrate requests reach the video encoder. Sound is mixed here
/// (`append`, then `encodeSound`), one encoder frame at a time into one buffer made once; its tags are timed from
/// the first frame sent. Single-owner: use it from one thread.
public final class EncodeDriver<Video: VideoEncoder, Audio: AudioEncoder> {
    /// The video encoder.
    public let video: Video
    /// The audio encoder.
    public let audio: Audio
    /// What has been encoded; published to the broadcast after each picture (set the caller's own fields before).
    public var counters = EncodeCounters()
    /// The broadcast, once the first packet with parameter sets started it.
    public private(set) var target: (any EncodeTarget)?
    private let start: (H264ParameterSets) throws -> (any EncodeTarget)?
    private var mixer: AudioMixer
    /// One encoder frame of the mix, reused for every frame.
    private var mixed: [Float]
    /// The stream time of the first sound sent, in milliseconds.
    private var soundBase: UInt32?

    /// Creates a driver; nothing starts until a packet comes with parameter sets.
    /// - Parameters:
    ///   - video: the video encoder.
    ///   - audio: the audio encoder; the mix has its channel count.
    ///   - mixerInputs: how many sound sources `append` takes (the app's audio, the microphone), at least 1.
    ///   - start: makes the broadcast from the video encoder's parameter sets, or nil when it cannot (the packet is
    ///     then dropped and the next one tries again); what it throws, `encodePicture` throws.
    public init(video: Video, audio: Audio, mixerInputs: Int,
                start: @escaping (H264ParameterSets) throws -> (any EncodeTarget)?) {
        self.video = video
        self.audio = audio
        self.start = start
        let channels = audio.configuration.channels
        mixer = AudioMixer(inputCount: mixerInputs, channels: channels)
        mixed = [Float](repeating: 0, count: audio.frameSize * channels)
    }

    /// Encodes one picture and sends the packets that come out.
    /// - Parameter encode: encodes the picture with `video` (VideoToolbox takes a pixel buffer, x264 planes).
    /// - Throws: what `encode` or `start` throws.
    public func encodePicture(_ encode: (Video) throws -> [EncodedVideoPacket]) throws {
        if let target {
            if target.takeKeyframeRequest() { video.forceKeyframe() }
            if let kbps = target.takeBitrateRequest() { try? video.setBitrate(kbps: kbps) }
        }
        for packet in try encode(video) {
            guard let target = try target ?? startTarget() else { continue }
            let payload = packet.framing == .lengthPrefixed ? packet.data : AnnexB.lengthPrefixed(packet.data)
            let body = FLVVideoTagBody.frame(payload, isKeyFrame: packet.isKeyframe,
                                             compositionTime: Int32(clamping: packet.pts - packet.dts))
            target.submit(FLVTag(video: body, timestamp: UInt32(truncatingIfNeeded: max(0, packet.dts))))
            counters.framesEncoded += 1
            counters.videoBytes += packet.data.count
        }
        counters.videoBitrateKbps = video.configuration.bitrateKbps
        target?.publish(counters)
    }

    /// Queues interleaved samples in the mix format (the audio encoder's channels) for one source.
    /// - Parameters:
    ///   - samples: whole sample frames.
    ///   - input: the source, below `mixerInputs`.
    public func append(_ samples: UnsafeBufferPointer<Float>, toInput input: Int) {
        mixer.append(samples, toInput: input)
    }

    /// Encodes every whole encoder frame the mix has and sends its packets; before the broadcast starts, the mix is
    /// dropped.
    /// - Parameter milliseconds: the stream time now, asked once, when the first sound is sent: its tags are timed
    ///   from there.
    /// - Throws: what the audio encoder throws.
    public func encodeSound(startingAt milliseconds: @autoclosure () -> UInt32?) throws {
        guard let target else {
            while mixNext() {}
            return
        }
        if soundBase == nil { soundBase = milliseconds() }
        let base = soundBase ?? 0
        while mixNext() {
            let packets = try mixed.withUnsafeBufferPointer { try audio.encode(interleaved: $0) }
            for packet in packets {
                let offset = UInt32(truncatingIfNeeded: max(packet.ptsMilliseconds, 0))
                target.submit(FLVTag(audio: .frame(packet.data), timestamp: base &+ offset))
                counters.audioFramesEncoded += 1
                counters.audioBytes += packet.data.count
            }
        }
    }

    private func startTarget() throws -> (any EncodeTarget)? {
        guard let sets = video.parameterSets, let made = try start(sets) else { return nil }
        target = made
        return made
    }

    /// Mixes the next encoder frame into `mixed`; false while the sources have not enough for one.
    private func mixNext() -> Bool {
        mixed.withUnsafeMutableBufferPointer { mixer.mix(into: $0) }
    }
}
