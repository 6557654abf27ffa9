import Encoders
import Engine
import FLV
import Testing

/// The encode loop with the encoders Linux has, x264 and libvo-aacenc, into a recorder standing for the engine.
@Suite struct EncodeDriverTests {
    /// The broadcast, as far as the driver sees it: what it was given, and requests to hand out.
    final class Recorder: EncodeTarget {
        var tags: [FLVTag] = []
        var published: [EncodeCounters] = []
        var keyframeRequested = false
        var bitrateRequest: Int?

        func takeKeyframeRequest() -> Bool {
            defer { keyframeRequested = false }
            return keyframeRequested
        }

        func takeBitrateRequest() -> Int? {
            defer { bitrateRequest = nil }
            return bitrateRequest
        }

        func submit(_ tag: FLVTag) { tags.append(tag) }
        func publish(_ counters: EncodeCounters) { published.append(counters) }

        var video: [FLVVideoTagBody] {
            tags.filter { $0.type == .video }.compactMap { try? FLVVideoTagBody(parsing: $0.body) }
        }
        var audio: [FLVTag] { tags.filter { $0.type == .audio } }
    }

    typealias Driver = EncodeDriver<X264Encoder, AACEncoder>

    static func driver(start: @escaping (H264ParameterSets) throws -> (any EncodeTarget)?) throws -> Driver {
        let video = try X264Encoder(configuration: VideoEncoderConfiguration(width: 320, height: 240,
                                                                             framesPerSecond: 30, bitrateKbps: 500))
        let audio = try AACEncoder(configuration: AudioEncoderConfiguration(sampleRate: 48000, channels: 2,
                                                                            bitrateKbps: 128))
        return Driver(video: video, audio: audio, mixerInputs: 1, start: start)
    }

    /// Encodes picture `index` (a grey level that changes, so that every picture has something to code).
    static func picture(_ driver: Driver, _ index: Int) throws {
        let luma = [UInt8](repeating: UInt8(truncatingIfNeeded: 16 + index * 7), count: 320 * 240)
        let chroma = [UInt8](repeating: 128, count: 160 * 120)
        try luma.withUnsafeBufferPointer { y in
            try chroma.withUnsafeBufferPointer { c in
                let planes = I420Planes(width: 320, height: 240, y: y.baseAddress!, yStride: 320,
                                        u: c.baseAddress!, uStride: 160, v: c.baseAddress!, vStride: 160)
                try driver.encodePicture { try $0.encode(planes, pts: Int64(index) * 33) }
            }
        }
    }

    @Test func theFirstPacketWithParameterSetsStartsTheBroadcast() throws {
        let recorder = Recorder()
        var starts: [H264ParameterSets] = []
        let driver = try Self.driver { sets in
            starts.append(sets)
            return recorder
        }
        for index in 0..<10 { try Self.picture(driver, index) }
        #expect(starts.count == 1)
        #expect(starts.first == driver.video.parameterSets)
        let video = recorder.video
        #expect(video.count == 10)  // zerolatency: one picture in, one access unit out
        #expect(video.first?.isKeyFrame == true)
        #expect(recorder.tags.map(\.timestamp) == (0..<10).map { UInt32($0 * 33) })
        // Length-prefixed NAL units, as FLV carries them; the keyframe's first is its SPS.
        let units = try AnnexB.splitLengthPrefixed(video[0].data, lengthSize: 4)
        #expect(units.first?.first.map { $0 & 0x1F } == 7)
        #expect(driver.counters.framesEncoded == 10)
        #expect(recorder.published.last == driver.counters)
    }

    @Test func aBroadcastThatCannotStartYetDropsThePacketAndTriesAgain() throws {
        let recorder = Recorder()
        var attempts = 0
        let driver = try Self.driver { _ in
            attempts += 1
            return attempts == 1 ? nil : recorder
        }
        for index in 0..<3 { try Self.picture(driver, index) }
        #expect(attempts == 2)
        #expect(recorder.tags.map(\.timestamp) == [33, 66])
        #expect(driver.target != nil)
    }

    @Test func theBroadcastsRequestsReachTheEncoder() throws {
        let recorder = Recorder()
        let driver = try Self.driver { _ in recorder }
        for index in 0..<3 { try Self.picture(driver, index) }
        #expect(recorder.video.dropFirst().allSatisfy { !$0.isKeyFrame })
        recorder.keyframeRequested = true
        recorder.bitrateRequest = 300
        try Self.picture(driver, 3)
        #expect(recorder.video.last?.isKeyFrame == true)
        #expect(driver.video.configuration.bitrateKbps == 300)
        #expect(recorder.published.last?.videoBitrateKbps == 300)
    }

    @Test func soundWaitsForTheBroadcastThenIsTimedFromItsStart() throws {
        let recorder = Recorder()
        let driver = try Self.driver { _ in recorder }
        let frame = [Float](repeating: 0.25, count: 1024 * 2)
        func sound(at milliseconds: UInt32) throws {
            frame.withUnsafeBufferPointer { driver.append($0, toInput: 0) }
            try driver.encodeSound(startingAt: milliseconds)
        }
        try sound(at: 500)                     // before the broadcast: dropped
        #expect(recorder.tags.isEmpty)
        try Self.picture(driver, 0)
        for milliseconds in [1000, 1021, 1042, 1064] as [UInt32] { try sound(at: milliseconds) }
        let audio = recorder.audio
        // One AAC packet per 1024 samples; libvo-aacenc's first starts 1600 samples early, which is cut to the base.
        #expect(audio.count == 4)
        #expect(audio.first?.timestamp == 1000)
        #expect(audio.map(\.timestamp) == audio.map(\.timestamp).sorted())
        #expect(audio.last.map { $0.timestamp < 1064 } == true)  // timed from the first sound sent, not the last
        #expect(driver.counters.audioFramesEncoded == 4)
    }
}
