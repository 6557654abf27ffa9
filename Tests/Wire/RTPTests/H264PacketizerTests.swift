import Testing
@testable import RTP

struct H264PacketizerTests {
    let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9]
    let pps: [UInt8] = [0x68, 0xEB, 0xE3, 0xCB]

    @Test func parameterSetsGoTogetherInOneSTAPA() {
        let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        let payloads = H264Packetizer().payloads(for: [sps, pps, idr])
        #expect(payloads == [
            [0x78,  // F=0, NRI=3 (the largest of the units'), type 24 (STAP-A)
             0x00, 0x06] + sps  // unit size 6, SPS
                + [0x00, 0x04] + pps,  // unit size 4, PPS
            idr,  // a single NAL unit packet
        ])
    }

    @Test(arguments: [16, 100, 1200])
    func largeUnitsAreSplitIntoFUAAndReassemble(maximum: Int) throws {
        let idr = [0x65] + (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let slice = [0x41] + (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let payloads = H264Packetizer(maximumPayloadSize: maximum).payloads(for: [sps, pps, idr, slice])
        #expect(payloads.allSatisfy { $0.count <= maximum })
        let fragments = payloads.filter { $0[0] & 0x1F == 28 }
        #expect(fragments.first?[0] == 0x7C)  // NRI 3, type 28
        #expect(fragments.first?[1] == 0x85)  // S=1, type 5
        #expect(fragments.filter { $0[1] & 0x40 != 0 }.count == (maximum < 302 ? 2 : 1))  // one end per unit
        var depacketizer = H264Depacketizer()
        var units: [[UInt8]] = []
        for payload in payloads { units += try depacketizer.push(payload) }
        #expect(units == [sps, pps, idr, slice])
    }

    @Test func depacketizerRefusesWhatItCannotRebuild() {
        var depacketizer = H264Depacketizer()
        #expect(throws: RTPError.self) { try depacketizer.push([]) }
        #expect(throws: RTPError.self) { try depacketizer.push([0x7C, 0x05, 0x01]) }  // middle without a start
        #expect(throws: RTPError.self) { try depacketizer.push([0x78, 0x00, 0x09, 0x67]) }  // STAP-A overrun
        #expect(throws: RTPError.self) { try depacketizer.push([0x7D, 0x85]) }  // FU-B is not supported
    }
}
