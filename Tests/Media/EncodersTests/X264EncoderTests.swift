import Encoders
import Testing

@Suite struct X264EncoderTests {
    /// 640x360@30 at 800 kbps: the brief's reference stream.
    static let reference = VideoEncoderConfiguration(width: 640, height: 360, framesPerSecond: 30, bitrateKbps: 800)

    /// Milliseconds of frame `index` at `fps`, as a capture clock would stamp it.
    static func pts(_ index: Int, fps: Int) -> Int64 { Int64(index * 1000 / fps) }

    /// Encodes pictures `frames` of the moving pattern, expecting each one back from the same call (zero latency).
    static func encode(_ encoder: X264Encoder, pattern: inout TestPattern, frames: Range<Int>,
                       fps: Int) throws -> [EncodedVideoPacket] {
        var packets: [EncodedVideoPacket] = []
        for index in frames {
            pattern.draw(frame: index)
            let out = try pattern.withPlanes { try encoder.encode($0, pts: pts(index, fps: fps)) }
            #expect(out.count == 1 && out.first?.pts == pts(index, fps: fps), "picture \(index) came back late")
            packets += out
        }
        return packets
    }

    static func kilobits(_ packets: some Collection<EncodedVideoPacket>) -> Double {
        Double(packets.reduce(0) { $0 + $1.data.count } * 8) / 1000
    }

