@testable import RTP
import Testing

/// Access units through our packetizer (RFC 6184 single NAL units, STAP-A, FU-A) and back, with loss.
struct H264FrameAssemblerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F, 0xDA, 0x02, 0x80]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let idr: [UInt8] = [0x65] + (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
    static let slice: [UInt8] = [0x41] + Array(repeating: 0x9A, count: 500)

    /// The RTP packets of frames, 3000 ticks (30 fps) apart, with consecutive sequence numbers.
    static func packets(_ frames: [[[UInt8]]], firstSequence: UInt16 = 65_530,
                        firstTimestamp: UInt32 = 0xFFFF_F000) -> [RTPPacket] {
        let packetizer = H264Packetizer(maximumPayloadSize: 1200)
        var sequence = firstSequence
        var packets: [RTPPacket] = []
        for (index, frame) in frames.enumerated() {
            let payloads = packetizer.payloads(for: frame)
            for (number, payload) in payloads.enumerated() {
                packets.append(RTPPacket(payloadType: 102, marker: number == payloads.count - 1,
                                         sequenceNumber: sequence,
                                         timestamp: firstTimestamp &+ UInt32(index * 3000), ssrc: 1,
                                         payload: payload))
                sequence &+= 1
            }
        }
        return packets
    }

    @Test func rebuildsFramesAcrossSequenceAndTimestampWraparound() {
        let frames = [[Self.sps, Self.pps, Self.idr], [Self.slice], [Self.slice]]
        var assembler = H264FrameAssembler()
        let out = Self.packets(frames).flatMap { assembler.push($0) }
        #expect(out.map(\.nalUnits) == frames)
        #expect(out.map(\.timestamp) == [0, 3000, 6000])
        #expect(out.map(\.isKeyframe) == [true, false, false])
        #expect(assembler.droppedFrames == 0)
    }

    @Test func waitsForAKeyframeAndDropsWhatALossBreaks() {
        let frames = [[Self.slice], [Self.sps, Self.pps, Self.idr], [Self.slice], [Self.slice],
                      [Self.sps, Self.pps, Self.idr], [Self.slice]]
        var packets = Self.packets(frames)
        var fresh = H264FrameAssembler()
        #expect(!fresh.needsKeyframe, "nothing is asked before the first frame")
        _ = fresh.push(packets[0])
        #expect(fresh.needsKeyframe, "a frame before any keyframe was dropped")
        // Frame 2's one packet is lost.
        let frame2 = packets.firstIndex { $0.timestamp == 0xFFFF_F000 &+ 6000 }!
        packets.remove(at: frame2)
        var assembler = H264FrameAssembler()
        let out = packets.flatMap { assembler.push($0) }
        // Frame 0 comes before any keyframe and frame 3 after the gap (it may refer to frame 2): both dropped.
        #expect(out.map(\.timestamp) == [3000, 12_000, 15_000])
        #expect(assembler.droppedFrames == 2)
        #expect(!assembler.needsKeyframe, "the last keyframe came after the drops")
    }

    @Test func aLostMarkerEndsTheFrameAtTheNextTimestamp() {
        var packets = Self.packets([[Self.sps, Self.pps, Self.idr], [Self.slice]])
        let last = packets.lastIndex { $0.timestamp == 0xFFFF_F000 }!
        packets[last].marker = false
        var assembler = H264FrameAssembler()
        let out = packets.flatMap { assembler.push($0) }
        #expect(out.map(\.timestamp) == [0, 3000])
    }
}

/// The keyframe request pacing.
struct KeyframeRequestsTests {
    @Test func asksWhileWaitingAtMostOncePerInterval() {
        var requests = KeyframeRequests(interval: .milliseconds(500))
        let asks = [(false, Duration.zero), (true, .milliseconds(10)), (true, .milliseconds(300)),
                    (true, .milliseconds(510)), (false, .seconds(5)), (true, .seconds(6))]
            .map { requests.shouldRequest(waiting: $0.0, now: $0.1) }
        #expect(asks == [false, true, false, true, false, true])
        #expect(requests.sent == 3)
    }

    @Test func asksWhenTheLastKeyframeIsOlderThanTheMaximumInterval() {
        var requests = KeyframeRequests(interval: .milliseconds(500), maximumKeyframeInterval: .seconds(2))
        let asks = [(nil, Duration.seconds(5)), (.seconds(1), .seconds(2)), (.seconds(1), .seconds(3)),
                    (.seconds(1), .milliseconds(3200)), (.seconds(1), .milliseconds(3600))]
            .map { requests.shouldRequest(waiting: false, lastKeyframe: $0.0, now: $0.1) }
        #expect(asks == [false, false, true, false, true])
    }
}
