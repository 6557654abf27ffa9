#if canImport(CSRTP)
import CSRTP

/// One direction of SRTP and SRTCP (RFC 3711) with AES-128 counter mode and an 80-bit HMAC-SHA1 tag, through
/// libsrtp2. Outbound sessions protect what we send, inbound ones unprotect what the peer sends.
///
/// Owns a libsrtp context: use from one thread.
public final class SRTPSession {
    /// Which way the packets go.
    public enum Direction: Sendable, Hashable {
        /// Protects our packets (any SSRC we send).
        case outbound
        /// Unprotects the peer's packets.
        case inbound
    }

    /// libsrtp keeps global state that must be set up once per process; a static `let` runs this exactly once.
    private static let initialized: srtp_err_status_t = srtp_init()

    /// libsrtp's replay window: a NACKed packet sent again must be allowed through (`allow_repeat_tx`), and the
    /// receiver's window must cover reordering (RFC 3711 §3.3.2: at least 64).
    static let replayWindow: UInt = 1024

    private let session: srtp_t
    private var scratch: [UInt8] = []

    /// Creates a session.
    /// - Parameters:
    ///   - masterKey: the 16-byte master key followed by the 14-byte master salt.
    ///   - direction: outbound or inbound.
    /// - Throws: ``SRTPError`` when libsrtp refuses the key.
    public init(masterKey: [UInt8], direction: Direction) throws(SRTPError) {
        guard Self.initialized == srtp_err_status_ok else {
            // libsrtp2 is loaded at the first use (CSRTP): say so if it cannot be.
            if let reason = stream_srtp_load_error() {
                throw SRTPError(.setup, "cannot load the SRTP library (libsrtp2): \(String(cString: reason))")
            }
            throw SRTPError(.setup, "libsrtp failed to initialise (status \(Self.initialized.rawValue))")
        }
        guard masterKey.count == 30 else {
            throw SRTPError(.setup, "an AES-128 SRTP master key and salt are 30 bytes, not \(masterKey.count)")
        }
        var key = masterKey
        var policy = srtp_policy_t()
        srtp_crypto_policy_set_rtp_default(&policy.rtp)
        srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = Self.replayWindow
        policy.allow_repeat_tx = 1
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        for index in key.indices { key[index] = 0 }
        guard status == srtp_err_status_ok, let created else {
            throw SRTPError(.setup, "libsrtp refused the SRTP key (status \(status.rawValue))")
        }
        session = created
    }

    deinit {
        srtp_dealloc(session)
    }

    /// Encrypts and authenticates an RTP packet.
    /// - Throws: ``SRTPError`` for a malformed packet.
    public func protect(rtp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try run(packet, grow: true, "protect an RTP packet") { srtp_protect(session, $0, $1) }
    }

    /// Encrypts and authenticates an RTCP compound packet.
    /// - Throws: ``SRTPError`` for a malformed packet.
    public func protect(rtcp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try run(packet, grow: true, "protect an RTCP packet") { srtp_protect_rtcp(session, $0, $1) }
    }

    /// Checks and decrypts an SRTP packet.
    /// - Throws: ``SRTPError`` when authentication fails, it is a replay, or it is malformed.
    public func unprotect(rtp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try run(packet, grow: false, "unprotect an SRTP packet") { srtp_unprotect(session, $0, $1) }
    }

    /// Checks and decrypts an SRTCP packet.
    /// - Throws: ``SRTPError`` when authentication fails, it is a replay, or it is malformed.
    public func unprotect(rtcp packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try run(packet, grow: false, "unprotect an SRTCP packet") { srtp_unprotect_rtcp(session, $0, $1) }
    }

    private func run(_ packet: [UInt8], grow: Bool, _ what: String,
                     _ body: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t)
        throws(SRTPError) -> [UInt8] {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: packet)
        // srtp_protect may write SRTP_MAX_TRAILER_LEN bytes past the packet (libsrtp's srtp.h).
        if grow { scratch.append(contentsOf: repeatElement(0, count: Int(SRTP_MAX_TRAILER_LEN))) }
        var length = Int32(packet.count)
        let status = scratch.withUnsafeMutableBytes { body($0.baseAddress!, &length) }
        guard status == srtp_err_status_ok else {
            throw SRTPError(Self.code(of: status), "cannot \(what): " + Self.describe(status))
        }
        return Array(scratch.prefix(Int(length)))
    }

    private static func code(of status: srtp_err_status_t) -> SRTPError.Code {
        switch status {
        case srtp_err_status_auth_fail: .authentication
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: .replay
        default: .packet
        }
    }

    private static func describe(_ status: srtp_err_status_t) -> String {
        switch status {
        case srtp_err_status_auth_fail: "authentication failed (wrong key, or the packet was altered)"
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: "a replayed or too old packet"
        case srtp_err_status_bad_param: "a malformed packet"
        default: "libsrtp status \(status.rawValue)"
        }
    }
}
#endif
