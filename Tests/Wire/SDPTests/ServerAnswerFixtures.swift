@testable import SDP

/// Offers as WHIP and WHEP clients we did not write send them, written by hand from their formats (not captured):
/// the lines, their order and the levels they sit at are each client's, the values are made up.
enum ServerOffers {
    /// OBS Studio 30's WHIP output (libdatachannel): audio first, fingerprint at session level, ufrag and password
    /// per section, H.264 offered as `42e01f` whatever the encoder's profile, `goog-remb` but no `ccm fir`.
    static let obs = lines("""
        v=0
        o=rtc 1719437126 0 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=group:LS 0 1
        a=msid-semantic:WMS *
        a=setup:actpass
        a=ice-ufrag:Qd5e
        a=ice-pwd:xB3uEsmXo7S9yB2BbfeD8Gpq
        a=ice-options:ice2,trickle
        a=fingerprint:sha-256 5E:1A:9C:2F:0B:77:64:D3:18:AA:C0:3B:E2:41:96:7D:0F:58:B1:6C:22:9E:4A:07:D5:83:F9:12:6B:CE:30:A4
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=mid:0
        a=sendonly
        a=ssrc:2041170312 cname:obs-cname-Ahq2
        a=ssrc:2041170312 msid:obs-stream obs-audio
        a=msid:obs-stream obs-audio
        a=rtcp-mux
        a=rtpmap:111 opus/48000/2
        a=fmtp:111 minptime=10;maxaveragebitrate=96000;stereo=1;sprop-stereo=1;useinbandfec=1
        a=candidate:1 1 UDP 2122317823 192.168.1.20 53212 typ host
        a=candidate:2 1 UDP 1686109951 203.0.113.40 53212 typ srflx raddr 0.0.0.0 rport 0
        a=end-of-candidates
        m=video 9 UDP/TLS/RTP/SAVPF 96
        c=IN IP4 0.0.0.0
        a=mid:1
        a=sendonly
        a=ssrc:2041170313 cname:obs-cname-Ahq2
        a=ssrc:2041170313 msid:obs-stream obs-video
        a=msid:obs-stream obs-video
        a=rtcp-mux
        a=rtpmap:96 H264/90000
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 goog-remb
        a=fmtp:96 profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1
        """)

