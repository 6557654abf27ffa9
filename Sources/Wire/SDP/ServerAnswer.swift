/// The answer a WHIP or WHEP endpoint gives a client's offer, as an ICE-lite server on one UDP port
/// (RFC 9725 §4.2 for WHIP; WHEP is the same exchange with the directions reversed: the client offers recvonly and
/// the server answers sendonly).
///
/// From the offer it takes one video section with H.264 in packetization mode 1 (RFC 6184 §6.3) and one audio
/// section with Opus at 48000/2 (RFC 7587 §7), each BUNDLEd, rtcp-muxed and carried over DTLS-SRTP with feedback
/// (`UDP/TLS/RTP/SAVPF`); every other section (a second video, a data channel, VP8 only, ...) is rejected with
/// port 0. The answer says `a=ice-lite`, `a=setup:passive` (the client starts DTLS), our credentials, fingerprint
/// and single host candidate, `a=recvonly` for WHIP or `a=sendonly` for WHEP, and only the feedback this server
/// acts on: `nack`, `nack pli` and `ccm fir`, when the offer lists them, and for WHIP `goog-remb` (the server
/// sends REMB). No transport-cc is answered, no header extension, no RTX: nothing is promised that the server does
/// not do.
///
/// **H.264 profiles.** The answer keeps the chosen payload type's `profile-level-id` as offered (RFC 6184 §8.2.2:
/// the profile is not negotiated down, and `level-asymmetry-allowed=1` lets each side's level differ). It states
/// what the offerer declared, not what it will send: OBS 30 offers `42e01f` (Constrained Baseline 3.1) and sends
/// High profile. The server forwards H.264 as it arrives and reads the real profile from the in-band SPS, so such a
/// stream is taken as is; a WHEP viewer is offered the publisher's profile when its offer lists it
/// (``Configuration/preferredProfileLevelID``).
///
/// **Errors** are ``SDPError`` values: `.unsupported` when no section carries a codec this server takes, or the
/// offer asks for what it cannot do (no BUNDLE of video and audio, `a=setup:passive`, an ICE-lite client) — the
/// driver answers 406 Not Acceptable; every other code (`.malformed` naming the line, `.missing`, `.tooLarge`)
/// is 400 Bad Request.
public struct ServerAnswer: Sendable, Hashable {
    /// The RTP profile every accepted section uses (RFC 5764 §8, RFC 8827).
    public static let transportProtocol = "UDP/TLS/RTP/SAVPF"
    /// The RTCP feedback this server acts on (RFC 4585 §4.2 NACK and PLI, RFC 5104 §7.1 FIR), in answer order.
    public static let videoFeedback = ["nack", "nack pli", "ccm fir"]
    /// What a receiving (WHIP) answer adds when offered: the server sends REMB (draft-alvestrand-rmcat-remb), the
    /// most the publisher should send, beside receiver reports.
    public static let receiverEstimate = "goog-remb"

    /// Which way media flows.
    public enum Direction: Sendable, Hashable {
        /// WHIP ingest: the client sends, the answer says `a=recvonly`.
        case receive
        /// WHEP playback: the client receives, the answer says `a=sendonly`.
        case send

        var attribute: String {
            switch self {
            case .receive: "recvonly"
            case .send: "sendonly"
            }
        }

        /// The offer directions this answer direction can answer (RFC 3264 §6.1; no direction is sendrecv).
        func accepts(_ offered: String) -> Bool {
            switch self {
            case .receive: offered == "sendonly" || offered == "sendrecv"
            case .send: offered == "recvonly" || offered == "sendrecv"
            }
        }
    }

