import ByteIO
import SDP

/// A local or remote ICE candidate (RFC 8445 §5.1): a transport address, its type and its priority.
public struct ICECandidate: Sendable, Hashable {
    /// Candidate types: the one enum SDP's `a=candidate` lines name (`typ host`, `srflx`, `prflx`, `relay`).
    public typealias Kind = SDPCandidate.Kind

    /// The candidate's type.
    public var kind: Kind
    /// Where packets go to or come from.
    public var address: TransportAddress
    /// For a reflexive candidate, the host address it was learned through.
    public var base: TransportAddress?
    /// RFC 8445 §5.1.2 priority.
    public var priority: UInt32
    /// Equal for candidates of the same type, base and server (RFC 8445 §5.1.1.3).
    public var foundation: String

    /// Creates a candidate.
    public init(kind: Kind, address: TransportAddress, base: TransportAddress? = nil, priority: UInt32,
                foundation: String) {
        self.kind = kind
        self.address = address
        self.base = base
        self.priority = priority
        self.foundation = foundation
    }

    /// RFC 8445 §5.1.2.1: `2^24 * type preference + 2^8 * local preference + (256 - component id)`.
    /// - Parameters:
    ///   - kind: the candidate type.
    ///   - localPreference: 0...65535, higher for preferred interfaces (IPv4 over IPv6 here, as browsers do not).
    ///   - component: 1 for RTP.
    public static func priority(kind: Kind, localPreference: UInt16, component: UInt32 = 1) -> UInt32 {
        (kind.typePreference << 24) + (UInt32(localPreference) << 8) + (256 - component)
    }

    /// RFC 8445 §6.1.2.3: pair priority `2^32 * MIN(G, D) + 2 * MAX(G, D) + (G > D ? 1 : 0)`.
    /// - Parameters:
    ///   - controlling: the controlling agent's candidate priority (G).
    ///   - controlled: the controlled agent's (D).
    public static func pairPriority(controlling: UInt32, controlled: UInt32) -> UInt64 {
        (UInt64(min(controlling, controlled)) << 32) + 2 * UInt64(max(controlling, controlled))
            + (controlling > controlled ? 1 : 0)
    }
}

extension SDPCandidate.Kind {
    /// RFC 8445 §5.1.2.2's recommended type preference.
    public var typePreference: UInt32 {
        switch self {
        case .host: 126
        case .peerReflexive: 110
        case .serverReflexive: 100
        case .relayed: 0
        }
    }
}
