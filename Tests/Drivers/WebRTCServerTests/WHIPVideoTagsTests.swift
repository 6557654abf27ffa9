import FLV
import RTP
import Testing
@testable import WebRTCServer

/// WHIP's H.264 frames as an RTMP publish's FLV tags.
struct WHIPVideoTagsTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F, 0xDA, 0x02, 0x80]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let idr: [UInt8] = [0x65, 0x88, 0x84]
    static let slice: [UInt8] = [0x41, 0x9A, 0x02]

    static func frame(_ units: [[UInt8]], at timestamp: Int64, key: Bool) -> H264FrameAssembler.Frame {
        H264FrameAssembler.Frame(nalUnits: units, timestamp: timestamp, isKeyframe: key)
    }

    @Test func aSequenceHeaderPrecedesTheFirstFrameAndEveryNewConfiguration() throws {
        var tags = WHIPVideoTags()
        #expect(tags.tags(for: Self.frame([Self.slice], at: 900, key: false)).isEmpty)
        #expect(tags.droppedBeforeConfiguration == 1)

        let first = tags.tags(for: Self.frame([[0x09, 0xF0], Self.sps, Self.pps, Self.idr], at: 1800, key: true))
        #expect(first.count == 2 && first[0].isSequenceHeader && first[1].isVideoKeyFrame)
        let record = try AVCDecoderConfigurationRecord(parsing: try FLVVideoTagBody(parsing: first[0].body).data)
        #expect(record.sequenceParameterSets == [Self.sps] && record.pictureParameterSets == [Self.pps])
        // Only the slices, length-prefixed; the delimiter and parameter sets are not repeated in the frame.
        #expect(try FLVVideoTagBody(parsing: first[1].body).data == [0, 0, 0, 3] + Self.idr)
        #expect(first.map(\.timestamp) == [0, 0])

        let next = tags.tags(for: Self.frame([Self.slice], at: 1800 + 3000, key: false))
        #expect(next.count == 1 && !next[0].isVideoKeyFrame && next[0].timestamp == 33)
        // The same parameter sets again: no new header; different ones: a new header.
        #expect(tags.tags(for: Self.frame([Self.sps, Self.pps, Self.idr], at: 1800 + 6000, key: true)).count == 1)
        let changed = [0x67, 0x64, 0x00, 0x28, 0xAC] as [UInt8]
        let again = tags.tags(for: Self.frame([changed, Self.pps, Self.idr], at: 1800 + 9000, key: true))
        #expect(again.count == 2 && again[0].isSequenceHeader && again[0].timestamp == 100)
    }
}