    /// What the server puts in the answer.
    public struct Configuration: Sendable, Hashable {
        /// WHIP (receive) or WHEP (send).
        public var direction: Direction
        /// The origin's session id (RFC 8866 §5.2).
        public var sessionID: UInt64
        /// Our ICE ufrag for this session (RFC 8839 §5.4: 4 to 256 characters): the demultiplexer's key.
        public var iceUfrag: String
        /// Our ICE password (22 to 256 characters).
        public var icePwd: String
        /// Our DTLS certificate's fingerprint.
        public var fingerprint: DTLSFingerprint
        /// The one host candidate: the shared UDP port on the public address.
        public var candidate: SDPCandidate
        /// WHEP: the SSRC the server sends video with.
        public var videoSSRC: UInt32
        /// WHEP: the SSRC the server sends audio with.
        public var audioSSRC: UInt32
        /// WHEP: the RTCP canonical name of both tracks (RFC 7022).
        public var cname: String
        /// WHEP: the MediaStream id the tracks belong to (RFC 8830).
        public var streamID: String
        /// The H.264 `profile-level-id` to prefer among those offered (WHEP: the publisher's); nil takes the
        /// offerer's first choice. A match on profile and constraints wins over one on profile alone.
        public var preferredProfileLevelID: String?

        /// Creates a configuration.
        public init(direction: Direction, sessionID: UInt64, iceUfrag: String, icePwd: String,
                    fingerprint: DTLSFingerprint, candidate: SDPCandidate, videoSSRC: UInt32 = 0,
                    audioSSRC: UInt32 = 0, cname: String = "stream", streamID: String = "stream",
                    preferredProfileLevelID: String? = nil) {
            self.direction = direction
            self.sessionID = sessionID
            self.iceUfrag = iceUfrag
            self.icePwd = icePwd
            self.fingerprint = fingerprint
            self.candidate = candidate
            self.videoSSRC = videoSSRC
            self.audioSSRC = audioSSRC
            self.cname = cname
            self.streamID = streamID
            self.preferredProfileLevelID = preferredProfileLevelID
        }
    }

    /// The accepted video section.
    public struct Video: Sendable, Hashable {
        /// Its media id.
        public var mid: String
        /// The H.264 payload type chosen (the offerer's number).
        public var payloadType: UInt8
        /// The chosen format's `profile-level-id` as offered, lower case (`420010` when the offer gave none,
        /// RFC 6184 §8.1).
        public var profileLevelID: String
        /// The feedback answered: a subset of ``ServerAnswer/videoFeedback`` (and ``ServerAnswer/receiverEstimate``).
        public var feedback: [String]
        /// The SSRCs the offer announced for media (RTX SSRCs of `ssrc-group:FID` left out), if any.
        public var remoteSSRCs: [UInt32]

        /// The profile for people, from `profile-level-id` (e.g. "Constrained Baseline 3.1", "High 4.0").
        public var profileDescription: String { H264ProfileLevel(profileLevelID).description }
    }

    /// The accepted audio section.
    public struct Audio: Sendable, Hashable {
        /// Its media id.
        public var mid: String
        /// The Opus payload type chosen.
        public var payloadType: UInt8
        /// The SSRCs the offer announced, if any.
        public var remoteSSRCs: [UInt32]
    }

    /// The client's ICE ufrag: the part after the colon in its checks' USERNAME.
    public let remoteUfrag: String
    /// The client's ICE password.
    public let remotePwd: String
    /// Fingerprints the client's DTLS certificate must match (any one; hashes this module does not know are
    /// skipped).
    public let remoteFingerprints: [DTLSFingerprint]
    /// The video taken, if any.
    public let video: Video?
    /// The audio taken, if any.
    public let audio: Audio?
    /// The answer.
    public let sessionDescription: SessionDescription

    /// The answer as `application/sdp` text.
    public var text: String { sessionDescription.text }

