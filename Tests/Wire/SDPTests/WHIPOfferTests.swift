import Testing
@testable import SDP

struct WHIPOfferTests {
    @Test func offerCarriesWhatWHIPNeeds() {
        let lines = sampleOffer.text.components(separatedBy: "\r\n")
        #expect(lines.first == "v=0")
        #expect(lines.last == "")  // every line, the last included, ends in CRLF
        for expected in [
            "a=group:BUNDLE 0 1",
            "m=video 9 UDP/TLS/RTP/SAVPF 102",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111",
            "a=ice-ufrag:Xc8q",
            "a=ice-pwd:t1mY0N1nQZ0VnyPK3Ezg6Hd7",
            "a=setup:actpass",
            "a=sendonly",
            "a=rtcp-mux",
            "a=rtpmap:102 H264/90000",
            "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f",
            "a=rtcp-fb:102 nack pli",
            "a=rtcp-fb:102 ccm fir",
            "a=rtpmap:111 opus/48000/2",
            "a=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host",
            "a=ssrc:1111 cname:stream-cname",
            "a=ssrc:2222 cname:stream-cname",
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
        let fingerprint = lines.first { $0.hasPrefix("a=fingerprint:") }
        #expect(fingerprint == "a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:"
            + "14:15:16:17:18:19:1A:1B:1C:1D:1E:1F")
    }

    @Test func offerParsesBackToTheSameDescription() throws {
        let parsed = try SessionDescription(parsing: sampleOffer.text)
        #expect(parsed == sampleOffer.sessionDescription)
        #expect(parsed.media.map(\.kind) == ["video", "audio"])
        #expect(parsed.media[0].attribute("mid") == "0")
        #expect(parsed.media[1].attribute("mid") == "1")
    }

    /// Found by FuzzSDP: carriage returns before a line's end are not part of its value, however many there are.
    @Test func strayCarriageReturnsDoNotChangeWhatPrints() throws {
        let parsed = try SessionDescription(parsing: "v=0\r\r\r\no=- 1 1 IN IP4 0.0.0.0\r\r\n")
        #expect(parsed.session == [.init("v", "0"), .init("o", "- 1 1 IN IP4 0.0.0.0")])
        #expect(try SessionDescription(parsing: parsed.text) == parsed)
        // A carriage return inside a line (found by FuzzSDP after an m= line's formats) is malformed.
        #expect(throws: SDPError.self) { try SessionDescription(parsing: "v=0\r\nm=audio 9 RTP/AVP 111\r \n") }
        #expect(throws: SDPError.self) { try SessionDescription(parsing: "v=0\r\ns=a\u{0}b\r\n") }
    }

    @Test func videoOnlyOfferHasOneSection() {
        var offer = sampleOffer
        offer.audio = nil
        #expect(offer.mids == ["0"])
        #expect(offer.sessionDescription.media.count == 1)
        #expect(offer.text.contains("a=group:BUNDLE 0\r\n"))
    }

    @Test func profileLevelIDComesFromTheSPS() {
        // NAL header 0x67, profile_idc 100 (High), constraint flags 0, level_idc 31 (3.1).
        #expect(WHIPOffer.Video.profileLevelID(sps: [0x67, 0x64, 0x00, 0x1F, 0xAC]) == "64001f")
        #expect(WHIPOffer.Video.profileLevelID(sps: [0x67, 0x42]) == nil)
    }
}

extension String {
    func components(separatedBy separator: String) -> [String] {
        split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }
}
