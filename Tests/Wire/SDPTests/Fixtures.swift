@testable import SDP

/// The offer the tests answer: video and audio, one host candidate.
let sampleOffer = WHIPOffer(
    sessionID: 4_611_731_400_430_051_336, iceUfrag: "Xc8q", icePwd: "t1mY0N1nQZ0VnyPK3Ezg6Hd7",
    fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: Array(0..<32)),
    candidates: [SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50000,
                              kind: .host)],
    cname: "stream-cname", video: .init(payloadType: 102, profileLevelID: "64001f", ssrc: 1111),
    audio: .init(payloadType: 111, ssrc: 2222))

/// An answer shaped like aiortc's (1.16) answer to that offer: three fingerprints, candidates in both sections,
/// BUNDLE, rtcp-mux, recvonly, setup:active.
func sampleAnswer(video: [String] = [], audio: [String] = [], session: [String] = [],
                  replacing: [(String, String)] = []) -> String {
    var text = """
    v=0
    o=- 3912345678 3912345678 IN IP4 0.0.0.0
    s=-
    t=0 0
    a=group:BUNDLE 0 1
    a=msid-semantic:WMS *
    \(session.joined(separator: "\n"))
    m=video 40000 UDP/TLS/RTP/SAVPF 102
    c=IN IP4 127.0.0.1
    a=recvonly
    a=mid:0
    a=rtcp:9 IN IP4 0.0.0.0
    a=rtcp-mux
    a=rtcp-fb:102 nack
    a=rtcp-fb:102 nack pli
    a=rtpmap:102 H264/90000
    a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f
    a=candidate:0c8a2f3d1b 1 udp 2130706431 127.0.0.1 40000 typ host
    a=candidate:9a1c 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active
    a=end-of-candidates
    a=ice-ufrag:Ab1x
    a=ice-pwd:QvWQ8mTz6FyPoJuDB1b2xK3e
    a=fingerprint:sha-256 2C:9B:1E:5F:77:18:8A:C4:49:2B:D0:AB:11:03:94:6E:B4:6A:B5:6D:2D:45:88:94:47:D4:F1:9B:5A:0C:EF:51
    a=fingerprint:sha-384 8C:12:67:E0:EA:3C:EC:EE:09:90:F0:6B:71:20:BF:31:08:07:61:E0:F1:F1:7B:45:D4:8C:E5:52:3D:87:E4:BE:74:AE:21:7F:9A:46:37:2A:0B:E0:EF:F9:47:A4:06:05
    a=setup:active
    \(video.joined(separator: "\n"))
    m=audio 40000 UDP/TLS/RTP/SAVPF 111
    c=IN IP4 127.0.0.1
    a=recvonly
    a=mid:1
    a=rtcp:9 IN IP4 0.0.0.0
    a=rtcp-mux
    a=rtpmap:111 opus/48000/2
    a=candidate:0c8a2f3d1b 1 udp 2130706431 127.0.0.1 40000 typ host
    a=end-of-candidates
    a=ice-ufrag:Ab1x
    a=ice-pwd:QvWQ8mTz6FyPoJuDB1b2xK3e
    a=fingerprint:sha-256 2C:9B:1E:5F:77:18:8A:C4:49:2B:D0:AB:11:03:94:6E:B4:6A:B5:6D:2D:45:88:94:47:D4:F1:9B:5A:0C:EF:51
    a=setup:active
    \(audio.joined(separator: "\n"))
    """
    for (old, new) in replacing { text = text.replacing(old, with: new) }
    return text.split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\r\n") + "\r\n"
}
