import Testing
@testable import FLV

@Suite struct H264NALUnitTypeTests {
    @Test(arguments: [
        (UInt8(0x67), H264NALUnitType.sps),        // forbidden 0, nal_ref_idc 3, type 7
        (0x68, .pps),                               // nal_ref_idc 3, type 8
        (0x65, .idrSlice),                          // nal_ref_idc 3, type 5
        (0x41, .nonIDRSlice),                       // nal_ref_idc 2, type 1
        (0x06, .sei),                               // nal_ref_idc 0, type 6
        (0x09, .accessUnitDelimiter),               // type 9
    ])
    func readsTypeFromHeaderByte(header: UInt8, type: H264NALUnitType) {
        #expect(H264NALUnitType(of: [header, 0xFF]) == type)
    }

    @Test func emptyUnitHasNoType() {
        #expect(H264NALUnitType(of: [UInt8]()) == nil)
        #expect(H264NALUnitType.idrSlice.isSlice)
        #expect(!H264NALUnitType.sps.isSlice)
        #expect(H264NALUnitType.sps.description == "7 (SPS)")
    }
}
