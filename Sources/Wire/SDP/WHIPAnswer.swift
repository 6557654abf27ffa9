/// What a WHIP endpoint's answer (RFC 9725 §4.2) settles, read strictly against our ``WHIPOffer``.
///
/// Anything this publisher cannot honour is an ``SDPError`` that names it: a rejected or reordered section, another
/// codec or transport, no BUNDLE or rtcp-mux, missing ICE credentials, fingerprint or DTLS role, no candidate.
public struct WHIPAnswer: Sendable, Hashable {
    /// The DTLS role the answerer took (RFC 5763 §5); we take the other.
    public enum Setup: String, Sendable, Hashable {
        /// The answerer starts the DTLS handshake: we are the DTLS server.
        case active
        /// The answerer waits: we are the DTLS client.
        case passive
    }

    /// The peer's ICE username fragment.
    public var iceUfrag: String
    /// The peer's ICE password.
    public var icePwd: String
    /// Whether the peer is an ICE-lite agent (RFC 8445 §2.5): it never sends checks of its own.
    public var iceLite: Bool
    /// The fingerprints the peer's certificate must match (any one of them).
    public var fingerprints: [DTLSFingerprint]
    /// The peer's DTLS role.
    public var setup: Setup
    /// The peer's candidates (UDP, component 1), deduplicated, in the order given.
    public var candidates: [SDPCandidate]
    /// The H.264 payload type accepted, or nil when the video section was rejected or not offered.
    public var videoPayloadType: UInt8?
    /// The Opus payload type accepted, or nil when the audio section was rejected or not offered.
    public var audioPayloadType: UInt8?

    /// Reads an answer.
    /// - Parameters:
    ///   - text: the answer's SDP.
    ///   - offer: the offer it answers.
    /// - Throws: ``SDPError`` naming the first thing that cannot work.
    public init(parsing text: String, offer: WHIPOffer) throws(SDPError) {
        let answer = try SessionDescription(parsing: text)
        let offered = offer.sessionDescription
        guard answer.media.count == offered.media.count else {
            throw SDPError(.mismatch, "the answer has \(answer.media.count) media sections for the offer's "
                + "\(offered.media.count) (RFC 3264 §6 wants one per offered section, in order)")
        }
        var credentials: (ufrag: String, pwd: String)?
        var fingerprints: [DTLSFingerprint] = []
        var setup: Setup?
        var candidates: [SDPCandidate] = []
        var accepted: [String] = []
        var videoPayloadType: UInt8?
        var audioPayloadType: UInt8?
        for (index, (section, ours)) in zip(answer.media, offered.media).enumerated() {
            let mid = ours.attribute("mid") ?? String(index)
            guard section.kind == ours.kind else {
                throw SDPError(.mismatch, "answer section \(index + 1) is \(section.kind), the offer's is \(ours.kind)")
            }
            if let theirMid = section.attribute("mid"), theirMid != mid {
                throw SDPError(.mismatch, "answer section \(index + 1) has mid \(theirMid), the offer's is \(mid)")
            }
            if section.port == 0 || section.attribute("inactive") != nil { continue }
            guard section.proto == ours.proto else {
                throw SDPError(.unsupported, "the \(section.kind) section uses \(section.proto), not the offered "
                    + ours.proto)
            }
            guard section.attribute("recvonly") != nil else {
                throw SDPError(.mismatch, "the \(section.kind) section of the answer must be recvonly, the answer to "
                    + "a sendonly offer (RFC 3264 §6.1)")
            }
            guard section.attribute("rtcp-mux") != nil else {
                throw SDPError(.unsupported, "the \(section.kind) section does not accept rtcp-mux; this publisher "
                    + "sends RTP and RTCP on one port (RFC 8035)")
            }
            let payloadType = try Self.payloadType(of: section, offered: ours)
            if section.kind == "video" { videoPayloadType = payloadType } else { audioPayloadType = payloadType }
            accepted.append(mid)

            let ufrag = section.attribute("ice-ufrag") ?? answer.sessionAttributes("ice-ufrag").first
            let pwd = section.attribute("ice-pwd") ?? answer.sessionAttributes("ice-pwd").first
            guard let ufrag, let pwd else {
                throw SDPError(.missing, "the \(section.kind) section has no a=ice-ufrag and a=ice-pwd")
            }
            guard (4...256).contains(ufrag.count), (22...256).contains(pwd.count) else {
                throw SDPError(.malformed, "the ICE ufrag must be 4 to 256 characters and the password 22 to 256 "
                    + "(RFC 8839 §5.4)")
            }
            if credentials == nil { credentials = (ufrag, pwd) }
            let sectionFingerprints = section.attributes("fingerprint") + answer.sessionAttributes("fingerprint")
            for value in sectionFingerprints {
                let fingerprint = try DTLSFingerprint(parsing: value)
                if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            }
            guard !sectionFingerprints.isEmpty else {
                throw SDPError(.missing, "the \(section.kind) section has no a=fingerprint for its DTLS certificate")
            }
            guard let role = section.attribute("setup") ?? answer.sessionAttributes("setup").first else {
                throw SDPError(.missing, "the \(section.kind) section has no a=setup (active or passive)")
            }
            guard let parsedRole = Setup(rawValue: role) else {
                throw SDPError(.malformed, "a=setup:\(role) in an answer must be active or passive (RFC 5763 §5)")
            }
            if setup == nil { setup = parsedRole }
            for value in section.attributes("candidate") {
                let candidate = try SDPCandidate(parsing: value)
                guard candidate.component == 1, candidate.transport == "udp" else { continue }
                if !candidates.contains(candidate) { candidates.append(candidate) }
            }
            if candidates.isEmpty, let fallback = Self.connectionCandidate(section, answer: answer) {
                candidates.append(fallback)
            }
        }
        guard !accepted.isEmpty, let credentials, let setup else {
            throw SDPError(.rejected, "the endpoint rejected every media section")
        }
        if accepted.count > 1 {
            let bundles = answer.sessionAttributes("group").map { $0.split(separator: " ").map(String.init) }
                .filter { $0.first == "BUNDLE" }
            guard bundles.contains(where: { Set($0.dropFirst()).isSuperset(of: accepted) }) else {
                throw SDPError(.unsupported, "the answer does not BUNDLE the media sections "
                    + accepted.joined(separator: ", ") + "; this publisher sends every track over one transport")
            }
        }
        guard !candidates.isEmpty else {
            throw SDPError(.missing, "the answer has no ICE candidate and no address to send to")
        }
        self.iceUfrag = credentials.ufrag
        self.icePwd = credentials.pwd
        self.iceLite = !answer.sessionAttributes("ice-lite").isEmpty
        self.fingerprints = fingerprints
        self.setup = setup
        self.candidates = candidates
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
    }

