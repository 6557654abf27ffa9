import Encoders
import Testing

@Suite struct EncodedVideoPacketTests {
    @Test func framingIsAnnexBUnlessSaid() {
        let unit: [UInt8] = [0x65, 0x88, 0x84]  // an IDR slice's first bytes
        let annexB = EncodedVideoPacket(data: [0, 0, 0, 1] + unit, pts: 0, dts: 0, isKeyframe: true)
        #expect(annexB.framing == .annexB)
        let lengthPrefixed = EncodedVideoPacket(data: [0, 0, 0, 3] + unit, pts: 0, dts: 0, isKeyframe: true,
                                                framing: .lengthPrefixed)
        #expect(lengthPrefixed.framing == .lengthPrefixed)
        // The framing is part of the value: the same bytes framed differently are another packet.
        var relabelled = lengthPrefixed
        relabelled.framing = .annexB
        #expect(relabelled != lengthPrefixed)
    }

    @Test func aHardwareAccessUnitFollowsItsParameterSetsLengthPrefixed() throws {
        let unit: [UInt8] = [0x00, 0x00, 0x00, 0x03, 0x65, 0x88, 0x84]  // one IDR slice after its 4-byte length
        let sets = H264ParameterSets(sps: [0x67, 0x64, 0x00, 0x1F], pps: [0x68, 0xEE])
        let packet = try #require(EncodedVideoPacket(lengthPrefixedUnitsOf: unit.count, parameterSets: sets,
                                                     pts: 1500, isKeyframe: true) { buffer in
            #expect(buffer.count == 7)
            buffer.copyBytes(from: unit)
            return true
        })
        #expect(packet.data == [
            0x00, 0x00, 0x00, 0x04,  // SPS length 4
            0x67, 0x64, 0x00, 0x1F,  // SPS: High profile, level 3.1
            0x00, 0x00, 0x00, 0x02,  // PPS length 2
            0x68, 0xEE,              // PPS
        ] + unit)
        #expect(packet.framing == .lengthPrefixed)
        #expect(packet.pts == 1500)
        #expect(packet.dts == 1500)
        #expect(packet.isKeyframe)
    }

    @Test func aPictureWithoutParameterSetsIsItsUnitsAloneAndAFailedCopyIsNoPacket() throws {
        let unit: [UInt8] = [0x00, 0x00, 0x00, 0x02, 0x41, 0x9A]  // a non-IDR slice after its length
        let packet = try #require(EncodedVideoPacket(lengthPrefixedUnitsOf: unit.count, parameterSets: nil, pts: 33,
                                                     isKeyframe: false) { buffer in
            buffer.copyBytes(from: unit)
            return true
        })
        #expect(packet.data == unit)
        #expect(!packet.isKeyframe)
        #expect(EncodedVideoPacket(lengthPrefixedUnitsOf: 6, parameterSets: nil, pts: 0, isKeyframe: false) { _ in
            false
        } == nil)
    }
}