    @Test func threeSecondsHaveTwoSecondKeyframesInlineHeadersAndDecode() throws {
        let encoder = try X264Encoder(configuration: Self.reference)
        var pattern = TestPattern(width: 640, height: 360)
        let packets = try Self.encode(encoder, pattern: &pattern, frames: 0..<90, fps: 30)
        #expect(try encoder.flush().isEmpty, "zerolatency holds no pictures back")

        #expect(packets.count == 90)
        let keyframes = packets.indices.filter { packets[$0].isKeyframe }
        #expect(keyframes == [0, 60])

        let first = try #require(packets.first)
        let firstTypes = AnnexB.nalTypes(first.data)
        #expect(firstTypes.contains(AnnexB.sps))
        #expect(firstTypes.contains(AnnexB.pps))
        #expect(firstTypes.contains(AnnexB.sliceIDR))
        for packet in packets {
            let types = AnnexB.nalTypes(packet.data)
            #expect(types.contains(AnnexB.sliceIDR) == packet.isKeyframe)
            #expect(types.contains(AnnexB.sps) == packet.isKeyframe, "headers repeat before every keyframe only")
        }

        // The exposed parameter sets are the ones in the stream; SPS byte 1 is profile_idc (100 = High).
        let units = AnnexB.nalUnits(first.data)
        let sps = try #require(units.first { $0.first.map { $0 & 0x1F } == AnnexB.sps })
        let pps = try #require(units.first { $0.first.map { $0 & 0x1F } == AnnexB.pps })
        #expect(encoder.sps == Array(sps))
        #expect(encoder.pps == Array(pps))
        #expect(encoder.parameterSets == H264ParameterSets(sps: Array(sps), pps: Array(pps)))
        #expect(encoder.sps.count > 1 && encoder.sps[1] == 100)

        for (previous, next) in zip(packets, packets.dropFirst()) {
            #expect(next.dts > previous.dts)
        }
        #expect(packets.allSatisfy { $0.pts >= $0.dts })
        #expect(packets.map(\.pts).sorted() == (0..<90).map { Self.pts($0, fps: 30) })

        let kbps = Self.kilobits(packets) / 3
        #expect(abs(kbps - 800) <= 800 * 0.25, "produced \(kbps) kbps for an 800 kbps target")

        let directory = try TemporaryDirectory()
        let file = try directory.write("reference.h264", packets.flatMap(\.data))
        let stream = try Tool.probeFirstStream(file, countFrames: true)
        #expect(stream["codec_name"] == "h264")
        #expect(stream["profile"] == "High")
        #expect(stream["width"] == "640")
        #expect(stream["height"] == "360")
        #expect(stream["nb_read_frames"] == "90")
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderr.isEmpty, "ffmpeg reported: \(decode.stderr)")
    }

    @Test func setBitrateHalvesTheRateOfTheNextTwoSeconds() throws {
        let encoder = try X264Encoder(configuration: Self.reference)
        var pattern = TestPattern(width: 640, height: 360)
        let before = try Self.encode(encoder, pattern: &pattern, frames: 0..<60, fps: 30)
        try encoder.setBitrate(kbps: 400)
        #expect(encoder.configuration.bitrateKbps == 400)
        let after = try Self.encode(encoder, pattern: &pattern, frames: 60..<120, fps: 30)
        // Each 2-second window holds one keyframe, so they compare like for like.
        let ratio = Self.kilobits(after) / Self.kilobits(before)
        #expect(ratio > 0.35 && ratio < 0.65, "bitrate ratio after halving: \(ratio)")
    }

    @Test func forceKeyframeMakesTheNextPictureAnIDRAndRestartsTheCadence() throws {
        let configuration = VideoEncoderConfiguration(width: 320, height: 180, framesPerSecond: 30, bitrateKbps: 300)
        let encoder = try X264Encoder(configuration: configuration)
        var pattern = TestPattern(width: 320, height: 180)
        let start = try Self.encode(encoder, pattern: &pattern, frames: 0..<10, fps: 30)
        #expect(start.map(\.isKeyframe) == [true] + Array(repeating: false, count: 9))
        encoder.forceKeyframe()
        let forced = try Self.encode(encoder, pattern: &pattern, frames: 10..<11, fps: 30)
        let packet = try #require(forced.first)
        #expect(packet.isKeyframe)
        let types = AnnexB.nalTypes(packet.data)
        #expect(types.contains(AnnexB.sps) && types.contains(AnnexB.pps) && types.contains(AnnexB.sliceIDR))
        let rest = try Self.encode(encoder, pattern: &pattern, frames: 11..<71, fps: 30)
        #expect(rest.indices.filter { rest[$0].isKeyframe } == [59], "next cadence keyframe 60 pictures later")
    }

    @Test(arguments: [
        (VideoEncoderConfiguration(width: 641, height: 360, framesPerSecond: 30, bitrateKbps: 800), "even"),
        (VideoEncoderConfiguration(width: 640, height: 0, framesPerSecond: 30, bitrateKbps: 800), "between"),
        (VideoEncoderConfiguration(width: 16384, height: 360, framesPerSecond: 30, bitrateKbps: 800), "between"),
        (VideoEncoderConfiguration(width: 640, height: 360, framesPerSecond: 0, bitrateKbps: 800), "frame rate"),
        (VideoEncoderConfiguration(width: 640, height: 360, framesPerSecond: 30, bitrateKbps: 0), "bitrate"),
        (VideoEncoderConfiguration(width: 640, height: 360, framesPerSecond: 30, bitrateKbps: 800,
                                   keyframeIntervalSeconds: 0), "keyframe interval"),
    ])
    func invalidConfigurationIsRefused(configuration: VideoEncoderConfiguration, mentions: String) throws {
        let error = try #require(throws: EncoderError.self) { try X264Encoder(configuration: configuration) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(configuration.summary))
        #expect(error.message.contains(mentions), "\(error.message)")
    }

    @Test(arguments: [
        (X264Options(preset: "warp-speed"), "preset 'warp-speed'"),
        (X264Options(tune: "cinema"), "tune 'cinema'"),
        (X264Options(profile: "ultra"), "profile 'ultra'"),
        (X264Options(threads: -1), "threads"),
    ])
    func unknownX264OptionsAreRefused(options: X264Options, mentions: String) throws {
        let error = try #require(throws: EncoderError.self) {
            try X264Encoder(configuration: Self.reference, options: options)
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains(mentions), "\(error.message)")
    }

    @Test func wrongPicturesBadTimestampsAndLateInputAreRefused() throws {
        let configuration = VideoEncoderConfiguration(width: 320, height: 180, framesPerSecond: 30, bitrateKbps: 300)
        let encoder = try X264Encoder(configuration: configuration)
        let wrongSize = TestPattern(width: 640, height: 360)
        let sized = try #require(throws: EncoderError.self) {
            try wrongSize.withPlanes { try encoder.encode($0, pts: 0) }
        }
        #expect(sized.code == .invalidInput)
        #expect(sized.message.contains("640x360"))

        var pattern = TestPattern(width: 320, height: 180)
        pattern.draw(frame: 0)
        #expect(try pattern.withPlanes { try encoder.encode($0, pts: 100) }.count == 1)
        let repeated = try #require(throws: EncoderError.self) {
            try pattern.withPlanes { try encoder.encode($0, pts: 100) }
        }
        #expect(repeated.code == .invalidInput)

        let zero = try #require(throws: EncoderError.self) { try encoder.setBitrate(kbps: 0) }
        #expect(zero.code == .invalidConfiguration)
        #expect(encoder.configuration.bitrateKbps == 300)

        #expect(try encoder.flush().isEmpty)
        let late = try #require(throws: EncoderError.self) {
            try pattern.withPlanes { try encoder.encode($0, pts: 200) }
        }
        #expect(late.code == .finished)
    }
}