    /// The accepted payload type: the answer's first format, which must be one we offered, with the same codec.
    private static func payloadType(of section: SessionDescription.Media,
                                    offered: SessionDescription.Media) throws(SDPError) -> UInt8 {
        guard let first = section.formats.first, let payloadType = UInt8(first), payloadType < 128 else {
            throw SDPError(.malformed, "the \(section.kind) section's format \"\(section.formats.first ?? "")\" is "
                + "not an RTP payload type")
        }
        guard offered.formats.contains(first) else {
            throw SDPError(.mismatch, "the \(section.kind) section chose payload type \(first), which was not offered "
                + "(offered: \(offered.formats.joined(separator: ", ")))")
        }
        let expected = offered.attributes("rtpmap").first { $0.hasPrefix(first + " ") } ?? ""
        if let rtpmap = section.attributes("rtpmap").first(where: { $0.hasPrefix(first + " ") }) {
            let codec = { (value: String) in value.split(separator: " ").dropFirst().first?.lowercased() ?? "" }
            // Clock rate and channels must match; Opus' channel count is always 2 in SDP (RFC 7587 §7).
            guard codec(rtpmap) == codec(expected) else {
                throw SDPError(.unsupported, "payload type \(first) is \(codec(rtpmap)) in the answer, "
                    + "\(codec(expected)) in the offer")
            }
        }
        if section.kind == "video",
           let fmtp = section.attributes("fmtp").first(where: { $0.hasPrefix(first + " ") }) {
            let parameters = fmtp.dropFirst(first.count + 1).split(separator: ";")
                .map { $0.trimmingPrefix(" ") }
            if let mode = parameters.first(where: { $0.hasPrefix("packetization-mode=") }),
               mode != "packetization-mode=1" {
                throw SDPError(.unsupported, "the answer asks for H.264 \(mode); this publisher sends "
                    + "packetization-mode=1 (FU-A and STAP-A, RFC 6184 §6.3)")
            }
        }
        return payloadType
    }

    /// A host candidate from `c=` and the `m=` port, for endpoints that list no candidate (RFC 8839 §4.2.1).
    private static func connectionCandidate(_ section: SessionDescription.Media,
                                            answer: SessionDescription) -> SDPCandidate? {
        let connection = section.lines.first { $0.type == "c" }?.value
            ?? answer.session.first { $0.type == "c" }?.value
        let fields = connection?.split(separator: " ").map(String.init) ?? []
        guard fields.count >= 3, fields[0] == "IN", fields[2] != "0.0.0.0", fields[2] != "::" else { return nil }
        return SDPCandidate(foundation: "c", priority: 1, address: fields[2], port: section.port, kind: .host)
    }
}