    /// Reads an offer and makes the answer.
    /// - Parameters:
    ///   - offer: the client's SDP.
    ///   - configuration: what the server answers with.
    /// - Throws: ``SDPError``: `.unsupported` (406) when nothing usable is offered or the offer needs what this
    ///   server does not do; `.malformed` (naming the line), `.missing` or `.tooLarge` (400) otherwise.
    public init(offer text: String, configuration: Configuration) throws(SDPError) {
        let offer = try SessionDescription(parsing: text)
        guard offer.sessionAttributes("ice-lite").isEmpty else {
            throw SDPError(.unsupported, "the offer is ICE-lite, like this server: neither side would send checks "
                + "(RFC 8445 §6.1.1); offer as a full ICE agent")
        }
        let bundles = offer.sessionAttributes("group").map { $0.split(separator: " ").map(String.init) }
            .filter { $0.first == "BUNDLE" }.map { Array($0.dropFirst()) }

        var video: Video?
        var audio: Audio?
        var accepted: [Int] = []
        var refusals: [String] = []
        for (index, section) in offer.media.enumerated() {
            let name = "\(section.kind) section \(index + 1)" + (section.attribute("mid").map { " (mid \($0))" } ?? "")
            let choice = try Self.choose(section, direction: configuration.direction, bundles: bundles,
                                         preferredProfile: configuration.preferredProfileLevelID,
                                         alreadyVideo: video != nil, alreadyAudio: audio != nil)
            switch choice {
            case .refused(let why):
                refusals.append("\(name): \(why)")
            case .video(let chosen):
                video = chosen
                accepted.append(index)
            case .audio(let chosen):
                audio = chosen
                accepted.append(index)
            }
        }
        guard !accepted.isEmpty else {
            let detail = refusals.isEmpty ? "it has no media section" : refusals.joined(separator: "; ")
            throw SDPError(.unsupported, "the offer has no media this server takes (H.264 with packetization-mode=1, "
                + "Opus 48000/2, over UDP/TLS/RTP/SAVPF with rtcp-mux): " + detail)
        }
        let mids = accepted.map { offer.media[$0].attribute("mid") ?? "" }
        let group = bundles.first { Set($0).isSuperset(of: mids) }
        if mids.count > 1 && group == nil {
            throw SDPError(.unsupported, "the offer does not BUNDLE mids " + mids.joined(separator: " and ")
                + "; this server carries a session over one transport (RFC 9725 §4.2 requires BUNDLE)")
        }

        // BUNDLE (RFC 8843): the transport is the first bundled section's; session-level lines apply to all.
        let transport = offer.media[accepted[0]]
        func value(_ name: String) -> String? {
            transport.attribute(name) ?? offer.sessionAttributes(name).first
        }
        guard let ufrag = value("ice-ufrag"), let pwd = value("ice-pwd") else {
            throw SDPError(.missing, "the offer has no a=ice-ufrag and a=ice-pwd")
        }
        guard (4...256).contains(ufrag.count), (22...256).contains(pwd.count) else {
            throw SDPError(.malformed, "a=ice-ufrag:\(ufrag.prefix(40)): the ICE ufrag must be 4 to 256 characters "
                + "and the password 22 to 256 (RFC 8839 §5.4)")
        }
        var fingerprints: [DTLSFingerprint] = []
        for value in transport.attributes("fingerprint") + offer.sessionAttributes("fingerprint") {
            do {
                let fingerprint = try DTLSFingerprint(parsing: value)
                if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            } catch where error.code == .unsupported {
                continue  // another hash may follow; one we know is enough
            }
        }
        guard !fingerprints.isEmpty else {
            throw SDPError(.missing, "the offer has no a=fingerprint with a known hash for its DTLS certificate")
        }
        switch value("setup") {
        case "actpass", "active":
            break
        case "passive":
            throw SDPError(.unsupported, "the offer says a=setup:passive; this server is always the DTLS server "
                + "(a=setup:passive), so the client must start the handshake (actpass or active, RFC 5763 §5)")
        case let other?:
            throw SDPError(.malformed, "a=setup:\(other.prefix(40)) is not actpass, active or passive (RFC 4145 §4)")
        case nil:
            throw SDPError(.missing, "the offer has no a=setup (RFC 5763 §5 wants actpass)")
        }

        var sections: [SessionDescription.Media] = []
        for (index, section) in offer.media.enumerated() {
            if accepted.contains(index) {
                sections.append(Self.acceptedSection(section, video: video, audio: audio,
                                                     configuration: configuration))
            } else {
                sections.append(Self.rejectedSection(section))
            }
        }
        typealias Line = SessionDescription.Line
        var session: [Line] = [
            Line("v", "0"),
            Line("o", "- \(configuration.sessionID) 2 IN IP4 127.0.0.1"),
            Line("s", "-"),
            Line("t", "0 0"),
            Line("a", "ice-lite"),
            // Session level (RFC 8839 §5.4, RFC 8122 §5, RFC 4145 §4), so that rejected sections have them too:
            // aiortc refuses an answer with any section lacking ICE credentials or a DTLS role.
            Line("a", "ice-ufrag:\(configuration.iceUfrag)"),
            Line("a", "ice-pwd:\(configuration.icePwd)"),
            Line("a", "fingerprint:\(configuration.fingerprint)"),
            Line("a", "setup:passive"),
        ]
        if let group {
            // The offer's order, accepted mids only (RFC 8843 §7.3.1).
            session.append(Line("a", "group:BUNDLE " + group.filter(mids.contains).joined(separator: " ")))
        }
        if configuration.direction == .send {
            session.append(Line("a", "msid-semantic: WMS \(configuration.streamID)"))
        }
        self.remoteUfrag = ufrag
        self.remotePwd = pwd
        self.remoteFingerprints = fingerprints
        self.video = video
        self.audio = audio
        self.sessionDescription = SessionDescription(session: session, media: sections)
    }

