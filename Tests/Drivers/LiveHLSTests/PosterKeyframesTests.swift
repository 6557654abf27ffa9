import FLV
import LiveHLS
import Testing

/// The last keyframe of a show's main picture, kept with the parameter sets it was coded with.
@Suite struct PosterKeyframesTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xAB]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    static func header(sps: [UInt8] = sps) throws -> FLVTag {
        let record = try AVCDecoderConfigurationRecord(sps: sps, pps: pps)
        return FLVTag(type: .video, timestamp: 0, body: [
            0x17,              // frame type 1 (key frame), codec 7 (AVC)
            0x00,              // AVC packet type 0: sequence header
            0x00, 0x00, 0x00,  // composition time 0
        ] + record.encode())
    }

    static func frame(key: Bool, nal: [UInt8], timestamp: UInt32 = 40) -> FLVTag {
        FLVTag(type: .video, timestamp: timestamp, body: [
            key ? 0x17 : 0x27,  // frame type 1 (key) or 2 (inter), codec 7 (AVC)
            0x01,               // AVC packet type 1: NAL units
            0x00, 0x00, 0x00,   // composition time 0
            0x00, 0x00, 0x00, UInt8(nal.count),  // NAL unit length (4 bytes)
        ] + nal)
    }

    @Test func aKeyframeAfterTheHeaderIsKeptAsAnnexBWithItsParameterSets() throws {
        var table = PosterKeyframes()
        table.append(Self.frame(key: true, nal: [0x65, 0x88]), show: "show:mugs")
        #expect(table.keyframe(of: "show:mugs") == nil, "a keyframe without its header cannot be decoded")
        table.append(try Self.header(), show: "show:mugs")
        table.append(Self.frame(key: true, nal: [0x65, 0x88, 0x84]), show: "show:mugs")
        table.append(Self.frame(key: false, nal: [0x41, 0x9A]), show: "show:mugs")
        let keyframe = try #require(table.keyframe(of: "show:mugs"))
        #expect(keyframe.number == 1)
        #expect(keyframe.annexB() == [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1, 0x65, 0x88, 0x84])
        table.append(Self.frame(key: true, nal: [0x65, 0x01]), show: "show:mugs")
        #expect(table.keyframe(of: "show:mugs")?.number == 2)
        #expect(table.keyframe(of: "show:cups") == nil)
    }

    @Test func aSwitchKeepsTheOldPictureUntilTheNewTilesHeaderAndKeyframe() throws {
        var table = PosterKeyframes()
        table.append(try Self.header(), show: "s")
        table.append(Self.frame(key: true, nal: [0x65, 0x01]), show: "s")
        table.discontinuity(show: "s")
        table.append(Self.frame(key: true, nal: [0x65, 0x02]), show: "s")
        #expect(table.keyframe(of: "s")?.number == 1, "a keyframe of the new tile without its header was kept")
        let other: [UInt8] = [0x67, 0x64, 0x00, 0x1F]
        table.append(try Self.header(sps: other), show: "s")
        table.append(Self.frame(key: true, nal: [0x65, 0x03]), show: "s")
        let keyframe = try #require(table.keyframe(of: "s"))
        #expect(keyframe.configuration.sequenceParameterSets == [other] && keyframe.number == 2)
    }

    @Test func theEndDropsTheKeyframeAndABadLengthGivesNothing() throws {
        var table = PosterKeyframes()
        table.append(try Self.header(), show: "s")
        var broken = Self.frame(key: true, nal: [0x65, 0x01])
        broken.body[8] = 0x40  // a NAL unit length past the body's end
        table.append(broken, show: "s")
        #expect(table.keyframe(of: "s")?.annexB() == [])
        table.ended(show: "s")
        #expect(table.keyframe(of: "s") == nil && table.count == 0)
    }
}
