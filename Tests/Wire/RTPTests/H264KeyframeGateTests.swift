import Testing
@testable import RTP

struct H264KeyframeGateTests {
    static func packet(_ payload: [UInt8], timestamp: UInt32, marker: Bool, sequence: UInt16 = 0) -> [UInt8] {
        RTPPacket(payloadType: 102, marker: marker, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1,
                  payload: payload).encoded
    }

    @Test func tellsKeyframeStartsApart() {
        #expect(H264KeyframeGate.beginsKeyframe(Self.packet([0x67, 0x42], timestamp: 0, marker: false)))  // SPS
        #expect(H264KeyframeGate.beginsKeyframe(Self.packet([0x65, 0x88], timestamp: 0, marker: true)))  // IDR
        #expect(!H264KeyframeGate.beginsKeyframe(Self.packet([0x41, 0x9a], timestamp: 0, marker: true)))  // P slice
        // STAP-A with an SPS (2 bytes) and a PPS (2 bytes).
        #expect(H264KeyframeGate.beginsKeyframe(Self.packet([0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce],
                                                            timestamp: 0, marker: false)))
        #expect(!H264KeyframeGate.beginsKeyframe(Self.packet([0x78, 0, 2, 0x68, 0xce], timestamp: 0, marker: false)))
        // FU-A: start of an IDR, then its middle, then the start of a P slice.
        #expect(H264KeyframeGate.beginsKeyframe(Self.packet([0x7c, 0x85, 0], timestamp: 0, marker: false)))
        #expect(!H264KeyframeGate.beginsKeyframe(Self.packet([0x7c, 0x05, 0], timestamp: 0, marker: false)))
        #expect(!H264KeyframeGate.beginsKeyframe(Self.packet([0x7c, 0x81, 0], timestamp: 0, marker: false)))
    }

    @Test func keepsTheLastCompleteKeyframe() {
        var gate = H264KeyframeGate(maximumPackets: 3)
        let sps = Self.packet([0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce], timestamp: 3000, marker: false, sequence: 1)
        let idrStart = Self.packet([0x7c, 0x85, 1], timestamp: 3000, marker: false, sequence: 2)
        let idrEnd = Self.packet([0x7c, 0x45, 2], timestamp: 3000, marker: true, sequence: 3)
        let slice = Self.packet([0x41, 0x9a], timestamp: 6000, marker: true, sequence: 4)
        let begins = gate.observe(sps)
        #expect(begins)
        let beginsAgain = gate.observe(idrStart)
        #expect(!beginsAgain)  // the same keyframe
        #expect(gate.keyframe.isEmpty)    // not complete yet
        gate.observe(idrEnd)
        #expect(gate.keyframe == [sps, idrStart, idrEnd])
        let slices = gate.observe(slice)
        #expect(!slices)
        #expect(gate.keyframe == [sps, idrStart, idrEnd])
        // A keyframe over the bound is not kept: the last one stays.
        let big = gate.observe(Self.packet([0x67], timestamp: 9000, marker: false))
        #expect(big)
        for _ in 0..<3 { gate.observe(Self.packet([0x7c, 0x05, 0], timestamp: 9000, marker: false)) }
        gate.observe(Self.packet([0x7c, 0x45, 0], timestamp: 9000, marker: true))
        #expect(gate.keyframe == [sps, idrStart, idrEnd])
        gate.reset()
        #expect(gate.keyframe.isEmpty)
    }
}
