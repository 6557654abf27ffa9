import ByteIO

/// Which session each datagram on one shared UDP port belongs to: a bounded table the server's driver consults,
/// without I/O.
///
/// The first byte tells STUN, DTLS and SRTP/SRTCP apart (``DatagramKind``, RFC 7983). A STUN Binding request is
/// routed by the local ufrag in its USERNAME (`local:remote`, RFC 8445 §7.2.2), since the peer's first check comes
/// from an address nobody has seen yet; once that session's ``ICELiteResponder`` has answered the check, the driver
/// binds the source address to the session with ``bind(_:to:)``. Everything else (DTLS, SRTP, SRTCP, other STUN)
/// is routed by source address alone: an address no check has proved belongs to nobody, and its datagrams are
/// dropped and counted in ``drops``.
///
/// Bounds: at most ``maximumSessions`` sessions (``add(_:localUfrag:)`` refuses more, which the driver answers with
/// 503) and ``maximumAddressesPerSession`` addresses each (binding one more forgets the one proved longest ago). An
/// address belongs to one session; ``remove(_:)`` frees all of a session's addresses, as the driver does when the
/// session expires or closes.
public struct DatagramRoutes<Session: Hashable & Sendable>: Sendable {
    /// Default session bound: 1,000 sessions on one port is the target; four times that leaves headroom.
    public static var defaultMaximumSessions: Int { 4096 }
    /// Default addresses per session: a peer checks from each of its candidates (IPv4 and IPv6 on a couple of
    /// interfaces, server-reflexive and relayed ones), rarely more than a handful.
    public static var defaultMaximumAddressesPerSession: Int { 8 }

    /// Where a datagram goes.
    public enum Route: Sendable, Hashable {
        /// STUN for this session: its responder reads it.
        case stun(Session)
        /// DTLS for this session.
        case dtls(Session)
        /// SRTP for this session.
        case rtp(Session)
        /// SRTCP for this session.
        case rtcp(Session)
        /// Nobody's: dropped (and counted in ``drops``).
        case drop(Drop)
    }

    /// Why a datagram was dropped.
    public enum Drop: String, Sendable, Hashable, CaseIterable {
        /// The first byte is none of STUN, DTLS, RTP or RTCP (RFC 7983), or the datagram is empty.
        case notMultiplexed
        /// A Binding request whose USERNAME names no session's ufrag (a stale or guessed session).
        case unknownUfrag
        /// A Binding request without a readable USERNAME, from an address no session holds.
        case noUsername
        /// Not a Binding request, from an address no check has bound to a session.
        case unknownAddress
    }

    /// Whether ``add(_:localUfrag:)`` took the session.
    public enum Admission: Sendable, Hashable {
        /// Added.
        case added
        /// ``maximumSessions`` are open: refuse the session (HTTP 503 with Retry-After).
        case full
        /// Another session has this ufrag (draw another).
        case ufragInUse
        /// The session is already in the table.
        case duplicate
    }

    /// What ``bind(_:to:)`` did.
    public enum Binding: Sendable, Hashable {
        /// The address is new to the session.
        case bound
        /// The address was already the session's.
        case refreshed
        /// The address belonged to another session, which has lost it (its peer's port was reused, or the same
        /// socket serves two sessions): the latest proof wins.
        case moved(from: Session)
        /// The session was full: this address was forgotten to make room (the one proved longest ago). Reported
        /// in place of ``moved(from:)`` when both happen at once.
        case evicted(TransportAddress)
        /// No such session (it was removed).
        case unknownSession
    }

    private struct Entry: Sendable {
        var ufrag: String
        /// Each address with the sequence number of its last proof, to evict the stalest.
        var addresses: [TransportAddress: UInt64] = [:]
    }

    /// The session bound.
    public let maximumSessions: Int
    /// The address bound per session.
    public let maximumAddressesPerSession: Int
    /// Datagrams dropped, by reason.
    public private(set) var drops: [Drop: Int] = [:]
    private var sessions: [Session: Entry] = [:]
    private var byUfrag: [String: Session] = [:]
    private var byAddress: [TransportAddress: Session] = [:]
    private var proofs: UInt64 = 0

