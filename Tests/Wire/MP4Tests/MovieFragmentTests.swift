import Testing
import TestSupport
@testable import MP4

@Suite struct MovieFragmentTests {
    static let video = TrackFragment(trackID: 1, baseDecodeTime: 0x1_0000_0000, samples: [
        FragmentSample(duration: 3000, compositionOffset: 6000, isSync: true, data: [0, 0, 0, 2, 0x65, 0x88]),
        FragmentSample(duration: 3000, compositionOffset: -3000, isSync: false, data: [0, 0, 0, 1, 0x41]),
    ])
    static let audio = TrackFragment(trackID: 2, baseDecodeTime: 48_000, samples: [
        FragmentSample(duration: 1024, isSync: true, data: [0x21, 0x10, 0x04]),
    ])

    @Test func writesMoofAndMdatByteForByte() {
        let bytes = MovieFragment.make(sequenceNumber: 7, tracks: [Self.video, Self.audio])
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0xC8, 0x6D, 0x6F, 0x6F, 0x66,  // moof, 200 bytes
            0x00, 0x00, 0x00, 0x10, 0x6D, 0x66, 0x68, 0x64,  // mfhd, 16 bytes
            0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
            0x00, 0x00, 0x00, 0x07,  // sequence_number 7
            0x00, 0x00, 0x00, 0x60, 0x74, 0x72, 0x61, 0x66,  // traf, 96 bytes
            0x00, 0x00, 0x00, 0x10, 0x74, 0x66, 0x68, 0x64,  // tfhd, 16 bytes
            0x00, 0x02, 0x00, 0x00,  // version 0, flags default-base-is-moof
            0x00, 0x00, 0x00, 0x01,  // track_ID 1
            0x00, 0x00, 0x00, 0x14, 0x74, 0x66, 0x64, 0x74,  // tfdt, 20 bytes
            0x01, 0x00, 0x00, 0x00,  // version 1, flags 0
            0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,  // baseMediaDecodeTime 2^32 (64-bit)
            0x00, 0x00, 0x00, 0x34, 0x74, 0x72, 0x75, 0x6E,  // trun, 52 bytes
            0x01, 0x00, 0x0F, 0x01,  // version 1 (signed offsets), flags: offset, duration, size, flags, cto
            0x00, 0x00, 0x00, 0x02,  // sample_count 2
            0x00, 0x00, 0x00, 0xD0,  // data_offset 208: moof (200) + mdat header (8)
            0x00, 0x00, 0x0B, 0xB8,  // sample 1: duration 3000
            0x00, 0x00, 0x00, 0x06,  //   size 6
            0x02, 0x00, 0x00, 0x00,  //   flags: depends on no other sample (sync)
            0x00, 0x00, 0x17, 0x70,  //   composition offset +6000
            0x00, 0x00, 0x0B, 0xB8,  // sample 2: duration 3000
            0x00, 0x00, 0x00, 0x05,  //   size 5
            0x01, 0x01, 0x00, 0x00,  //   flags: depends on others, non-sync
            0xFF, 0xFF, 0xF4, 0x48,  //   composition offset -3000
            0x00, 0x00, 0x00, 0x50, 0x74, 0x72, 0x61, 0x66,  // traf, 80 bytes
            0x00, 0x00, 0x00, 0x10, 0x74, 0x66, 0x68, 0x64,  // tfhd, 16 bytes
            0x00, 0x02, 0x00, 0x00,  // version 0, flags default-base-is-moof
            0x00, 0x00, 0x00, 0x02,  // track_ID 2
            0x00, 0x00, 0x00, 0x14, 0x74, 0x66, 0x64, 0x74,  // tfdt, 20 bytes
            0x01, 0x00, 0x00, 0x00,  // version 1, flags 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xBB, 0x80,  // baseMediaDecodeTime 48000
            0x00, 0x00, 0x00, 0x24, 0x74, 0x72, 0x75, 0x6E,  // trun, 36 bytes
            0x01, 0x00, 0x0F, 0x01,  // version 1, same flags
            0x00, 0x00, 0x00, 0x01,  // sample_count 1
            0x00, 0x00, 0x00, 0xDB,  // data_offset 219: after the video's 11 bytes
            0x00, 0x00, 0x04, 0x00,  // duration 1024
            0x00, 0x00, 0x00, 0x03,  // size 3
            0x02, 0x00, 0x00, 0x00,  // flags: sync
            0x00, 0x00, 0x00, 0x00,  // composition offset 0
            0x00, 0x00, 0x00, 0x16, 0x6D, 0x64, 0x61, 0x74,  // mdat, 22 bytes
            0x00, 0x00, 0x00, 0x02, 0x65, 0x88,  // video sample 1
            0x00, 0x00, 0x00, 0x01, 0x41,  // video sample 2
            0x21, 0x10, 0x04,  // audio sample
        ]
        #expect(bytes == expected)
    }

    @Test func dataOffsetsPointAtEachTracksSamples() throws {
        let bytes = MovieFragment.make(sequenceNumber: 1, tracks: [Self.audio, Self.video])
        let boxes = try Box.parse(bytes)
        #expect(boxes.map(\.type) == ["moof", "mdat"])
        for traf in boxes[0].all("traf") {
            let trun = try #require(traf.find("trun"))
            let offset = Int(trun.uint(at: 8, width: 4))
            let trackID = traf.find("tfhd")?.uint(at: 4, width: 4)
            let first = trackID == 1 ? Self.video.samples[0].data : Self.audio.samples[0].data
            #expect(Array(bytes[offset..<offset + first.count]) == first)
        }
    }

    @Test func leavesOutEmptyTracksAndEmptyFragments() throws {
        let empty = TrackFragment(trackID: 2, baseDecodeTime: 0, samples: [])
        #expect(MovieFragment.make(sequenceNumber: 1, tracks: [empty]).isEmpty)
        let boxes = try Box.parse(MovieFragment.make(sequenceNumber: 1, tracks: [Self.video, empty]))
        #expect(boxes[0].all("traf").count == 1)
        #expect(Self.video.duration == 6000)
    }

    @Test func sampleFlagsFollow14496_12() {
        #expect(SampleFlags.sync.isSync)
        #expect(!SampleFlags.nonSync.isSync)
        #expect(FragmentSample(duration: 1, isSync: false, data: []).flags == .nonSync)
    }
}

@Suite struct TrackFragmentTests {
    @Test func samplesLastUntilTheNextDecodeTimeAndTheLastKeepsItsEstimate() throws {
        let timed = [(0, 3000), (3060, 3060), (5940, 2880)].map { time, duration in
            TimedSample(track: .video, decodeTime: Int64(time),
                        sample: FragmentSample(duration: UInt32(duration), isSync: false, data: [1]))
        }
        let fragment = try #require(TrackFragment(trackID: 1, timedSamples: timed))
        #expect(fragment.baseDecodeTime == 0)
        #expect(fragment.samples.map(\.duration) == [3060, 2880, 2880])
        #expect(TrackFragment(trackID: 1, timedSamples: []) == nil)
    }
}
