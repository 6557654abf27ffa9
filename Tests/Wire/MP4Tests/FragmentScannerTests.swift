import Testing
import TestSupport
@testable import MP4

@Suite struct FragmentScannerTests {
    /// A hand-made file: one video track at 90 kHz whose durations come from defaults (the `trex`'s, then the
    /// `tfhd`'s), a fragment whose first sample's flags are `trun`'s first-sample-flags, and a box we do not know.
    static let ftyp: [UInt8] = [
        0x00, 0x00, 0x00, 0x10, 0x66, 0x74, 0x79, 0x70,  // ftyp, 16 bytes
        0x69, 0x73, 0x6F, 0x36,  // major brand iso6
        0x00, 0x00, 0x00, 0x00,  // minor version
    ]
    static let moov: [UInt8] = [
        0x00, 0x00, 0x00, 0x88, 0x6D, 0x6F, 0x6F, 0x76,  // moov, 136 bytes
        0x00, 0x00, 0x00, 0x58, 0x74, 0x72, 0x61, 0x6B,  // trak, 88 bytes
        0x00, 0x00, 0x00, 0x18, 0x74, 0x6B, 0x68, 0x64,  // tkhd, 24 bytes
        0x00, 0x00, 0x00, 0x03,  // version 0, flags enabled | in movie
        0x00, 0x00, 0x00, 0x00,  // creation_time
        0x00, 0x00, 0x00, 0x00,  // modification_time
        0x00, 0x00, 0x00, 0x01,  // track_ID 1
        0x00, 0x00, 0x00, 0x38, 0x6D, 0x64, 0x69, 0x61,  // mdia, 56 bytes
        0x00, 0x00, 0x00, 0x18, 0x6D, 0x64, 0x68, 0x64,  // mdhd, 24 bytes
        0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
        0x00, 0x00, 0x00, 0x00,  // creation_time
        0x00, 0x00, 0x00, 0x00,  // modification_time
        0x00, 0x01, 0x5F, 0x90,  // timescale 90000
        0x00, 0x00, 0x00, 0x18, 0x68, 0x64, 0x6C, 0x72,  // hdlr, 24 bytes
        0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
        0x00, 0x00, 0x00, 0x00,  // pre_defined
        0x76, 0x69, 0x64, 0x65,  // handler_type vide
        0x00, 0x00, 0x00, 0x00,  // reserved (the name would follow)
        0x00, 0x00, 0x00, 0x28, 0x6D, 0x76, 0x65, 0x78,  // mvex, 40 bytes
        0x00, 0x00, 0x00, 0x20, 0x74, 0x72, 0x65, 0x78,  // trex, 32 bytes
        0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
        0x00, 0x00, 0x00, 0x01,  // track_ID 1
        0x00, 0x00, 0x00, 0x01,  // default_sample_description_index
        0x00, 0x00, 0x0B, 0xB8,  // default_sample_duration 3000 (1/30 s)
        0x00, 0x00, 0x00, 0x00,  // default_sample_size
        0x01, 0x01, 0x00, 0x00,  // default_sample_flags: non-sync
    ]
    /// Two samples of the trex's 3000 ticks, at 90000 (1 s); its first sample a keyframe by first-sample-flags.
    static let firstFragment: [UInt8] = [
        0x00, 0x00, 0x00, 0x58, 0x6D, 0x6F, 0x6F, 0x66,  // moof, 88 bytes
        0x00, 0x00, 0x00, 0x10, 0x6D, 0x66, 0x68, 0x64,  // mfhd, 16 bytes
        0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
        0x00, 0x00, 0x00, 0x01,  // sequence_number 1
        0x00, 0x00, 0x00, 0x40, 0x74, 0x72, 0x61, 0x66,  // traf, 64 bytes
        0x00, 0x00, 0x00, 0x10, 0x74, 0x66, 0x68, 0x64,  // tfhd, 16 bytes
        0x00, 0x02, 0x00, 0x00,  // version 0, flags default-base-is-moof
        0x00, 0x00, 0x00, 0x01,  // track_ID 1
        0x00, 0x00, 0x00, 0x10, 0x74, 0x66, 0x64, 0x74,  // tfdt, 16 bytes
        0x00, 0x00, 0x00, 0x00,  // version 0, flags 0
        0x00, 0x01, 0x5F, 0x90,  // baseMediaDecodeTime 90000 (32-bit)
        0x00, 0x00, 0x00, 0x18, 0x74, 0x72, 0x75, 0x6E,  // trun, 24 bytes
        0x00, 0x00, 0x00, 0x05,  // version 0, flags data-offset | first-sample-flags
        0x00, 0x00, 0x00, 0x02,  // sample_count 2 (durations and flags: the defaults)
        0x00, 0x00, 0x00, 0x60,  // data_offset 96: moof (88) + mdat header (8)
        0x02, 0x00, 0x00, 0x00,  // first_sample_flags: depends on no other sample (sync)
        0x00, 0x00, 0x00, 0x0C, 0x6D, 0x64, 0x61, 0x74,  // mdat, 12 bytes
        0x65, 0x88, 0x41, 0x9A,  // the two samples' bytes
    ]
    /// One sample lasting 4500 ticks by the tfhd's default duration; no first-sample-flags: the trex's non-sync.
    static let secondFragment: [UInt8] = [
        0x00, 0x00, 0x00, 0x08, 0x66, 0x72, 0x65, 0x65,  // free, 8 bytes: skipped
        0x00, 0x00, 0x00, 0x54, 0x6D, 0x6F, 0x6F, 0x66,  // moof, 84 bytes
        0x00, 0x00, 0x00, 0x4C, 0x74, 0x72, 0x61, 0x66,  // traf, 76 bytes
        0x00, 0x00, 0x00, 0x14, 0x74, 0x66, 0x68, 0x64,  // tfhd, 20 bytes
        0x00, 0x02, 0x00, 0x08,  // version 0, flags default-base-is-moof | default-sample-duration
        0x00, 0x00, 0x00, 0x01,  // track_ID 1
        0x00, 0x00, 0x11, 0x94,  // default_sample_duration 4500
        0x00, 0x00, 0x00, 0x08, 0x73, 0x64, 0x74, 0x70,  // sdtp, 8 bytes: not read
        0x00, 0x00, 0x00, 0x14, 0x74, 0x66, 0x64, 0x74,  // tfdt, 20 bytes
        0x01, 0x00, 0x00, 0x00,  // version 1, flags 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x77, 0x00,  // baseMediaDecodeTime 96000 (64-bit)
        0x00, 0x00, 0x00, 0x14, 0x74, 0x72, 0x75, 0x6E,  // trun, 20 bytes
        0x00, 0x00, 0x00, 0x01,  // version 0, flags data-offset
        0x00, 0x00, 0x00, 0x01,  // sample_count 1
        0x00, 0x00, 0x00, 0x5C,  // data_offset 92: moof (84) + mdat header (8)
        0x00, 0x00, 0x00, 0x0A, 0x6D, 0x64, 0x61, 0x74,  // mdat, 10 bytes
        0x41, 0x9B,  // the sample's bytes
    ]

