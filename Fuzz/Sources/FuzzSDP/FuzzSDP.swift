import FuzzSupport
import SDP

/// SDP: parsing arbitrary text never traps; what parses prints and parses back to the same description; a WHIP
/// answer is read strictly against a fixed offer and either works or fails with an SDPError.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    if let description = try? SessionDescription(parsing: text) {
        let printed = description.text
        guard let again = try? SessionDescription(parsing: printed) else {
            fuzzFail("a printed description does not parse")
        }
        fuzzCheck(again.text == printed, "SDP printing is not stable")
    }
    if let answer = try? WHIPAnswer(parsing: text, offer: fuzzOffer) {
        fuzzCheck(!answer.candidates.isEmpty, "an accepted answer without a candidate")
        fuzzCheck(answer.videoPayloadType == nil || answer.videoPayloadType == 102, "a video payload type not offered")
        fuzzCheck(answer.audioPayloadType == nil || answer.audioPayloadType == 111, "an audio payload type not offered")
    }
    return 0
}

let fuzzOffer = WHIPOffer(
    sessionID: 1, iceUfrag: "Xc8q", icePwd: "t1mY0N1nQZ0VnyPK3Ezg6Hd7",
    fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: Array(0..<32)),
    candidates: [SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50000,
                              kind: .host)],
    cname: "fuzz", video: .init(payloadType: 102, ssrc: 1), audio: .init(payloadType: 111, ssrc: 2))
