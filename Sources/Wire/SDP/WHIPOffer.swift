import ByteIO

/// The offer a WHIP publisher POSTs (RFC 9725 §4.2): one BUNDLEd, rtcp-muxed, sendonly transport carrying H.264
/// video and Opus audio, with every local ICE candidate inline (no trickle) and the DTLS certificate's fingerprint.
public struct WHIPOffer: Sendable, Hashable {
    /// The RTP transport profile of every section (RFC 5764 §8: DTLS-SRTP with feedback).
    public static let transportProtocol = "UDP/TLS/RTP/SAVPF"

    /// The video section's settings.
    public struct Video: Sendable, Hashable {
        /// The dynamic payload type offered for H.264.
        public var payloadType: UInt8
        /// RFC 6184 §8.1 `profile-level-id`: six hex digits (profile_idc, constraint flags, level_idc of the SPS).
        public var profileLevelID: String
        /// The RTP SSRC the video is sent with.
        public var ssrc: UInt32

        /// Creates video settings.
        public init(payloadType: UInt8 = 102, profileLevelID: String = "42e01f", ssrc: UInt32) {
            self.payloadType = payloadType
            self.profileLevelID = profileLevelID
            self.ssrc = ssrc
        }

        /// The profile-level-id of an H.264 sequence parameter set (its NAL header byte first).
        /// - Parameter sps: the SPS NAL unit, header included.
        /// - Returns: six lower-case hex digits, or nil when the SPS is too short.
        public static func profileLevelID(sps: [UInt8]) -> String? {
            guard sps.count >= 4 else { return nil }
            return Hex.encode(sps[1...3])
        }
    }

    /// The audio section's settings.
    public struct Audio: Sendable, Hashable {
        /// The dynamic payload type offered for Opus.
        public var payloadType: UInt8
        /// The RTP SSRC the audio is sent with.
        public var ssrc: UInt32

        /// Creates audio settings.
        public init(payloadType: UInt8 = 111, ssrc: UInt32) {
            self.payloadType = payloadType
            self.ssrc = ssrc
        }
    }

    /// The origin's session id (RFC 8866 §5.2); a random number.
    public var sessionID: UInt64
    /// Our ICE username fragment (RFC 8839 §5.4: 4 to 256 characters).
    public var iceUfrag: String
    /// Our ICE password (22 to 256 characters).
    public var icePwd: String
    /// The fingerprint of our DTLS certificate.
    public var fingerprint: DTLSFingerprint
    /// Our gathered candidates.
    public var candidates: [SDPCandidate]
    /// The RTCP canonical name shared by both tracks (RFC 7022).
    public var cname: String
    /// The MediaStream id the tracks belong to (RFC 8830).
    public var streamID: String
    /// Video, if sent.
    public var video: Video?
    /// Audio, if sent.
    public var audio: Audio?

    /// Creates an offer.
    public init(sessionID: UInt64, iceUfrag: String, icePwd: String, fingerprint: DTLSFingerprint,
                candidates: [SDPCandidate], cname: String, streamID: String = "stream", video: Video?, audio: Audio?) {
        self.sessionID = sessionID
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.cname = cname
        self.streamID = streamID
        self.video = video
        self.audio = audio
    }

    /// The media ids in section order: "0" for the first section, "1" for the second.
    public var mids: [String] {
        (0..<((video == nil ? 0 : 1) + (audio == nil ? 0 : 1))).map(String.init)
    }

    /// The offer as a description.
    public var sessionDescription: SessionDescription {
        typealias Line = SessionDescription.Line
        let session: [Line] = [
            Line("v", "0"),
            Line("o", "- \(sessionID) 2 IN IP4 127.0.0.1"),
            Line("s", "-"),
            Line("t", "0 0"),
            Line("a", "group:BUNDLE " + mids.joined(separator: " ")),
            Line("a", "msid-semantic: WMS \(streamID)"),
        ]
        var media: [SessionDescription.Media] = []
        func common(mid: String, ssrc: UInt32, track: String) -> [Line] {
            var lines: [Line] = [
                Line("c", "IN IP4 0.0.0.0"),
                Line("a", "rtcp:9 IN IP4 0.0.0.0"),
                Line("a", "ice-ufrag:\(iceUfrag)"),
                Line("a", "ice-pwd:\(icePwd)"),
                Line("a", "fingerprint:\(fingerprint)"),
                Line("a", "setup:actpass"),  // RFC 5763 §5: the offerer lets the answerer pick the DTLS role
                Line("a", "mid:\(mid)"),
                Line("a", "sendonly"),
                Line("a", "msid:\(streamID) \(track)"),
                Line("a", "rtcp-mux"),
            ]
            lines += candidates.map { Line("a", "candidate:\($0.attributeValue)") }
            lines.append(Line("a", "end-of-candidates"))
            lines.append(Line("a", "ssrc:\(ssrc) cname:\(cname)"))
            lines.append(Line("a", "ssrc:\(ssrc) msid:\(streamID) \(track)"))
            return lines
        }
        var mid = 0
        if let video {
            let pt = video.payloadType
            var lines = common(mid: String(mid), ssrc: video.ssrc, track: "video")
            lines += [
                Line("a", "rtpmap:\(pt) H264/90000"),
                Line("a", "rtcp-fb:\(pt) nack"),
                Line("a", "rtcp-fb:\(pt) nack pli"),
                Line("a", "rtcp-fb:\(pt) ccm fir"),
                Line("a", "fmtp:\(pt) level-asymmetry-allowed=1;packetization-mode=1;"
                    + "profile-level-id=\(video.profileLevelID)"),
            ]
            media.append(.init(kind: "video", port: 9, proto: Self.transportProtocol, formats: [String(pt)],
                               lines: lines))
            mid += 1
        }
        if let audio {
            let pt = audio.payloadType
            var lines = common(mid: String(mid), ssrc: audio.ssrc, track: "audio")
            lines += [
                Line("a", "rtpmap:\(pt) opus/48000/2"),
                Line("a", "fmtp:\(pt) minptime=10;useinbandfec=1"),
            ]
            media.append(.init(kind: "audio", port: 9, proto: Self.transportProtocol, formats: [String(pt)],
                               lines: lines))
        }
        return SessionDescription(session: session, media: media)
    }

    /// The offer as `application/sdp` text.
    public var text: String { sessionDescription.text }
}
