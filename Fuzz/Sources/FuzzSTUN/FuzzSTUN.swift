import FuzzSupport
import ICE

/// STUN: decoding arbitrary bytes never traps; a decoded message's attributes encode and decode back unchanged,
/// with integrity and fingerprint that check; an ICE agent fed the bytes never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSTUN(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let key = Array("fuzzpasswordfuzzpassword".utf8)
    if let message = try? STUNMessage(decoding: input.bytes) {
        _ = message.hasValidIntegrity(key: key)
        _ = message.mappedAddress
        _ = message.errorCode
        let encoded = message.encoded(integrityKey: key, fingerprint: true)
        guard let again = try? STUNMessage(decoding: encoded) else { fuzzFail("a re-encoded STUN message fails") }
        fuzzCheck(again.attributes == message.attributes, "STUN attributes changed in a round trip")
        fuzzCheck(again.hasValidIntegrity(key: key), "our MESSAGE-INTEGRITY does not check")
        fuzzCheck(again.hasValidFingerprint == true, "our FINGERPRINT does not check")
    }
    var agent = ICEAgent(configuration: .init(localUfrag: "fuzz", localPwd: "fuzzpasswordfuzzpassword",
                                              tieBreaker: 1),
                         hostAddresses: [TransportAddress(host: "127.0.0.1", port: 5000)!])
    let source = TransportAddress(host: "127.0.0.1", port: 6000)!
    _ = agent.receive(input.bytes, from: source, now: .zero)
    _ = agent.start(remoteUfrag: "peer", remotePwd: "peerpasswordpeerpassword",
                    remoteCandidates: [ICECandidate(kind: .host, address: source, priority: 1, foundation: "1")],
                    now: .zero)
    _ = agent.receive(input.bytes, from: source, now: .milliseconds(10))
    return 0
}
