import Testing
@testable import SDP

struct WHIPAnswerTests {
    @Test func readsAnAiortcStyleAnswer() throws {
        let answer = try WHIPAnswer(parsing: sampleAnswer(), offer: sampleOffer)
        #expect(answer.iceUfrag == "Ab1x")
        #expect(answer.icePwd == "QvWQ8mTz6FyPoJuDB1b2xK3e")
        #expect(answer.iceLite == false)
        #expect(answer.setup == .active)
        #expect(answer.fingerprints.map(\.algorithm) == ["sha-256", "sha-384"])
        #expect(answer.fingerprints[0].digest.prefix(3) == [0x2C, 0x9B, 0x1E])
        // The TCP candidate is skipped, the duplicate in the audio section folded.
        #expect(answer.candidates == [SDPCandidate(foundation: "0c8a2f3d1b", priority: 2_130_706_431,
                                                   address: "127.0.0.1", port: 40000, kind: .host)])
        #expect(answer.videoPayloadType == 102)
        #expect(answer.audioPayloadType == 111)
    }

    @Test func acceptsBareLineFeedsAndSessionLevelCredentials() throws {
        let text = sampleAnswer(session: ["a=ice-lite"])
            .replacing("\r\n", with: "\n")
        let answer = try WHIPAnswer(parsing: text, offer: sampleOffer)
        #expect(answer.iceLite)
    }

    @Test func aRejectedAudioSectionLeavesVideo() throws {
        let text = sampleAnswer(replacing: [("m=audio 40000", "m=audio 0")])
        let answer = try WHIPAnswer(parsing: text, offer: sampleOffer)
        #expect(answer.videoPayloadType == 102)
        #expect(answer.audioPayloadType == nil)
    }

    @Test func candidatesMayComeFromTheConnectionLine() throws {
        let text = sampleAnswer(replacing: [("a=candidate:0c8a2f3d1b 1 udp 2130706431 127.0.0.1 40000 typ host\r\n",
                                             ""),
                                            ("a=candidate:9a1c 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active",
                                             "")])
            .replacing("a=candidate:0c8a2f3d1b 1 udp 2130706431 127.0.0.1 40000 typ host", with: "")
        let answer = try WHIPAnswer(parsing: text, offer: sampleOffer)
        #expect(answer.candidates.map { "\($0.address):\($0.port)" } == ["127.0.0.1:40000"])
    }

    /// Each broken answer fails with the code that names the problem, and a message saying what is wrong.
    @Test(arguments: [
        (sampleAnswer(replacing: [("m=video 40000", "m=video 0"), ("m=audio 40000", "m=audio 0")]),
         SDPError.Code.rejected, "rejected every media section"),
        (sampleAnswer(replacing: [("a=setup:active", "a=setup:actpass")]), .malformed, "active or passive"),
        (sampleAnswer(replacing: [("a=rtcp-mux\n", "")]), .unsupported, "rtcp-mux"),
        (sampleAnswer(replacing: [("a=group:BUNDLE 0 1", "a=group:BUNDLE 0")]), .unsupported, "BUNDLE"),
        (sampleAnswer(replacing: [("m=video 40000 UDP/TLS/RTP/SAVPF 102", "m=video 40000 UDP/TLS/RTP/SAVPF 96")]),
         .mismatch, "not offered"),
        (sampleAnswer(replacing: [("packetization-mode=1", "packetization-mode=0")]), .unsupported,
         "packetization-mode=0"),
        (sampleAnswer(replacing: [("a=rtpmap:102 H264/90000", "a=rtpmap:102 VP8/90000")]), .unsupported, "vp8"),
        (sampleAnswer(replacing: [("a=recvonly\na=mid:0", "a=sendrecv\na=mid:0")]), .mismatch, "recvonly"),
        (sampleAnswer(replacing: [("a=mid:1", "a=mid:7")]), .mismatch, "mid 7"),
        (sampleAnswer(replacing: [("m=audio 40000 UDP/TLS/RTP/SAVPF 111", "m=video 40000 UDP/TLS/RTP/SAVPF 111")]),
         .mismatch, "is video"),
        (sampleAnswer(replacing: [("m=video 40000 UDP/TLS/RTP/SAVPF", "m=video 40000 RTP/AVP")]), .unsupported,
         "RTP/AVP"),
        (sampleAnswer(replacing: [("a=ice-pwd:QvWQ8mTz6FyPoJuDB1b2xK3e", "a=ice-pwd:short")]), .malformed,
         "22 to 256"),
        (sampleAnswer(replacing: [("a=setup:active\n", "")]), .missing, "a=setup"),
        (sampleAnswer(replacing: [("a=fingerprint:sha-256 2C", "a=fingerprint:md5 2C")]), .unsupported, "md5"),
        (sampleAnswer(replacing: [(":EF:51\n", ":EF\n")]), .malformed, "32 bytes"),
        (sampleAnswer(replacing: [("typ host\n", "typ cloud\n")]), .malformed, "typ"),
        (sampleAnswer(replacing: [("m=video 40000 UDP/TLS/RTP/SAVPF 102", "m=video forty UDP/TLS/RTP/SAVPF 102")]),
         .malformed, "m=<media>"),
        (sampleAnswer(replacing: [("s=-", "garbage")]), .malformed, "x=value"),
        ("o=- 1 1 IN IP4 0.0.0.0\r\nv=0\r\n", .malformed, "v=0"),
        ("", .malformed, "v=0"),
        (String(repeating: "a=x\r\n", count: 20_000), .tooLarge, "bytes"),
    ])
    func brokenAnswersAreRefusedWithTheReason(text: String, code: SDPError.Code, phrase: String) {
        #expect {
            try WHIPAnswer(parsing: text, offer: sampleOffer)
        } throws: { error in
            guard let error = error as? SDPError else { return false }
            return error.code == code && error.message.lowercased().contains(phrase.lowercased())
        }
    }

    @Test func missingCredentialsAndFingerprintsAreNamed() {
        let noCredentials = sampleAnswer().split(separator: "\r\n")
            .filter { !$0.hasPrefix("a=ice-") }.joined(separator: "\r\n")
        #expect(throws: SDPError.self) { try WHIPAnswer(parsing: noCredentials, offer: sampleOffer) }
        let noFingerprint = sampleAnswer().split(separator: "\r\n")
            .filter { !$0.hasPrefix("a=fingerprint") }.joined(separator: "\r\n")
        #expect {
            try WHIPAnswer(parsing: noFingerprint, offer: sampleOffer)
        } throws: { error in
            (error as? SDPError)?.code == .missing
        }
    }

    @Test func everyPrefixOfAnAnswerFailsCleanlyOrParses() {
        let text = sampleAnswer()
        for length in stride(from: 0, through: text.utf8.count, by: 7) {
            let prefix = String(decoding: Array(text.utf8.prefix(length)), as: UTF8.self)
            _ = try? WHIPAnswer(parsing: prefix, offer: sampleOffer)
        }
    }
}
