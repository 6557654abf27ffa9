import Encoders
import Foundation
import Locking
import Media
import Opus
import WebRTC

/// The test sources (the screen pattern with its frame number, a 440 Hz tone) encoded live with x264 and Opus and
/// sent to a publisher in real time; keyframe requests and bandwidth estimates are obeyed as a broadcast would.
final class TestMediaSource: @unchecked Sendable {
    // @unchecked Sendable: the encoders and pools are used only inside `run`, one task at a time; what other tasks
    // read (capture times, applied bitrates, keyframe requests) is behind `Locked`.
    let width: Int
    let height: Int
    let fps: Int
    let pattern: ScreenPattern
    private let encoder: X264Encoder
    private let opus: OpusAudioEncoder
    private let pool: FramePool
    private let converter: EncodeFrameConverter
    private let tone = ToneGenerator(frequency: 440, amplitude: 0.5)
    /// Capture time (Unix seconds) of each frame index.
    let captureTimes = Locked<[Int: Double]>([:])
    /// Bitrates applied from the estimate, in order.
    let appliedBitrates = Locked<[Int]>([])
    private let keyframeWanted = Locked(false)
    /// Keyframes produced on request.
    let forcedKeyframes = Locked(0)

    init(width: Int = 640, height: Int = 360, fps: Int = 30, bitrateKbps: Int = 1000) throws {
        self.width = width
        self.height = height
        self.fps = fps
        pattern = ScreenPattern(width: width, height: height)
        encoder = try X264Encoder(configuration: VideoEncoderConfiguration(width: width, height: height,
                                                                          framesPerSecond: fps,
                                                                          bitrateKbps: bitrateKbps,
                                                                          keyframeIntervalSeconds: 10),
                                  options: X264Options(preset: "ultrafast", profile: "baseline"))
        opus = try OpusAudioEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                             bitrateKbps: 64))
        pool = FramePool(format: .bgra, width: width, height: height, maxCount: 3)
        converter = EncodeFrameConverter(width: width, height: height)
    }

    /// The encoder's profile-level-id, for the offer.
    var profileLevelID: String { WHIPProfile.profileLevelID(sps: encoder.sps) }

    /// Follows the session's events until it ends.
    func follow(_ events: AsyncStream<WebRTCEvent>) async {
        for await event in events {
            switch event {
            case .keyframeRequested: keyframeWanted.withLock { $0 = true }
            case .bitrateEstimate(let kbps): appliedBitrates.withLock { $0.append(kbps) }
            case .connected, .failed: break
            }
        }
    }

    /// Sends `seconds` of media in real time.
    func run(seconds: Double, to publisher: WebRTCPublisher) async throws {
        let start = ContinuousClock.now
        let samplesPerFrame = 48_000 / fps
        var appliedKbps: Int?
        for index in 0..<Int(seconds * Double(fps)) {
            try await Task.sleep(until: start + .milliseconds(index * 1000 / fps), clock: .continuous)
            if let kbps = appliedBitrates.withLock({ $0.last }), kbps != appliedKbps {
                try encoder.setBitrate(kbps: kbps)
                appliedKbps = kbps
            }
            if keyframeWanted.withLock({ wanted in defer { wanted = false }; return wanted }) {
                encoder.forceKeyframe()
                forcedKeyframes.withLock { $0 += 1 }
            }
            let pts = Int64(index * 1000 / fps)
            guard var frame = pool.makeFrame(pts: pts) else { continue }
            pattern.render(frameIndex: index, into: &frame)
            captureTimes.withLock { $0[index] = Date().timeIntervalSince1970 }
            guard let converted = try converter.convert(frame) else { continue }
            let packets = try converted.withUnsafePlanes { planes in
                try encoder.encode(I420Planes(width: width, height: height,
                                              y: planes.baseAddress(ofPlane: 0), yStride: planes.stride(ofPlane: 0),
                                              u: planes.baseAddress(ofPlane: 1), uStride: planes.stride(ofPlane: 1),
                                              v: planes.baseAddress(ofPlane: 2), vStride: planes.stride(ofPlane: 2)),
                                   pts: pts)
            }
            for packet in packets { publisher.send(video: packet) }
            var pcm: [Float] = []
            pcm.reserveCapacity(samplesPerFrame * 2)
            for sample in 0..<samplesPerFrame {
                let value = Float(tone.value(atSample: Int64(index * samplesPerFrame + sample)))
                pcm += [value, value]
            }
            for packet in try opus.encode(interleaved: pcm) { publisher.send(audio: packet) }
        }
    }
}

/// The profile-level-id of an SPS, as the offer carries it.
enum WHIPProfile {
    static func profileLevelID(sps: [UInt8]) -> String {
        sps.count >= 4 ? sps[1...3].map { String(format: "%02x", $0) }.joined() : "42e01f"
    }
}
