/// An ICE candidate as written in SDP (RFC 8839 §5.1):
/// `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> [raddr <a> rport <p>] ...`.
public struct SDPCandidate: Sendable, Hashable {
    /// Candidate types (RFC 8445 §5.1.1).
    public enum Kind: String, Sendable, Hashable {
        /// An address of a local interface.
        case host
        /// The address a STUN server saw (the NAT's outside address).
        case serverReflexive = "srflx"
        /// Learned from a peer's connectivity check.
        case peerReflexive = "prflx"
        /// An address on a TURN relay.
        case relayed = "relay"
    }

    /// Groups candidates of the same type, base and STUN server (RFC 8445 §5.1.1.3).
    public var foundation: String
    /// 1 for RTP (the only component with rtcp-mux).
    public var component: Int
    /// `udp` (TCP candidates are parsed but never used by this publisher).
    public var transport: String
    /// RFC 8445 §5.1.2 priority.
    public var priority: UInt32
    /// A numeric IPv4 or IPv6 address (or an mDNS `.local` name, which this publisher cannot resolve).
    public var address: String
    /// The UDP port.
    public var port: Int
    /// The candidate's type.
    public var kind: Kind
    /// For reflexive and relayed candidates: the base's address and port.
    public var related: (address: String, port: Int)? {
        get { relatedAddress.map { ($0, relatedPort ?? 0) } }
        set {
            relatedAddress = newValue?.address
            relatedPort = newValue?.port
        }
    }

    private var relatedAddress: String?
    private var relatedPort: Int?

    /// Creates a candidate.
    public init(foundation: String, component: Int = 1, transport: String = "udp", priority: UInt32,
                address: String, port: Int, kind: Kind, related: (address: String, port: Int)? = nil) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = related?.address
        self.relatedPort = related?.port
    }

    /// Parses the value of an `a=candidate:` attribute (without `candidate:`).
    /// - Throws: ``SDPError`` `.malformed` naming what is wrong.
    public init(parsing value: String) throws(SDPError) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        func fail(_ why: String) -> SDPError {
            SDPError(.malformed, "candidate \"\(value.prefix(80))\": \(why)")
        }
        guard fields.count >= 8 else { throw fail("fewer than the 8 fields of RFC 8839 §5.1") }
        guard let component = Int(fields[1]), (1...256).contains(component) else {
            throw fail("component \"\(fields[1])\" is not a number from 1 to 256")
        }
        guard let priority = UInt32(fields[3]) else { throw fail("priority \"\(fields[3])\" is not a 32-bit number") }
        guard let port = Int(fields[5]), (0...65535).contains(port) else {
            throw fail("port \"\(fields[5])\" is not a number from 0 to 65535")
        }
        guard fields[6] == "typ", let kind = Kind(rawValue: fields[7]) else {
            throw fail("expected \"typ host|srflx|prflx|relay\"")
        }
        guard !fields[0].isEmpty, fields[0].count <= 32 else { throw fail("the foundation must be 1 to 32 characters") }
        self.init(foundation: fields[0], component: component, transport: fields[2].lowercased(), priority: priority,
                  address: fields[4], port: port, kind: kind)
        var index = 8
        while index + 1 < fields.count {
            switch fields[index] {
            case "raddr": relatedAddress = fields[index + 1]
            case "rport": relatedPort = Int(fields[index + 1])
            default: break  // extensions (generation, network-id, ufrag, ...) are ignored (RFC 8839 §5.1)
            }
            index += 2
        }
    }

    /// The attribute value, without the leading `candidate:`.
    public var attributeValue: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(kind.rawValue)"
        if let relatedAddress { text += " raddr \(relatedAddress) rport \(relatedPort ?? 0)" }
        return text
    }
}