    // MARK: - Choosing

    private enum Choice {
        case video(Video)
        case audio(Audio)
        case refused(String)
    }

    private static func choose(_ section: SessionDescription.Media, direction: Direction, bundles: [[String]],
                               preferredProfile: String?, alreadyVideo: Bool,
                               alreadyAudio: Bool) throws(SDPError) -> Choice {
        guard section.kind == "video" || section.kind == "audio" else {
            return .refused("only audio and video are taken")
        }
        if (section.kind == "video" && alreadyVideo) || (section.kind == "audio" && alreadyAudio) {
            return .refused("one \(section.kind) track per session (RFC 9725 §4.2)")
        }
        let mid = section.attribute("mid")
        let bundleOnly = section.attribute("bundle-only") != nil
            && mid.map { mid in bundles.contains { $0.contains(mid) } } == true
        if section.port == 0 && !bundleOnly { return .refused("disabled in the offer (port 0)") }
        guard section.proto == transportProtocol else { return .refused("\(section.proto), not \(transportProtocol)") }
        let offered = ["sendonly", "recvonly", "sendrecv", "inactive"].first { section.attribute($0) != nil }
            ?? "sendrecv"  // RFC 3264 §5.1: no direction attribute means sendrecv
        guard direction.accepts(offered) else {
            return .refused("\(offered) cannot be answered \(direction.attribute)")
        }
        guard section.attribute("rtcp-mux") != nil else { return .refused("no a=rtcp-mux (RFC 8035)") }
        guard let mid else { return .refused("no a=mid, which BUNDLE needs (RFC 8843 §9.2)") }

        let rtpmaps = try Self.rtpmaps(section)
        let ssrcs = Self.mediaSSRCs(section)
        if section.kind == "audio" {
            let opus = section.formats.compactMap(UInt8.init).first { rtpmaps[$0] == "opus/48000/2" }
            guard let opus else {
                return .refused("no opus/48000/2 among " + Self.codecNames(section, rtpmaps))
            }
            return .audio(Audio(mid: mid, payloadType: opus, remoteSSRCs: ssrcs))
        }
        var h264: [(payloadType: UInt8, profile: String)] = []
        for format in section.formats {
            guard let payloadType = UInt8(format), rtpmaps[payloadType] == "h264/90000" else { continue }
            let parameters = Self.fmtp(section, payloadType)
            // RFC 6184 §8.1: packetization-mode absent means 0 (single NAL units only), which we do not take.
            guard parameters["packetization-mode"] == "1" else { continue }
            let profile = parameters["profile-level-id"]?.lowercased() ?? "420010"
            guard profile.count == 6, profile.allSatisfy(\.isHexDigit) else {
                throw SDPError(.malformed, "a=fmtp:\(payloadType) has profile-level-id=\(profile.prefix(20)), not "
                    + "six hex digits (RFC 6184 §8.1)")
            }
            h264.append((payloadType, profile))
        }
        guard var chosen = h264.first else {
            return .refused("no H264/90000 with packetization-mode=1 among " + Self.codecNames(section, rtpmaps))
        }
        if let preferred = preferredProfile?.lowercased() {
            chosen = h264.first { $0.profile.prefix(4) == preferred.prefix(4) }
                ?? h264.first { $0.profile.prefix(2) == preferred.prefix(2) } ?? chosen
        }
        let offeredFeedback = section.attributes("rtcp-fb").compactMap { value -> String? in
            let fields = value.split(separator: " ", maxSplits: 1).map(String.init)
            guard fields.count == 2, fields[0] == String(chosen.payloadType) || fields[0] == "*" else { return nil }
            return fields[1].split(separator: " ").joined(separator: " ").lowercased()
        }
        let answerable = direction == .receive ? videoFeedback + [Self.receiverEstimate] : videoFeedback
        return .video(Video(mid: mid, payloadType: chosen.payloadType, profileLevelID: chosen.profile,
                            feedback: answerable.filter(offeredFeedback.contains), remoteSSRCs: ssrcs))
    }

