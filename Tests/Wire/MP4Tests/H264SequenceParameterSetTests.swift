import Testing
@testable import MP4

@Suite struct H264SequenceParameterSetTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var bytes: [UInt8]
        var profile: UInt8
        var level: UInt8
        var width: Int
        var height: Int
        var description: String { name }
    }

    /// SPS NAL units x264 wrote for ffmpeg's testsrc2 (ffmpeg -c:v libx264 -profile:v P -f h264), with the size
    /// ffprobe reports for each stream.
    static let vectors: [Vector] = [
        // High (100), level 3.0, 40x23 macroblocks (368 rows) cropped by 4 chroma rows to 360.
        Vector(name: "640x360 High", bytes: hex("6764001eacd940a02ff970110000030001000003003c0f162d96"),
               profile: 100, level: 30, width: 640, height: 360),
        // Constrained Baseline (66, constraint_set0/1), level 3.1, no cropping.
        Vector(name: "1280x720 Baseline", bytes: hex("6742c01fd9005005bb0110000003001000000303c0f1832480"),
               profile: 66, level: 31, width: 1280, height: 720),
        // Main (77), level 4.0, 68 macroblock rows (1088) cropped to 1080.
        Vector(name: "1920x1080 Main", bytes: hex("674d4028eca03c0113f2e022000003000200000300781e30632c"),
               profile: 77, level: 40, width: 1920, height: 1080),
        // High, interlaced (frame_mbs_only_flag 0): 15 map units of field pairs = 30 macroblock rows.
        Vector(name: "720x480 interlaced", bytes: hex("6764001eacd940b47b6022000003000200000300783e28532c"),
               profile: 100, level: 30, width: 720, height: 480),
    ]

    @Test(arguments: vectors)
    func readsProfileLevelAndCroppedSize(vector: Vector) throws {
        let sps = try H264SequenceParameterSet(parsing: vector.bytes)
        #expect(sps.profile == vector.profile)
        #expect(sps.level == vector.level)
        #expect(sps.width == vector.width)
        #expect(sps.height == vector.height)
        #expect(sps.chromaFormat == 1)
        #expect(sps.bitDepthLuma == 8)
    }

    @Test(arguments: vectors)
    func everyTruncationThrowsOrReadsTheSameFields(vector: Vector) throws {
        // Parsing stops after the cropping fields, so a cut in the VUI still reads the same picture; a cut before
        // must be an error, never a guess.
        let full = try H264SequenceParameterSet(parsing: vector.bytes)
        var shortestParsed = vector.bytes.count
        for length in (0..<vector.bytes.count).reversed() {
            guard let parsed = try? H264SequenceParameterSet(parsing: vector.bytes.prefix(length)) else { continue }
            #expect(parsed == full, "a cut at \(length) bytes read other fields")
            shortestParsed = length
        }
        #expect(shortestParsed >= 6)
        for length in 0..<shortestParsed {
            #expect(throws: MP4Error.self) { try H264SequenceParameterSet(parsing: vector.bytes.prefix(length)) }
        }
    }

    @Test func refusesANonSPSAndHostileBytes() throws {
        #expect(throws: MP4Error.self) { try H264SequenceParameterSet(parsing: hex("68ebe3cb22c0")) }  // a PPS
        // A width of 2^20 macroblocks: larger than any level allows.
        // Baseline: sps id 0, log2_max_frame_num_minus4 0, poc type 2, 0 reference frames, no gaps,
        // pic_width_in_mbs_minus1 2^20 - 1, height 1 macroblock, frame macroblocks only, direct 8x8, no cropping.
        let huge: [UInt8] = [0x67, 66, 0, 30, 0xDC, 0x00, 0x00, 0x10, 0x00, 0x00, 0xEF]
        #expect(throws: MP4Error.self) { try H264SequenceParameterSet(parsing: huge) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let length = Int.random(in: 1...40, using: &generator)
            let bytes = [0x67] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let sps = try? H264SequenceParameterSet(parsing: bytes) {
                #expect(sps.width > 0 && sps.width <= 16384 && sps.height > 0 && sps.height <= 32768)
            }
        }
    }
}

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
