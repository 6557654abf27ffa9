import Testing
import TestSupport
@testable import MP4

@Suite struct InitSegmentTests {
    static let spsBytes = hex("6764001eacd940a02ff970110000030001000003003c0f162d96")
    static let ppsBytes = hex("68ebe3cb22c0")

    /// The avcC x264 gave ffmpeg for the SPS above: version 1, High, constraints 0, level 3.0, 4-byte lengths,
    /// one SPS, one PPS.
    static var avcC: [UInt8] {
        [0x01, 0x64, 0x00, 0x1E, 0xFF, 0xE1, 0x00, UInt8(spsBytes.count)] + spsBytes
            + [0x01, 0x00, UInt8(ppsBytes.count)] + ppsBytes
    }

    static func video() throws -> VideoTrack { try VideoTrack(configurationBytes: avcC) }
    /// 48 kHz stereo AAC-LC (ISO/IEC 14496-3: object type 2, frequency index 3, channel configuration 2).
    static func audio() throws -> AudioTrack { try AudioTrack(configurationBytes: [0x11, 0x90]) }

    @Test func startsWithTheFileTypeBox() throws {
        let bytes = InitSegment.make(video: try Self.video(), audio: try Self.audio())
        #expect(Array(bytes.prefix(28)) == [
            0x00, 0x00, 0x00, 0x1C,  // size 28
            0x66, 0x74, 0x79, 0x70,  // "ftyp"
            0x69, 0x73, 0x6F, 0x36,  // major_brand "iso6"
            0x00, 0x00, 0x00, 0x00,  // minor_version 0
            0x69, 0x73, 0x6F, 0x36,  // compatible "iso6"
            0x63, 0x6D, 0x66, 0x63,  // compatible "cmfc"
            0x6D, 0x70, 0x34, 0x31,  // compatible "mp41"
        ])
    }

    @Test func describesBothTracksInTheBoxLayoutOf14496_12() throws {
        let boxes = try Box.parse(InitSegment.make(video: try Self.video(), audio: try Self.audio()))
        #expect(boxes.map(\.type) == ["ftyp", "moov"])
        let moov = boxes[1]
        let stbl = { (entry: String) in "stbl[stsd[\(entry)] stts stsc stsz stco]" }
        #expect(moov.description == "moov[mvhd "
            + "trak[tkhd mdia[mdhd hdlr minf[vmhd dinf[dref[url ]] \(stbl("avc1[avcC]"))]]] "
            + "trak[tkhd mdia[mdhd hdlr minf[smhd dinf[dref[url ]] \(stbl("mp4a[esds]"))]]] "
            + "mvex[trex trex]]")

        let mvhd = try #require(moov.find("mvhd"))
        #expect(mvhd.payload.count == 100)  // version 0 mvhd: 108 bytes with its header
        #expect(mvhd.uint(at: 12, width: 4) == 1000)  // timescale
        #expect(mvhd.uint(at: 96, width: 4) == 3)  // next_track_ID

        let tracks = moov.all("trak")
        let videoHeader = try #require(tracks[0].find("tkhd"))
        #expect(videoHeader.payload.count == 84)  // version 0 tkhd: 92 bytes
        #expect(videoHeader.flags == 3)  // enabled, in movie
        #expect(videoHeader.uint(at: 12, width: 4) == 1)  // track_ID
        #expect(videoHeader.uint(at: 36, width: 2) == 0)  // volume 0 for video
        #expect(videoHeader.uint(at: 76, width: 4) == 640 << 16)  // width 16.16
        #expect(videoHeader.uint(at: 80, width: 4) == 360 << 16)  // height 16.16
        let audioHeader = try #require(tracks[1].find("tkhd"))
        #expect(audioHeader.uint(at: 12, width: 4) == 2)
        #expect(audioHeader.uint(at: 36, width: 2) == 0x0100)  // volume 1.0

        #expect(tracks[0].find("mdia/mdhd")?.uint(at: 12, width: 4) == 90_000)
        #expect(tracks[1].find("mdia/mdhd")?.uint(at: 12, width: 4) == 48_000)
        #expect(tracks[0].find("mdia/mdhd")?.uint(at: 20, width: 2) == 0x55C4)  // "und"
        #expect(tracks[0].find("mdia/hdlr").map { Array($0.payload[8..<12]) } == Array("vide".utf8))
        #expect(tracks[1].find("mdia/hdlr").map { Array($0.payload[8..<12]) } == Array("soun".utf8))
        #expect(tracks[0].find("mdia/minf/dinf/dref/url ")?.flags == 1)  // media in the same file

        let avc1 = try #require(tracks[0].find("mdia/minf/stbl/stsd/avc1"))
        #expect(avc1.uint(at: 6, width: 2) == 1)  // data_reference_index
        #expect(avc1.uint(at: 24, width: 2) == 640)
        #expect(avc1.uint(at: 26, width: 2) == 360)
        #expect(avc1.uint(at: 74, width: 2) == 0x0018)  // depth
        #expect(avc1.find("avcC")?.payload == Self.avcC)

        let mp4a = try #require(tracks[1].find("mdia/minf/stbl/stsd/mp4a"))
        #expect(mp4a.uint(at: 16, width: 2) == 2)  // channelcount
        #expect(mp4a.uint(at: 18, width: 2) == 16)  // samplesize
        #expect(mp4a.uint(at: 24, width: 4) == 48_000 << 16)  // samplerate 16.16
        #expect(mp4a.find("esds")?.payload == [
            0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
            0x03, 0x19,  // ES_Descriptor, 25 bytes
            0x00, 0x00,  // ES_ID 0
            0x00,  // no dependence, URL or OCR stream; priority 0
            0x04, 0x11,  // DecoderConfigDescriptor, 17 bytes
            0x40,  // objectTypeIndication: MPEG-4 Audio
            0x15,  // streamType 5 (audio) << 2, upStream 0, reserved 1
            0x00, 0x00, 0x00,  // bufferSizeDB
            0x00, 0x00, 0x00, 0x00,  // maxBitrate
            0x00, 0x00, 0x00, 0x00,  // avgBitrate
            0x05, 0x02,  // DecoderSpecificInfo, 2 bytes
            0x11, 0x90,  // AudioSpecificConfig: AAC-LC, 48 kHz, stereo
            0x06, 0x01,  // SLConfigDescriptor, 1 byte
            0x02,  // predefined: MP4
        ])

        for box in [tracks[0], tracks[1]] {
            let sampleTables = try #require(box.find("mdia/minf/stbl"))
            for table in ["stts", "stsc", "stco"] {
                #expect(sampleTables.find(table)?.payload == [0, 0, 0, 0, 0, 0, 0, 0], "\(table) must be empty")
            }
            #expect(sampleTables.find("stsz")?.payload == [UInt8](repeating: 0, count: 12))
        }
        let extends = moov.find("mvex")?.all("trex") ?? []
        #expect(extends.map { $0.uint(at: 4, width: 4) } == [1, 2])  // track_ID
        #expect(extends.map { $0.uint(at: 8, width: 4) } == [1, 1])  // default_sample_description_index
    }

    @Test func writesASingleTrackWhenTheStreamHasOnlyOne() throws {
        let videoOnly = try Box.parse(InitSegment.make(video: try Self.video(), audio: nil))[1]
        #expect(videoOnly.all("trak").count == 1)
        #expect(videoOnly.find("trak/mdia/hdlr").map { Array($0.payload[8..<12]) } == Array("vide".utf8))
        #expect(videoOnly.find("mvex")?.all("trex").map { $0.uint(at: 4, width: 4) } == [1])
        let audioOnly = try Box.parse(InitSegment.make(video: nil, audio: try Self.audio()))[1]
        #expect(audioOnly.all("trak").count == 1)
        #expect(audioOnly.find("trak/tkhd")?.uint(at: 12, width: 4) == 2)
        #expect(audioOnly.find("mvex")?.all("trex").map { $0.uint(at: 4, width: 4) } == [2])
    }

    @Test func codecStringsFollowRFC6381() throws {
        #expect(try Self.video().codec == "avc1.64001e")
        #expect(try Self.audio().codec == "mp4a.40.2")
        #expect(try Self.audio().timescale == 48_000)
        #expect(try Self.audio().channelCount == 2)
    }

    @Test func refusesConfigurationsItCannotDescribe() {
        #expect(throws: MP4Error.self) { try VideoTrack(configurationBytes: []) }
        #expect(throws: MP4Error.self) { try VideoTrack(configurationBytes: Array(Self.avcC.prefix(10))) }
        #expect(throws: MP4Error.self) { try AudioTrack(configurationBytes: []) }
        #expect(throws: MP4Error.self) {
            try AudioTrack(configurationBytes: [0x11, 0x90] + [UInt8](repeating: 0, count: 80))
        }
    }

    @Test func descriptorSizesUseTheExpandableForm() {
        // ISO/IEC 14496-1 §8.3.3: 200 = 0b1_1001000 → 0x81 0x48.
        let body = [UInt8](repeating: 0xAA, count: 200)
        #expect(Array(ElementaryStreamDescriptor.descriptor(0x05, body).prefix(3)) == [0x05, 0x81, 0x48])
        #expect(Array(ElementaryStreamDescriptor.descriptor(0x05, [1, 2]).prefix(2)) == [0x05, 0x02])
    }
}
