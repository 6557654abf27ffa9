import FuzzSupport
import RTP

/// RTCP and RTP: decoding arbitrary bytes never traps; what decodes re-encodes to bytes that decode to the same
/// encoding (a fixed point after one round); the H.264 depacketizer never traps on a payload.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    if let packets = try? RTCPPacket.decodeCompound(input.bytes) {
        let once = packets.flatMap(\.encoded)
        guard let again = try? RTCPPacket.decodeCompound(once) else { fuzzFail("re-encoded RTCP does not decode") }
        fuzzCheck(again.flatMap(\.encoded) == once, "RTCP re-encoding is not stable")
    }
    if let packet = try? RTPPacket(decoding: input.bytes) {
        var depacketizer = H264Depacketizer()
        _ = try? depacketizer.push(packet.payload)
        fuzzCheck((try? RTPPacket(decoding: packet.encoded)) == packet, "RTP re-encoding is not stable")
    }
    return 0
}
