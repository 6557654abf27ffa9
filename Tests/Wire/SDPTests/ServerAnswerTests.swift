import Testing
@testable import SDP

struct ServerAnswerTests {
    /// The answer's lines of one section, as text.
    static func lines(_ answer: ServerAnswer, mid: String) -> [String] {
        let section = answer.sessionDescription.media.first { $0.attribute("mid") == mid }
        return section.map { $0.lines.map { "\($0.type)=\($0.value)" } } ?? []
    }

    @Test func answersOBSWithItsOwnProfileAndOrder() throws {
        let answer = try ServerAnswer(offer: ServerOffers.obs, configuration: ServerOffers.configuration())
        #expect(answer.remoteUfrag == "Qd5e")
        #expect(answer.remotePwd == "xB3uEsmXo7S9yB2BbfeD8Gpq")
        #expect(answer.remoteFingerprints.map(\.digest.first) == [0x5E])
        #expect(answer.audio == .init(mid: "0", payloadType: 111, remoteSSRCs: [2_041_170_312]))
        // The offer's 42e01f is kept: it says what OBS declared (Constrained Baseline 3.1), not what it sends.
        #expect(answer.video == .init(mid: "1", payloadType: 96, profileLevelID: "42e01f",
                                      feedback: ["nack", "nack pli", "goog-remb"], remoteSSRCs: [2_041_170_313]))
        #expect(answer.video?.profileDescription == "Constrained Baseline 3.1")
        let text = answer.text
        #expect(text.hasPrefix(ServerOffers.lines("""
            v=0
            o=- 7284001 2 IN IP4 127.0.0.1
            s=-
            t=0 0
            a=ice-lite
            a=ice-ufrag:sRv1
            a=ice-pwd:server-password-0123456789
            a=fingerprint:\(ServerOffers.configuration().fingerprint)
            a=setup:passive
            a=group:BUNDLE 0 1
            m=audio 8189 UDP/TLS/RTP/SAVPF 111
            """)))
        #expect(Self.lines(answer, mid: "1") == [
            "c=IN IP4 127.0.0.1",
            "a=mid:1",
            "a=recvonly",
            "a=rtcp-mux",
            "a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host",
            "a=end-of-candidates",
            "a=rtpmap:96 H264/90000",
            "a=rtcp-fb:96 nack",
            "a=rtcp-fb:96 nack pli",
            "a=rtcp-fb:96 goog-remb",
            "a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        ])
        #expect(Self.lines(answer, mid: "0").suffix(2) == ["a=rtpmap:111 opus/48000/2",
                                                           "a=fmtp:111 minptime=10;useinbandfec=1"])
        // REMB is answered (the server sends it to a WHIP publisher); transport-cc, which it would not send, is not.
        #expect(!text.contains("transport-cc") && !text.contains("ssrc"))
        // The answer reads back through our own grammar.
        #expect(try SessionDescription(parsing: text) == answer.sessionDescription)
    }

    @Test func answersABrowserWithTheFirstUsableH264AndRejectsTheDataChannel() throws {
        let answer = try ServerAnswer(offer: ServerOffers.browser(), configuration: ServerOffers.configuration())
        // 102 is packetization-mode 0: skipped; 104 is the first mode-1 H.264.
        #expect(answer.video?.payloadType == 104)
        #expect(answer.video?.profileLevelID == "42e01f")
        #expect(answer.video?.feedback == ["nack", "nack pli", "ccm fir", "goog-remb"])
        #expect(answer.video?.remoteSSRCs == [3_735_928_559])  // the RTX SSRC of the FID group left out
        #expect(answer.audio?.payloadType == 111)
        #expect(answer.remoteUfrag == "Wt9r")
        let media = answer.sessionDescription.media
        #expect(media.map(\.kind) == ["video", "audio", "application"])
        #expect(media.map(\.port) == [8189, 8189, 0])
        #expect(media.map(\.formats) == [["104"], ["111"], ["webrtc-datachannel"]])
        #expect(media[2].lines.map(\.value) == ["IN IP4 0.0.0.0", "mid:2"])
        #expect(answer.sessionDescription.sessionAttributes("group") == ["BUNDLE 0 1"])
        #expect(!answer.text.contains("transport-cc") && !answer.text.contains("extmap")
            && !answer.text.contains("rtx"))
    }

    /// Our own publisher's offer, answered by the server, read back by the publisher's strict answer reader: the
    /// two halves of the project agree.
    @Test func ourPublisherAcceptsTheServersAnswer() throws {
        let answer = try ServerAnswer(offer: sampleOffer.text, configuration: ServerOffers.configuration())
        let read = try WHIPAnswer(parsing: answer.text, offer: sampleOffer)
        #expect(read.iceLite)
        #expect(read.setup == .passive)
        #expect(read.iceUfrag == "sRv1")
        #expect(read.icePwd == "server-password-0123456789")
        #expect(read.videoPayloadType == 102)
        #expect(read.audioPayloadType == 111)
        #expect(read.candidates.map { "\($0.address):\($0.port)" } == ["127.0.0.1:8189"])
        #expect(read.fingerprints == [ServerOffers.configuration().fingerprint])
        #expect(answer.video?.profileDescription == "High 3.1")
    }

    @Test func whepAnswersAViewersRecvonlyOfferSendonlyWithItsSources() throws {
        let answer = try ServerAnswer(offer: ServerOffers.browser(direction: "recvonly"),
                                      configuration: ServerOffers.configuration(.send))
        #expect(answer.video?.payloadType == 104)
        #expect(answer.video?.remoteSSRCs == [])
        #expect(answer.video?.feedback == ["nack", "nack pli", "ccm fir"], "no REMB promised to a viewer")
        let video = Self.lines(answer, mid: "0")
        #expect(video.contains("a=sendonly"))
        #expect(video.suffix(3) == ["a=msid:show video", "a=ssrc:286331153 cname:stream-server",
                                    "a=ssrc:286331153 msid:show video"])
        #expect(Self.lines(answer, mid: "1").contains("a=ssrc:572662306 cname:stream-server"))
        #expect(answer.sessionDescription.sessionAttributes("msid-semantic") == [" WMS show"])
    }

    /// WHEP offers the publisher's profile when the viewer can take it: a match on profile and constraints first,
    /// then on profile_idc alone, else the viewer's first choice.
    @Test(arguments: [("64001f", 112), ("640028", 112), ("42e01f", 104), ("42001f", 104), ("4d0032", 106),
                      ("f4001f", 104)])
    func whepPrefersThePublishersProfile(profile: String, payloadType: UInt8) throws {
        let configuration = ServerOffers.configuration(.send, preferredProfileLevelID: profile)
        let answer = try ServerAnswer(offer: ServerOffers.browser(direction: "recvonly"), configuration: configuration)
        #expect(answer.video?.payloadType == payloadType)
    }

    @Test func aSecondVideoIsRejectedAndABundleOnlySectionTaken() throws {
        let offer = ServerOffers.obs.replacing("m=video 9 UDP/TLS/RTP/SAVPF 96\r\n",
                                               with: "m=video 0 UDP/TLS/RTP/SAVPF 96\r\na=bundle-only\r\n")
            + ServerOffers.lines("""
                m=video 9 UDP/TLS/RTP/SAVPF 96
                a=mid:2
                a=sendonly
                a=rtcp-mux
                a=rtpmap:96 H264/90000
                a=fmtp:96 packetization-mode=1;profile-level-id=64001f
                """)
        let withGroup = offer.replacing("a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2")
        let answer = try ServerAnswer(offer: withGroup, configuration: ServerOffers.configuration())
        #expect(answer.video?.mid == "1")
        #expect(answer.sessionDescription.media.map(\.port) == [8189, 8189, 0])
        #expect(answer.sessionDescription.sessionAttributes("group") == ["BUNDLE 0 1"])
    }

    @Test func anIPv6CandidateAndTheOffersBundleOrderAreKept() throws {
        var configuration = ServerOffers.configuration()
        configuration.candidate = SDPCandidate(foundation: "1", priority: 2_130_706_431, address: "2001:db8::7",
                                               port: 8189, kind: .host)
        let offer = ServerOffers.obs.replacing("a=group:BUNDLE 0 1", with: "a=group:BUNDLE 1 0")
        let answer = try ServerAnswer(offer: offer, configuration: configuration)
        #expect(answer.sessionDescription.sessionAttributes("group") == ["BUNDLE 1 0"])
        #expect(Self.lines(answer, mid: "0").prefix(1) == ["c=IN IP6 2001:db8::7"])
        #expect(Self.lines(answer, mid: "1").contains("a=candidate:1 1 udp 2130706431 2001:db8::7 8189 typ host"))
    }

    @Test func audioAloneIsAnAnswerToo() throws {
        let offer = ServerOffers.obs.replacing("a=rtpmap:96 H264/90000", with: "a=rtpmap:96 VP8/90000")
        let answer = try ServerAnswer(offer: offer, configuration: ServerOffers.configuration())
        #expect(answer.video == nil)
        #expect(answer.audio?.payloadType == 111)
        #expect(answer.sessionDescription.media.map(\.port) == [8189, 0])
        #expect(answer.sessionDescription.sessionAttributes("group") == ["BUNDLE 0"])
    }

    /// Each offer this server cannot answer fails with the code the driver maps to a status (`.unsupported` → 406,
    /// the rest → 400) and a message naming the problem.
    @Test(arguments: [
        (ServerOffers.obs.replacing("H264/90000", with: "VP8/90000").replacing("opus/48000/2", with: "PCMU/8000"),
         SDPError.Code.unsupported, "audio section 1 (mid 0): no opus/48000/2 among pcmu/8000; video section 2 "
            + "(mid 1): no H264/90000 with packetization-mode=1 among vp8/90000"),
        (ServerOffers.obs.replacing("packetization-mode=1", with: "packetization-mode=0")
            .replacing("m=audio 9", with: "m=audio 0"), .unsupported, "disabled in the offer (port 0)"),
        (ServerOffers.obs.replacing("a=rtcp-mux\r\n", with: ""), .unsupported, "no a=rtcp-mux"),
        (ServerOffers.obs.replacing("UDP/TLS/RTP/SAVPF", with: "RTP/AVP"), .unsupported, "RTP/AVP, not"),
        (ServerOffers.obs.replacing("a=sendonly", with: "a=recvonly"), .unsupported, "recvonly cannot be answered"),
        (ServerOffers.obs.replacing("a=group:BUNDLE 0 1\r\n", with: ""), .unsupported, "does not BUNDLE mids 0 and 1"),
        (ServerOffers.obs.replacing("a=setup:actpass", with: "a=setup:passive"), .unsupported, "a=setup:passive"),
        (ServerOffers.obs.replacing("t=0 0\r\n", with: "t=0 0\r\na=ice-lite\r\n"), .unsupported, "ICE-lite"),
        (ServerOffers.obs.replacing("a=setup:actpass", with: "a=setup:sideways"), .malformed, "a=setup:sideways"),
        (ServerOffers.obs.replacing("a=setup:actpass\r\n", with: ""), .missing, "a=setup"),
        (ServerOffers.obs.replacing("a=ice-pwd:xB3uEsmXo7S9yB2BbfeD8Gpq\r\n", with: ""), .missing, "a=ice-pwd"),
        (ServerOffers.obs.replacing("a=ice-pwd:xB3uEsmXo7S9yB2BbfeD8Gpq", with: "a=ice-pwd:short"), .malformed,
         "22 to 256"),
        (ServerOffers.obs.replacing("a=fingerprint:sha-256", with: "a=fingerprint:md5"), .missing, "a=fingerprint"),
        (ServerOffers.obs.replacing("F9:12:6B:CE:30:A4", with: "F9:12:6B:CE:30"), .malformed, "32 bytes"),
        (ServerOffers.obs.replacing("a=rtpmap:96 H264/90000", with: "a=rtpmap:9x H264/90000"), .malformed,
         "a=rtpmap:9x H264/90000"),
        (ServerOffers.obs.replacing("profile-level-id=42e01f", with: "profile-level-id=42e0"), .malformed,
         "profile-level-id=42e0"),
        (ServerOffers.obs.replacing("a=mid:1\r\n", with: "a=mid:1\r\nbroken line\r\n"), .malformed,
         "SDP line 29 is not of the form x=value"),
        (ServerOffers.obs.replacing("m=video 9 UDP", with: "m=video nine UDP"), .malformed, "SDP line 26"),
        ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n", .unsupported, "it has no media section"),
        ("", .malformed, "v=0"),
        (String(repeating: "a=x\r\n", count: 20_000), .tooLarge, "bytes"),
    ])
    func offersItCannotAnswerAreRefusedWithTheReason(offer: String, code: SDPError.Code, phrase: String) {
        #expect {
            try ServerAnswer(offer: offer, configuration: ServerOffers.configuration())
        } throws: { error in
            guard let error = error as? SDPError else { return false }
            return error.code == code && error.message.contains(phrase)
        }
    }

    @Test func whepRefusesAnOfferThatOnlySends() {
        #expect {
            try ServerAnswer(offer: ServerOffers.browser(direction: "sendonly"),
                             configuration: ServerOffers.configuration(.send))
        } throws: { error in
            (error as? SDPError)?.code == .unsupported
                && (error as? SDPError)?.message.contains("sendonly cannot be answered sendonly") == true
        }
    }

    @Test(arguments: [("42e01f", "Constrained Baseline 3.1"), ("42001f", "Baseline 3.1"), ("4d0028", "Main 4.0"),
                      ("64001f", "High 3.1"), ("640c34", "Constrained High 5.2"), ("42f00b", "Constrained Baseline 1b"),
                      ("f40032", "High 4:4:4 5.0"), ("580015", "Extended 2.1"), ("01000a", "profile_idc 1 1.0")])
    func profilesReadForPeople(profile: String, description: String) {
        #expect(H264ProfileLevel(profile).description == description)
    }

    @Test func everyPrefixOfAnOfferFailsCleanlyOrAnswers() {
        for text in [ServerOffers.obs, ServerOffers.browser()] {
            for length in stride(from: 0, through: text.utf8.count, by: 5) {
                let prefix = String(decoding: Array(text.utf8.prefix(length)), as: UTF8.self)
                do {
                    let answer = try ServerAnswer(offer: prefix, configuration: ServerOffers.configuration())
                    #expect(answer.video != nil || answer.audio != nil)
                } catch {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }
}