    /// A browser's (Chromium's) offer with `addTransceiver(kind, {direction})` for video and audio and a data
    /// channel: VP8 first, H.264 in both packetization modes and several profiles, RTX, RED, header extensions,
    /// mDNS candidates, BUNDLE of three mids.
    static func browser(direction: String = "sendonly") -> String {
        let ssrcs = direction == "sendonly" ? """
            a=ssrc-group:FID 3735928559 3203338734
            a=ssrc:3735928559 cname:browserCname1
            a=ssrc:3735928559 msid:- 6f1c2f0e-video
            a=ssrc:3203338734 cname:browserCname1
            a=ssrc:3203338734 msid:- 6f1c2f0e-video
            """ : ""
        let audioSSRC = direction == "sendonly" ? "a=ssrc:1122334455 cname:browserCname1" : ""
        return lines("""
            v=0
            o=- 8417530927166364019 2 IN IP4 127.0.0.1
            s=-
            t=0 0
            a=group:BUNDLE 0 1 2
            a=extmap-allow-mixed
            a=msid-semantic: WMS
            m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 105 106 107 112 113 45 46
            c=IN IP4 0.0.0.0
            a=rtcp:9 IN IP4 0.0.0.0
            a=candidate:3110935710 1 udp 2113937151 1f0e2b51-7c1a-4d55-9e0a-2d3c4b5a6978.local 54400 typ host generation 0 network-cost 999
            a=ice-ufrag:Wt9r
            a=ice-pwd:K2mZq7cVbN4xLs1pH8dFjR0a
            a=ice-options:trickle
            a=fingerprint:sha-256 0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9:0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9
            a=setup:actpass
            a=mid:0
            a=extmap:4 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
            a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
            a=\(direction)
            a=msid:- 6f1c2f0e-video
            a=rtcp-mux
            a=rtcp-rsize
            a=rtpmap:96 VP8/90000
            a=rtcp-fb:96 goog-remb
            a=rtcp-fb:96 transport-cc
            a=rtcp-fb:96 ccm fir
            a=rtcp-fb:96 nack
            a=rtcp-fb:96 nack pli
            a=rtpmap:97 rtx/90000
            a=fmtp:97 apt=96
            a=rtpmap:102 H264/90000
            a=rtcp-fb:102 goog-remb
            a=rtcp-fb:102 transport-cc
            a=rtcp-fb:102 ccm fir
            a=rtcp-fb:102 nack
            a=rtcp-fb:102 nack pli
            a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
            a=rtpmap:103 rtx/90000
            a=fmtp:103 apt=102
            a=rtpmap:104 H264/90000
            a=rtcp-fb:104 goog-remb
            a=rtcp-fb:104 transport-cc
            a=rtcp-fb:104 ccm fir
            a=rtcp-fb:104 nack
            a=rtcp-fb:104 nack pli
            a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
            a=rtpmap:105 rtx/90000
            a=fmtp:105 apt=104
            a=rtpmap:106 H264/90000
            a=rtcp-fb:106 ccm fir
            a=rtcp-fb:106 nack
            a=rtcp-fb:106 nack pli
            a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
            a=rtpmap:107 rtx/90000
            a=fmtp:107 apt=106
            a=rtpmap:112 H264/90000
            a=rtcp-fb:112 ccm fir
            a=rtcp-fb:112 nack
            a=rtcp-fb:112 nack pli
            a=fmtp:112 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f
            a=rtpmap:113 rtx/90000
            a=fmtp:113 apt=112
            a=rtpmap:45 AV1/90000
            a=rtcp-fb:45 nack
            a=fmtp:45 level-idx=5;profile=0;tier=0
            a=rtpmap:46 rtx/90000
            a=fmtp:46 apt=45
            \(ssrcs)
            m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
            c=IN IP4 0.0.0.0
            a=rtcp:9 IN IP4 0.0.0.0
            a=ice-ufrag:Wt9r
            a=ice-pwd:K2mZq7cVbN4xLs1pH8dFjR0a
            a=ice-options:trickle
            a=fingerprint:sha-256 0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9:0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9
            a=setup:actpass
            a=mid:1
            a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
            a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
            a=\(direction)
            a=msid:- 6f1c2f0e-audio
            a=rtcp-mux
            a=rtcp-rsize
            a=rtpmap:111 opus/48000/2
            a=rtcp-fb:111 transport-cc
            a=fmtp:111 minptime=10;useinbandfec=1
            a=rtpmap:63 red/48000/2
            a=fmtp:63 111/111
            a=rtpmap:9 G722/8000
            a=rtpmap:0 PCMU/8000
            a=rtpmap:8 PCMA/8000
            a=rtpmap:13 CN/8000
            a=rtpmap:110 telephone-event/48000
            a=rtpmap:126 telephone-event/8000
            \(audioSSRC)
            m=application 9 UDP/DTLS/SCTP webrtc-datachannel
            c=IN IP4 0.0.0.0
            a=ice-ufrag:Wt9r
            a=ice-pwd:K2mZq7cVbN4xLs1pH8dFjR0a
            a=ice-options:trickle
            a=fingerprint:sha-256 0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9:0A:1B:2C:3D:4E:5F:60:71:82:93:A4:B5:C6:D7:E8:F9
            a=setup:actpass
            a=mid:2
            a=sctp-port:5000
            a=max-message-size:262144
            """)
    }

    /// What the server answers with in the tests.
    static func configuration(_ direction: ServerAnswer.Direction = .receive,
                              preferredProfileLevelID: String? = nil) -> ServerAnswer.Configuration {
        ServerAnswer.Configuration(
            direction: direction, sessionID: 7_284_001, iceUfrag: "sRv1", icePwd: "server-password-0123456789",
            fingerprint: DTLSFingerprint(algorithm: "sha-256", digest: Array(100..<132)),
            candidate: SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 8189,
                                    kind: .host),
            videoSSRC: 0x1111_1111, audioSSRC: 0x2222_2222, cname: "stream-server", streamID: "show",
            preferredProfileLevelID: preferredProfileLevelID)
    }

    /// Joins non-empty lines with CRLF, as SDP is sent.
    static func lines(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.joined(separator: "\r\n") + "\r\n"
    }
}