    /// Creates an empty table.
    /// - Parameters:
    ///   - maximumSessions: at least 1.
    ///   - maximumAddressesPerSession: at least 1.
    public init(maximumSessions: Int = defaultMaximumSessions,
                maximumAddressesPerSession: Int = defaultMaximumAddressesPerSession) {
        self.maximumSessions = max(1, maximumSessions)
        self.maximumAddressesPerSession = max(1, maximumAddressesPerSession)
    }

    /// Sessions in the table.
    public var sessionCount: Int { sessions.count }
    /// Addresses bound, over all sessions.
    public var addressCount: Int { byAddress.count }

    /// Adds a session when its SDP answer is made, before any check can arrive.
    /// - Parameters:
    ///   - session: the driver's id for it.
    ///   - localUfrag: our ufrag in its answer.
    /// - Returns: whether it was added.
    public mutating func add(_ session: Session, localUfrag: String) -> Admission {
        guard sessions[session] == nil else { return .duplicate }
        guard byUfrag[localUfrag] == nil else { return .ufragInUse }
        guard sessions.count < maximumSessions else { return .full }
        sessions[session] = Entry(ufrag: localUfrag)
        byUfrag[localUfrag] = session
        return .added
    }

    /// Removes a session and frees its ufrag and addresses (it expired or closed).
    /// - Returns: the addresses it held.
    @discardableResult
    public mutating func remove(_ session: Session) -> [TransportAddress] {
        guard let entry = sessions.removeValue(forKey: session) else { return [] }
        byUfrag[entry.ufrag] = nil
        for address in entry.addresses.keys { byAddress[address] = nil }
        return Array(entry.addresses.keys)
    }

    /// Binds an address to a session: call it when the session's responder answered a check from there.
    /// - Returns: what changed.
    @discardableResult
    public mutating func bind(_ address: TransportAddress, to session: Session) -> Binding {
        guard var entry = sessions[session] else { return .unknownSession }
        proofs += 1
        if entry.addresses[address] != nil {
            entry.addresses[address] = proofs
            sessions[session] = entry
            return .refreshed
        }
        var result = Binding.bound
        if let owner = byAddress[address] {
            sessions[owner]?.addresses[address] = nil
            result = .moved(from: owner)
        }
        if entry.addresses.count >= maximumAddressesPerSession,
           let stalest = entry.addresses.min(by: { $0.value < $1.value })?.key {
            entry.addresses[stalest] = nil
            byAddress[stalest] = nil
            result = .evicted(stalest)
        }
        entry.addresses[address] = proofs
        sessions[session] = entry
        byAddress[address] = session
        return result
    }

    /// The session an address is bound to.
    public func session(at address: TransportAddress) -> Session? {
        byAddress[address]
    }

    /// The session with this local ufrag.
    public func session(ufrag: String) -> Session? {
        byUfrag[ufrag]
    }

    /// A session's bound addresses, in no particular order.
    public func addresses(of session: Session) -> [TransportAddress] {
        sessions[session].map { Array($0.addresses.keys) } ?? []
    }

    /// Decides where a datagram goes.
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - source: where it came from.
    /// - Returns: its session and kind, or why it is dropped (also counted in ``drops``).
    public mutating func route(_ bytes: [UInt8], from source: TransportAddress) -> Route {
        guard let kind = DatagramKind(classifying: bytes) else { return drop(.notMultiplexed) }
        if kind == .stun, STUNMessage.isBindingRequest(bytes) {
            if let username = STUNMessage.peekUsername(bytes) {
                let ufrag = String(decoding: username.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)
                guard let session = byUfrag[ufrag] else { return drop(.unknownUfrag) }
                return .stun(session)
            }
            // No USERNAME: the bound session's responder answers 400 (RFC 8489 §9.1.3); nobody else can.
            guard let session = byAddress[source] else { return drop(.noUsername) }
            return .stun(session)
        }
        guard let session = byAddress[source] else { return drop(.unknownAddress) }
        switch kind {
        case .stun: return .stun(session)
        case .dtls: return .dtls(session)
        case .rtp: return .rtp(session)
        case .rtcp: return .rtcp(session)
        }
    }

    private mutating func drop(_ reason: Drop) -> Route {
        drops[reason, default: 0] += 1
        return .drop(reason)
    }
}
