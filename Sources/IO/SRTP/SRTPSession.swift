#if canImport(COpenSSL)
import COpenSSL

/// One direction of SRTP and SRTCP (RFC 3711), profile SRTP_AES128_CM_SHA1_80: AES-128 in counter mode and an
/// 80-bit HMAC-SHA1 tag, on OpenSSL's AES and HMAC. Outbound sessions protect what we send, inbound ones
/// unprotect what the peer sends.
///
/// One session covers every SSRC of its direction, up to 64 of each kind (RTP, RTCP): a packet of
/// one more is refused with ``SRTPError/Code/packet``, so nothing grows without bound. An inbound SSRC is
/// remembered only once one of its packets has been authenticated, so forged packets cannot fill the table.
/// Outbound sessions may protect a sequence number again (NACK retransmissions); inbound ones drop replays within a
/// window of 1024 packets per SSRC (RFC 3711 §3.3.2), updated only after authentication.
///
/// The master key is not kept past `init`; the session keys live in OpenSSL's contexts, cleansed when freed on
/// deinit, and the salts are zeroed then.
///
/// Holds OpenSSL contexts and per-SSRC state: use from one thread.
public final class SRTPSession {
    /// Which way the packets go.
    public enum Direction: Sendable, Hashable {
        /// Protects our packets (any SSRC we send).
        case outbound
        /// Unprotects the peer's packets.
        case inbound
    }

    /// How many SSRCs a session tracks for SRTP, and as many for SRTCP. A WebRTC session sends a few (audio, video,
    /// their RTX): 64 is room enough, and bounds what a peer can make us keep.
    static let maximumSSRCs = 64

    private let direction: Direction
    private let rtpKeys: SRTPKeys
    private let rtcpKeys: SRTPKeys
    private var rtpStreams: [UInt32: SRTPStreamState] = [:]
    private var rtcpStreams: [UInt32: SRTPStreamState] = [:]

    /// Creates a session.
    /// - Parameters:
    ///   - masterKey: the 16-byte master key followed by the 14-byte master salt.
    ///   - direction: outbound or inbound.
    /// - Throws: ``SRTPError`` when the key is not 30 bytes, or OpenSSL cannot set up AES or HMAC.
    public init(masterKey: [UInt8], direction: Direction) throws(SRTPError) {
        guard masterKey.count == 30 else {
            throw SRTPError(.setup, "an AES-128 SRTP master key and salt are 30 bytes, not \(masterKey.count)")
        }
        var key = Array(masterKey[0..<16])
        var salt = Array(masterKey[16..<30])
        defer {
            SRTPKeys.cleanse(&key)
            SRTPKeys.cleanse(&salt)
        }
        self.direction = direction
        rtpKeys = try SRTPKeys(masterKey: key, masterSalt: salt, firstLabel: SRTPKeys.rtpLabels)
        rtcpKeys = try SRTPKeys(masterKey: key, masterSalt: salt, firstLabel: SRTPKeys.rtcpLabels)
    }

    /// Encrypts and authenticates an RTP packet.
    /// - Throws: ``SRTPError`` for a malformed packet, or a new SSRC past 64.
    public func protect(rtp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        let what = "protect an RTP packet"
        let header = try Self.rtpHeaderLength(packet, end: packet.count, what)
        try Self.checkPadding(packet, header: header, end: packet.count, what)
        let (ssrc, stream, index) = try locate(rtp: packet, what)
        var output: [UInt8] = []
        output.reserveCapacity(packet.count + SRTPKeys.tagLength)
        output += packet
        output += repeatElement(0, count: SRTPKeys.tagLength)
        let done = output.withUnsafeMutableBufferPointer { bytes in
            rtpKeys.crypt(UnsafeMutableBufferPointer(rebasing: bytes[header..<packet.count]), ssrc: ssrc, index: index)
                && rtpKeys.tag(of: UnsafeBufferPointer(rebasing: bytes[0..<packet.count]),
                               rollover: UInt32(truncatingIfNeeded: index >> 16),
                               into: bytes.baseAddress! + packet.count)
        }
        guard done else { throw SRTPError(.packet, "cannot \(what): OpenSSL's AES or HMAC failed") }
        accept(index, of: ssrc, in: &rtpStreams, stream)
        return output
    }