    /// RFC 8866 §6.6: `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]`, lower-cased by type.
    private static func rtpmaps(_ section: SessionDescription.Media) throws(SDPError) -> [UInt8: String] {
        var maps: [UInt8: String] = [:]
        for value in section.attributes("rtpmap") {
            let fields = value.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, let payloadType = UInt8(fields[0]), payloadType < 128 else {
                throw SDPError(.malformed, "a=rtpmap:\(value.prefix(60)) in the \(section.kind) section is not "
                    + "\"<payload type 0-127> <codec>/<clock rate>\" (RFC 8866 §6.6)")
            }
            maps[payloadType] = fields[1].lowercased()
        }
        return maps
    }

    /// The `a=fmtp` parameters of one payload type (RFC 8866 §6.15), names lower-cased.
    private static func fmtp(_ section: SessionDescription.Media, _ payloadType: UInt8) -> [String: String] {
        let prefix = "\(payloadType) "
        guard let value = section.attributes("fmtp").first(where: { $0.hasPrefix(prefix) }) else { return [:] }
        var parameters: [String: String] = [:]
        for pair in value.dropFirst(prefix.count).split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingPrefix(" ") }
            guard parts.count == 2 else { continue }
            parameters[parts[0].lowercased()] = String(parts[1].prefix { $0 != " " })
        }
        return parameters
    }

    private static func codecNames(_ section: SessionDescription.Media, _ rtpmaps: [UInt8: String]) -> String {
        let names = section.formats.compactMap { UInt8($0).flatMap { rtpmaps[$0] } }
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        return unique.isEmpty ? "no rtpmap" : unique.joined(separator: ", ")
    }

    /// `a=ssrc:` numbers in order, without the RTX halves of `a=ssrc-group:FID` (RFC 5576, RFC 4588).
    private static func mediaSSRCs(_ section: SessionDescription.Media) -> [UInt32] {
        var retransmission: Set<UInt32> = []
        for group in section.attributes("ssrc-group") {
            let fields = group.split(separator: " ")
            if fields.first == "FID" { retransmission.formUnion(fields.dropFirst(2).compactMap { UInt32($0) }) }
        }
        var ssrcs: [UInt32] = []
        for value in section.attributes("ssrc") {
            guard let ssrc = value.split(separator: " ").first.flatMap({ UInt32($0) }),
                  !retransmission.contains(ssrc), !ssrcs.contains(ssrc) else { continue }
            ssrcs.append(ssrc)
        }
        return ssrcs
    }

    // MARK: - Writing

    private static func acceptedSection(_ offered: SessionDescription.Media, video: Video?, audio: Audio?,
                                        configuration: Configuration) -> SessionDescription.Media {
        typealias Line = SessionDescription.Line
        let candidate = configuration.candidate
        let family = candidate.address.contains(":") ? "IP6" : "IP4"
        let isVideo = offered.kind == "video"
        let mid = (isVideo ? video?.mid : audio?.mid) ?? ""
        let payloadType = (isVideo ? video?.payloadType : audio?.payloadType) ?? 0
        var lines: [Line] = [
            // RFC 8839 §4.2.1.1: the default candidate in c= and m=.
            Line("c", "IN \(family) \(candidate.address)"),
            Line("a", "mid:\(mid)"),
            Line("a", configuration.direction.attribute),
            Line("a", "rtcp-mux"),
            Line("a", "candidate:\(candidate.attributeValue)"),
            Line("a", "end-of-candidates"),
        ]
        if let video, isVideo {
            lines.append(Line("a", "rtpmap:\(payloadType) H264/90000"))
            lines += video.feedback.map { Line("a", "rtcp-fb:\(payloadType) \($0)") }
            lines.append(Line("a", "fmtp:\(payloadType) level-asymmetry-allowed=1;packetization-mode=1;"
                + "profile-level-id=\(video.profileLevelID)"))
        } else {
            lines.append(Line("a", "rtpmap:\(payloadType) opus/48000/2"))
            lines.append(Line("a", "fmtp:\(payloadType) minptime=10;useinbandfec=1"))
        }
        if configuration.direction == .send {
            let ssrc = isVideo ? configuration.videoSSRC : configuration.audioSSRC
            let track = offered.kind
            lines += [
                Line("a", "msid:\(configuration.streamID) \(track)"),
                Line("a", "ssrc:\(ssrc) cname:\(configuration.cname)"),
                Line("a", "ssrc:\(ssrc) msid:\(configuration.streamID) \(track)"),
            ]
        }
        return SessionDescription.Media(kind: offered.kind, port: candidate.port, proto: transportProtocol,
                                        formats: [String(payloadType)], lines: lines)
    }

    /// RFC 3264 §6 and RFC 8843 §7.3.3: a rejected section keeps its kind, proto, a format and its mid, port 0.
    private static func rejectedSection(_ offered: SessionDescription.Media) -> SessionDescription.Media {
        var lines = [SessionDescription.Line("c", "IN IP4 0.0.0.0")]
        if let mid = offered.attribute("mid") { lines.append(.init("a", "mid:\(mid)")) }
        // aiortc refuses an answer whose audio or video sections, rejected ones included, lack rtcp-mux.
        if offered.kind == "audio" || offered.kind == "video" { lines.append(.init("a", "rtcp-mux")) }
        return SessionDescription.Media(kind: offered.kind, port: 0, proto: offered.proto,
                                        formats: Array(offered.formats.prefix(1)), lines: lines)
    }
}

