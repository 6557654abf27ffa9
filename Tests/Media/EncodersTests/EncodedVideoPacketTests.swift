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
}