    static var file: [UInt8] { ftyp + moov + firstFragment + secondFragment }

    /// How the test's driver answers reads: what was asked, a byte at a time, or more than asked.
    static func scan(_ file: [UInt8], _ mode: FeedMode) throws(MP4Error) -> FragmentIndex? {
        var scanner = FragmentScanner(fileSize: file.count)
        var step = try scanner.start()
        var reads = 0
        while case .read(let offset, let count) = step {
            reads += 1
            guard reads < 100_000, offset >= 0, count > 0, offset + count <= file.count else { return nil }
            let answer: ArraySlice<UInt8>
            switch mode {
            case .whole: answer = file[offset..<(offset + count)]
            case .byteByByte: answer = file[offset..<(offset + 1)]
            case .merged: answer = file[offset...]
            }
            step = try scanner.received(Array(answer))
        }
        guard case .done(let index) = step else { return nil }
        return index
    }

    @Test(arguments: FeedMode.allCases)
    func findsTheInitSegmentAndEachFragmentWithItsTimes(mode: FeedMode) throws {
        let index = try #require(try Self.scan(Self.file, mode))
        let initEnd = Self.ftyp.count + Self.moov.count
        #expect(index.initSegment == 0..<initEnd)
        #expect(index.timingTrackID == 1 && index.timescale == 90_000 && index.hasVideo)
        let secondStart = initEnd + Self.firstFragment.count + 8  // after the free box
        #expect(index.fragments == [
            FragmentIndex.Fragment(range: initEnd..<(initEnd + Self.firstFragment.count), decodeTime: 90_000,
                                   duration: 6000, startsWithSyncSample: true),
            FragmentIndex.Fragment(range: secondStart..<Self.file.count, decodeTime: 96_000, duration: 4500,
                                   startsWithSyncSample: false),
        ])
        #expect(abs(index.durationSeconds - 0.116_666) < 0.000_01)
    }

    /// A file still being written (or cut by a crash) ends at its last whole fragment.
    @Test(arguments: [1, 9, 40, 73])
    func aFileCutShortEndsAtItsLastWholeFragment(cutFromEnd: Int) throws {
        let index = try #require(try Self.scan(Array(Self.file.dropLast(cutFromEnd)), .whole))
        #expect(index.fragments.count == 1)
        let bare = try #require(try Self.scan(Self.ftyp + Self.moov + Self.firstFragment.dropLast(3), .whole))
        #expect(bare.fragments.isEmpty)
    }

    @Test func bytesThatAreNotFragmentedMP4Throw() {
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("no moov", Self.ftyp),
            ("moof before moov", Self.ftyp + Self.firstFragment + Self.moov),
            ("a box smaller than its header", Self.ftyp + [0x00, 0x00, 0x00, 0x04, 0x6D, 0x6F, 0x6F, 0x76]),
            ("a child that overruns the moov", Self.ftyp + Self.moov.prefix(8) + [0x00, 0x00, 0xFF, 0xFF]
                + Self.moov.dropFirst(12)),
        ]
        for (name, bytes) in cases {
            #expect(throws: MP4Error.self, "\(name)") { _ = try Self.scan(bytes, .whole) }
        }
    }

    /// What our writer makes (two tracks, 64-bit tfdt, every field per sample) reads back as written.
    @Test func readsBackWhatTheWriterWrites() throws {
        let initSegment = InitSegment.make(video: try InitSegmentTests.video(), audio: try InitSegmentTests.audio())
        let first = MovieFragment.make(sequenceNumber: 1, tracks: [MovieFragmentTests.video, MovieFragmentTests.audio])
        let second = MovieFragment.make(sequenceNumber: 2, tracks: [MovieFragmentTests.audio])
        let index = try #require(try Self.scan(initSegment + first + second, .whole))
        #expect(index.initSegment == 0..<initSegment.count)
        #expect(index.timingTrackID == VideoTrack.trackID && index.timescale == 90_000)
        #expect(index.fragments.map(\.range) == [
            initSegment.count..<(initSegment.count + first.count),
            (initSegment.count + first.count)..<(initSegment.count + first.count + second.count),
        ])
        #expect(index.fragments[0].decodeTime == 0x1_0000_0000 && index.fragments[0].duration == 6000)
        #expect(index.fragments[0].startsWithSyncSample)
        // Audio alone: its 1024 ticks at 48 kHz, on the video's 90 kHz.
        #expect(index.fragments[1].duration == 1920 && !index.fragments[1].startsWithSyncSample)
        // The video trun's sample_count (after moof, mfhd, traf, tfhd, tfdt and the trun's own header) says 65536
        // samples where two are: malformed, not a read past the box.
        var lying = first
        let countAt = 8 + 16 + 8 + 16 + 20 + 8 + 4
        #expect(lying[countAt..<(countAt + 4)] == [0x00, 0x00, 0x00, 0x02])
        lying.replaceSubrange(countAt..<(countAt + 4), with: [0x00, 0x01, 0x00, 0x00])
        #expect(throws: MP4Error.self) { _ = try Self.scan(initSegment + lying, .whole) }
    }
}