    /// Encrypts and authenticates an RTCP compound packet.
    /// - Throws: ``SRTPError`` for a malformed packet, a new SSRC past 64, or 2^31 packets of one.
    public func protect(rtcp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        let what = "protect an RTCP packet"
        try Self.checkRTCPHeader(packet, end: packet.count, what)
        let ssrc = Self.word(packet, at: 4)
        let stream = rtcpStreams[ssrc]
        if stream == nil { try checkRoom(rtcpStreams, ssrc, what) }
        let index = stream.map { $0.highest + 1 } ?? 0
        guard index < 1 << 31 else {
            throw SRTPError(.packet, "cannot \(what): SSRC \(ssrc) has used all 2^31 SRTCP indices; the keys must be "
                                + "renewed")
        }
        let indexWord = UInt32(index) | 0x8000_0000  // the E flag: encrypted
        var output = packet
        output.reserveCapacity(packet.count + 4 + SRTPKeys.tagLength)
        for shift in stride(from: 24, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: indexWord >> shift))
        }
        output += repeatElement(0, count: SRTPKeys.tagLength)
        let done = output.withUnsafeMutableBufferPointer { bytes in
            rtcpKeys.crypt(UnsafeMutableBufferPointer(rebasing: bytes[8..<packet.count]), ssrc: ssrc, index: index)
                && rtcpKeys.tag(of: UnsafeBufferPointer(rebasing: bytes[0..<packet.count + 4]), rollover: nil,
                                into: bytes.baseAddress! + packet.count + 4)
        }
        guard done else { throw SRTPError(.packet, "cannot \(what): OpenSSL's AES or HMAC failed") }
        accept(index, of: ssrc, in: &rtcpStreams, stream)
        return output
    }

    /// Checks and decrypts an SRTP packet.
    /// - Throws: ``SRTPError`` when authentication fails, it is a replay, or it is malformed.
    public func unprotect(rtp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        let what = "unprotect an SRTP packet"
        let end = packet.count - SRTPKeys.tagLength
        guard end >= 12 else {
            throw SRTPError(.packet, "cannot \(what): \(packet.count) bytes are fewer than an RTP header and the tag")
        }
        let header = try Self.rtpHeaderLength(packet, end: end, what)
        let (ssrc, stream, index) = try locate(rtp: packet, what)
        if let problem = stream?.replayProblem(index) {
            throw SRTPError(.replay, "cannot \(what): a replayed or too old packet (SSRC \(ssrc), \(problem))")
        }
        let authentic = packet.withUnsafeBufferPointer { bytes in
            rtpKeys.verify(UnsafeBufferPointer(rebasing: bytes[0..<end]),
                           rollover: UInt32(truncatingIfNeeded: index >> 16), tag: bytes.baseAddress! + end)
        }
        guard authentic else { throw Self.authenticationFailure(what) }
        var output = Array(packet[0..<end])
        let done = output.withUnsafeMutableBufferPointer { bytes in
            rtpKeys.crypt(UnsafeMutableBufferPointer(rebasing: bytes[header...]), ssrc: ssrc, index: index)
        }
        guard done else { throw SRTPError(.packet, "cannot \(what): OpenSSL's AES failed") }
        try Self.checkPadding(output, header: header, end: end, what)
        accept(index, of: ssrc, in: &rtpStreams, stream)
        return output
    }

    /// Checks and decrypts an SRTCP packet.
    /// - Throws: ``SRTPError`` when authentication fails, it is a replay, or it is malformed.
    public func unprotect(rtcp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        let what = "unprotect an SRTCP packet"
        let authenticatedEnd = packet.count - SRTPKeys.tagLength
        let end = authenticatedEnd - 4
        guard end >= 8 else {
            throw SRTPError(.packet, "cannot \(what): \(packet.count) bytes are fewer than an RTCP header, the SRTCP "
                                + "index and the tag")
        }
        try Self.checkRTCPHeader(packet, end: end, what)
        let ssrc = Self.word(packet, at: 4)
        let indexWord = Self.word(packet, at: end)
        let index = UInt64(indexWord & 0x7FFF_FFFF)
        let stream = rtcpStreams[ssrc]
        if stream == nil { try checkRoom(rtcpStreams, ssrc, what) }
        if let problem = stream?.replayProblem(index) {
            throw SRTPError(.replay, "cannot \(what): a replayed or too old packet (SSRC \(ssrc), \(problem))")
        }
        let authentic = packet.withUnsafeBufferPointer { bytes in
            rtcpKeys.verify(UnsafeBufferPointer(rebasing: bytes[0..<authenticatedEnd]), rollover: nil,
                            tag: bytes.baseAddress! + authenticatedEnd)
        }
        guard authentic else { throw Self.authenticationFailure(what) }
        var output = Array(packet[0..<end])
        if indexWord & 0x8000_0000 != 0 {  // the E flag; RFC 3711 §3.4 lets SRTCP go authenticated but clear
            let done = output.withUnsafeMutableBufferPointer { bytes in
                rtcpKeys.crypt(UnsafeMutableBufferPointer(rebasing: bytes[8...]), ssrc: ssrc, index: index)
            }
            guard done else { throw SRTPError(.packet, "cannot \(what): OpenSSL's AES failed") }
        }
        accept(index, of: ssrc, in: &rtcpStreams, stream)
        return output
    }

    // MARK: - State

    /// An RTP packet's SSRC, the state kept for it (nil for one not seen yet, refused past ``maximumSSRCs``), and
    /// the packet's index (RFC 3711 §3.3.1).
    private func locate(rtp packet: [UInt8], _ what: String)
        throws(SRTPError) -> (ssrc: UInt32, stream: SRTPStreamState?, index: UInt64) {
        let ssrc = Self.word(packet, at: 8)
        let sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
        let stream = rtpStreams[ssrc]
        if stream == nil { try checkRoom(rtpStreams, ssrc, what) }
        guard let index = stream.map({ $0.estimate(sequence: sequence) }) ?? UInt64(sequence) else {
            // Inbound, a packet from before the stream's first is as good as a replay.
            throw SRTPError(direction == .inbound ? .replay : .packet,
                            "cannot \(what): sequence number \(sequence) of SSRC \(ssrc) falls outside its rollover "
                                + "counter's range (from before its first packet, or past 2^48 packets)")
        }
        return (ssrc, stream, index)
    }

    /// Refuses a new SSRC when the session already tracks ``maximumSSRCs`` of that kind.
    private func checkRoom(_ streams: [UInt32: SRTPStreamState], _ ssrc: UInt32, _ what: String) throws(SRTPError) {
        guard streams.count < Self.maximumSSRCs else {
            throw SRTPError(.packet, "cannot \(what): SSRC \(ssrc) would be one more than the \(Self.maximumSSRCs) "
                                + "this session tracks")
        }
    }

    /// Records an index sent, or an authenticated one received.
    private func accept(_ index: UInt64, of ssrc: UInt32, in streams: inout [UInt32: SRTPStreamState],
                        _ stream: SRTPStreamState?) {
        if let stream {
            stream.accept(index)
        } else {
            streams[ssrc] = SRTPStreamState(first: index, tracksReplays: direction == .inbound)
        }
    }

    // MARK: - Parsing

    private static func authenticationFailure(_ what: String) -> SRTPError {
        SRTPError(.authentication, "cannot \(what): authentication failed (wrong key, or the packet was altered)")
    }

    /// The big-endian 32-bit word at `offset`.
    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// The length of the RTP header (fixed part, CSRCs, extension) of the packet in `bytes[0..<end]`.
    private static func rtpHeaderLength(_ bytes: [UInt8], end: Int, _ what: String) throws(SRTPError) -> Int {
        guard end >= 12 else {
            throw SRTPError(.packet, "cannot \(what): \(end) bytes are fewer than an RTP header's 12")
        }
        guard bytes[0] >> 6 == 2 else {
            throw SRTPError(.packet, "cannot \(what): RTP version \(bytes[0] >> 6), not 2")
        }
        var length = 12 + 4 * Int(bytes[0] & 0x0F)
        guard length <= end else {
            throw SRTPError(.packet, "cannot \(what): its \(bytes[0] & 0x0F) CSRCs run past the end")
        }
        if bytes[0] & 0x10 != 0 {
            guard length + 4 <= end else {
                throw SRTPError(.packet, "cannot \(what): its header extension runs past the end")
            }
            length += 4 + 4 * (Int(bytes[length + 2]) << 8 | Int(bytes[length + 3]))
            guard length <= end else {
                throw SRTPError(.packet, "cannot \(what): its header extension runs past the end")
            }
        }
        return length
    }

    /// With the P bit set, the last byte of the payload counts the padding, itself included (RFC 3550 §5.1).
    private static func checkPadding(_ bytes: [UInt8], header: Int, end: Int, _ what: String) throws(SRTPError) {
        guard bytes[0] & 0x20 != 0 else { return }
        let count = end > header ? Int(bytes[end - 1]) : 0
        guard count >= 1, count <= end - header else {
            throw SRTPError(.packet, "cannot \(what): its padding (\(count) bytes) does not fit its "
                                + "\(end - header)-byte payload")
        }
    }

    /// An RTCP packet starts with version 2 and its sender's SSRC (RFC 3550 §6.4).
    private static func checkRTCPHeader(_ bytes: [UInt8], end: Int, _ what: String) throws(SRTPError) {
        guard end >= 8 else {
            throw SRTPError(.packet, "cannot \(what): \(end) bytes are fewer than an RTCP header's 8")
        }
        guard bytes[0] >> 6 == 2 else {
            throw SRTPError(.packet, "cannot \(what): RTCP version \(bytes[0] >> 6), not 2")
        }
    }
}
#endif