/// An H.264 `profile-level-id` read for people (RFC 6184 §8.1, H.264 Annex A): profile_idc, the constraint flags,
/// level_idc.
struct H264ProfileLevel: CustomStringConvertible {
    let profileIDC: UInt8
    let constraints: UInt8
    let levelIDC: UInt8

    init(_ hex: String) {
        let bytes = stride(from: 0, to: 6, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset, limitedBy: hex.endIndex) ?? hex.endIndex
            let end = hex.index(start, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            return UInt8(hex[start..<end], radix: 16) ?? 0
        }
        profileIDC = bytes[0]
        constraints = bytes[1]
        levelIDC = bytes[2]
    }

    var description: String {
        let profile = switch profileIDC {
        case 0x42: constraints & 0x40 != 0 ? "Constrained Baseline" : "Baseline"
        case 0x4D: "Main"
        case 0x58: "Extended"
        case 0x64: constraints & 0x0C == 0x0C ? "Constrained High" : "High"
        case 0x6E: "High 10"
        case 0x7A: "High 4:2:2"
        case 0xF4: "High 4:4:4"
        default: "profile_idc \(profileIDC)"
        }
        // Level 1b is level_idc 11 with constraint_set3 in the Baseline family (H.264 A.3.1).
        if levelIDC == 11 && constraints & 0x10 != 0 && [0x42, 0x4D, 0x58].contains(profileIDC) {
            return profile + " 1b"
        }
        return profile + " \(levelIDC / 10).\(levelIDC % 10)"
    }
}
