import ByteIO

/// A full ICE agent (RFC 8445) for one component over one UDP socket, as a state machine without I/O.
///
/// It gathers (a server-reflexive candidate when a STUN server is configured), runs connectivity checks against the
/// peer's candidates as the controlling agent, nominates the first pair that works (regular nomination, §8.1.1),
/// answers the peer's checks, and keeps checking consent on the selected pair (RFC 7675) so a dead path is noticed.
/// Time comes in as `now` (a `Duration` since any fixed origin); datagrams and timer ticks come in, actions go out.
///
/// One socket bound to every interface serves every host candidate, so a pair is named by its remote address; the
/// kernel picks the source address. That is what a publisher needs; it is not a general-purpose agent (no TURN, no
/// TCP candidates, one component).
public struct ICEAgent: Sendable {
    /// Settings and timers.
    public struct Configuration: Sendable, Hashable {
        /// Our username fragment.
        public var localUfrag: String
        /// Our password.
        public var localPwd: String
        /// Our role tie-breaker (RFC 8445 §7.3.1.1): a random 64-bit number.
        public var tieBreaker: UInt64
        /// A STUN server for a server-reflexive candidate, if any.
        public var stunServer: TransportAddress?
        /// Ta: the pace of new checks (RFC 8445 §14.2; 50 ms is the recommended value).
        public var checkInterval: Duration
        /// The first retransmission timeout of a check (RFC 8445 §14.3: 250 ms for ICE in WebRTC-like uses).
        public var initialRTO: Duration
        /// Transmissions of one check before its pair fails (RFC 8489 §6.2.1's Rc).
        public var maxTransmissions: Int
        /// How long gathering waits for the STUN server.
        public var gatherTimeout: Duration
        /// How long checks may run before the agent gives up.
        public var connectTimeout: Duration
        /// How often consent is checked on the selected pair (RFC 7675 §5.1: 5 s, randomized ±20 %).
        public var consentInterval: Duration
        /// How long without a consent response before the path counts as dead (RFC 7675 §5.1: 30 s).
        public var consentTimeout: Duration
        /// How long the peer may send nothing at all (no consent answer, no check, nothing the driver reports with
        /// ``ICEAgent/heard(now:)``: RTCP, DTLS) before the path counts as dead: a path that died silently is
        /// noticed here, well before consent expires. Nil leaves it to consent alone.
        public var silenceTimeout: Duration?
        /// Once the peer has been silent for longer than ``consentInterval``, consent checks go this often, so that
        /// a path that merely lost a few packets answers (and counts as alive) before ``silenceTimeout``.
        public var suspectCheckInterval: Duration

        /// Creates a configuration with the RFCs' recommended timers.
        public init(localUfrag: String, localPwd: String, tieBreaker: UInt64, stunServer: TransportAddress? = nil,
                    checkInterval: Duration = .milliseconds(50), initialRTO: Duration = .milliseconds(250),
                    maxTransmissions: Int = 7, gatherTimeout: Duration = .seconds(2),
                    connectTimeout: Duration = .seconds(15), consentInterval: Duration = .seconds(5),
                    consentTimeout: Duration = .seconds(30), silenceTimeout: Duration? = .seconds(10),
                    suspectCheckInterval: Duration = .milliseconds(500)) {
            self.localUfrag = localUfrag
            self.localPwd = localPwd
            self.tieBreaker = tieBreaker
            self.stunServer = stunServer
            self.checkInterval = checkInterval
            self.initialRTO = initialRTO
            self.maxTransmissions = max(1, maxTransmissions)
            self.gatherTimeout = gatherTimeout
            self.connectTimeout = connectTimeout
            self.consentInterval = consentInterval
            self.consentTimeout = consentTimeout
            self.silenceTimeout = silenceTimeout
            self.suspectCheckInterval = suspectCheckInterval
        }
    }

    /// What the driver does next.
    public enum Action: Sendable, Hashable {
        /// Send this datagram.
        case send([UInt8], to: TransportAddress)
        /// Gathering is over: these are our candidates for the offer.
        case gathered([ICECandidate])
        /// A pair was nominated: media goes to this address from now on.
        case connected(TransportAddress)
        /// No pair works, or consent was lost on the selected one: the reason, for people.
        case failed(String)
    }

    /// The agent's phase, for status and tests.
    public enum Phase: Sendable, Hashable {
        /// Waiting for the STUN server's answer.
        case gathering
        /// Candidates known; waiting for the peer's.
        case gathered
        /// Checks under way.
        case checking
        /// A pair is selected and consent holds.
        case connected
        /// Nothing works any more.
        case failed
    }

    private enum PairState: Sendable, Hashable {
        case waiting, inProgress, succeeded, failed
    }

    private struct Pair: Sendable {
        var remote: ICECandidate
        var state: PairState = .waiting
        /// The peer asked for this pair with USE-CANDIDATE (we are controlled) or we nominated it.
        var nominatedByPeer = false
    }

    private enum Purpose: Sendable, Hashable {
        case serverReflexive
        case check(remote: TransportAddress, nominating: Bool)
        case consent
    }

    private struct Transaction: Sendable {
        var purpose: Purpose
        var bytes: [UInt8]
        var destination: TransportAddress
        var nextSend: Duration
        var rto: Duration
        var transmissions: Int
        /// Consent checks are not retransmitted (RFC 7675 §5.1).
        var retransmits: Bool
    }

    private struct Gathering: Sendable {
        var deadline: Duration
    }

    private struct Checking: Sendable {
        var remoteUfrag: String
        var remotePwd: [UInt8]
        var pairs: [Pair]
        /// Pairs to check before the ordinary order (RFC 8445 §7.3.1.4).
        var triggered: [TransportAddress] = []
        var nextCheck: Duration
        var deadline: Duration
        var nominating: TransportAddress?
    }

    private struct Connected: Sendable {
        var remoteUfrag: String
        var remotePwd: [UInt8]
        var selected: TransportAddress
        var lastConsent: Duration
        var nextConsent: Duration
        /// The last time anything authenticated came from the peer.
        var lastHeard: Duration
        /// When the last consent check went out.
        var lastConsentSent: Duration
    }

    private enum State: Sendable {
        case gathering(Gathering)
        case gathered
        case checking(Checking)
        case connected(Connected)
        /// Failed; with when the peer was last heard on the selected path, when one was selected.
        case failed(lastHeard: Duration?)
    }

    /// The configuration.
    public let configuration: Configuration
    /// Our candidates (hosts, then the server-reflexive one once learned).
    public private(set) var localCandidates: [ICECandidate]
    /// Whether we are the controlling agent (we start so; a role conflict may change it, RFC 8445 §7.3.1.1).
    public private(set) var isControlling = true
    private var state: State = .gathered
    private var transactions: [[UInt8]: Transaction] = [:]
    /// Peers' checks that arrived before their credentials did (the answer may come after the first check).
    private var earlyPeers: [TransportAddress: UInt32] = [:]
    private var random = SystemRandomNumberGenerator()

    /// Creates an agent with host candidates for the given addresses (our socket's port on each interface).
    /// - Parameters:
    ///   - configuration: credentials and timers.
    ///   - hostAddresses: local interface addresses with the socket's port; IPv4 first gets the higher preference.
    public init(configuration: Configuration, hostAddresses: [TransportAddress]) {
        self.configuration = configuration
        localCandidates = hostAddresses.enumerated().map { index, address in
            let preference = UInt16(clamping: 65535 - (address.isIPv6 ? 1024 : 0) - index * 8)
            return ICECandidate(kind: .host, address: address,
                                priority: ICECandidate.priority(kind: .host, localPreference: preference),
                                foundation: String(index + 1))
        }
    }

    /// The phase.
    public var phase: Phase {
        switch state {
        case .gathering: .gathering
        case .gathered: .gathered
        case .checking: .checking
        case .connected: .connected
        case .failed: .failed
        }
    }

    /// The selected remote address once connected.
    public var selectedAddress: TransportAddress? {
        if case .connected(let connected) = state { return connected.selected }
        return nil
    }

    /// Starts gathering: asks the STUN server, if configured, for our outside address.
    /// - Parameter now: the current time.
    /// - Returns: a request to the server, or `.gathered` at once when there is no server.
    public mutating func startGathering(now: Duration) -> [Action] {
        guard let server = configuration.stunServer else { return [.gathered(localCandidates)] }
        let request = STUNMessage(class: .request, transactionID: newTransactionID())
        state = .gathering(Gathering(deadline: now + configuration.gatherTimeout))
        return [send(request.encoded(fingerprint: true), to: server, purpose: .serverReflexive, now: now,
                     retransmits: true, transactionID: request.transactionID)]
    }

    /// Starts connectivity checks against the peer's candidates.
    /// - Parameters:
    ///   - remoteUfrag: the peer's username fragment.
    ///   - remotePwd: the peer's password.
    ///   - remoteCandidates: the peer's candidates (UDP, component 1).
    ///   - now: the current time.
    /// - Returns: the first check.
    public mutating func start(remoteUfrag: String, remotePwd: String, remoteCandidates: [ICECandidate],
                               now: Duration) -> [Action] {
        var pairs: [Pair] = []
        for candidate in remoteCandidates where localCandidate(for: candidate.address) != nil {
            if !pairs.contains(where: { $0.remote.address == candidate.address }) {
                pairs.append(Pair(remote: candidate))
            }
        }
        for (address, priority) in earlyPeers where !pairs.contains(where: { $0.remote.address == address }) {
            pairs.append(Pair(remote: ICECandidate(kind: .peerReflexive, address: address, priority: priority,
                                                   foundation: "prflx")))
        }
        earlyPeers.removeAll()
        guard !pairs.isEmpty else {
            state = .failed(lastHeard: nil)
            return [.failed("none of the peer's \(remoteCandidates.count) candidates has an address family this "
                + "host has an interface for")]
        }
        var checking = Checking(remoteUfrag: remoteUfrag, remotePwd: Array(remotePwd.utf8), pairs: pairs,
                                nextCheck: now, deadline: now + configuration.connectTimeout)
        sortPairs(&checking.pairs)
        state = .checking(checking)
        return tick(now: now)
    }

    /// When ``tick(now:)`` should next be called, or nil when nothing is pending.
    public var nextDeadline: Duration? {
        var deadlines = transactions.values.map(\.nextSend)
        switch state {
        case .gathering(let gathering): deadlines.append(gathering.deadline)
        case .gathered, .failed: break
        case .checking(let checking):
            deadlines.append(checking.deadline)
            if checking.pairs.contains(where: { $0.state == .waiting }) || !checking.triggered.isEmpty {
                deadlines.append(checking.nextCheck)
            }
        case .connected(let connected):
            deadlines.append(consentDue(connected))
            deadlines.append(connected.lastConsent + configuration.consentTimeout)
            if let silence = configuration.silenceTimeout { deadlines.append(connected.lastHeard + silence) }
        }
        return deadlines.min()
    }

    /// When the next consent check is due: every consent interval (±20 %), and once the peer has been silent for a
    /// whole interval (with a silence timeout set), every ``Configuration/suspectCheckInterval``.
    private func consentDue(_ connected: Connected) -> Duration {
        guard configuration.silenceTimeout != nil else { return connected.nextConsent }
        let suspectFrom = connected.lastHeard + configuration.consentInterval
        return min(connected.nextConsent,
                   max(suspectFrom, connected.lastConsentSent + configuration.suspectCheckInterval))
    }

    /// Runs timers: retransmissions, the next check, consent, and the gathering and connection deadlines.
    /// - Parameter now: the current time.
    /// - Returns: what to do.
    public mutating func tick(now: Duration) -> [Action] {
        var actions: [Action] = []
        actions += retransmit(now: now)
        switch state {
        case .gathering(let gathering):
            if now >= gathering.deadline {
                transactions = transactions.filter { $0.value.purpose != .serverReflexive }
                state = .gathered
                actions.append(.gathered(localCandidates))
            }
        case .gathered, .failed:
            break
        case .checking(var checking):
            if now >= checking.deadline {
                state = .failed(lastHeard: nil)
                transactions.removeAll()
                return actions + [.failed("no ICE candidate pair worked within "
                    + "\(configuration.connectTimeout) (\(checking.pairs.count) pairs checked); is UDP blocked?")]
            }
            if now >= checking.nextCheck, let address = nextPairToCheck(&checking) {
                checking.nextCheck = now + configuration.checkInterval
                let nominate = checking.nominating == address
                actions.append(sendCheck(to: address, nominating: nominate, checking: checking, now: now))
            }
            if checking.pairs.allSatisfy({ $0.state == .failed }) {
                state = .failed(lastHeard: nil)
                transactions.removeAll()
                return actions + [.failed("every ICE candidate pair failed its connectivity checks")]
            }
            state = .checking(checking)
        case .connected(var connected):
            if now - connected.lastConsent >= configuration.consentTimeout {
                state = .failed(lastHeard: connected.lastHeard)
                transactions.removeAll()
                return actions + [.failed("the peer stopped answering consent checks for "
                    + "\(configuration.consentTimeout) (RFC 7675): the path is gone")]
            }
            if let silence = configuration.silenceTimeout, now - connected.lastHeard >= silence {
                state = .failed(lastHeard: connected.lastHeard)
                transactions.removeAll()
                return actions + [.failed("the peer sent nothing for \(silence) (no consent answer, no RTCP): the "
                    + "path is gone")]
            }
            if now >= consentDue(connected) {
                let jitter = Double.random(in: 0.8...1.2, using: &random)
                connected.lastConsentSent = now
                connected.nextConsent = now + configuration.consentInterval * jitter
                let request = checkRequest(remoteUfrag: connected.remoteUfrag, nominating: false)
                actions.append(send(request.encoded(integrityKey: connected.remotePwd), to: connected.selected,
                                    purpose: .consent, now: now, retransmits: false,
                                    transactionID: request.transactionID))
            }
            state = .connected(connected)
        }
        return actions
    }

    /// Handles a STUN datagram that arrived on the socket.
    /// - Parameters:
    ///   - bytes: the datagram (check ``STUNMessage/looksLikeSTUN(_:)`` first).
    ///   - source: where it came from.
    ///   - now: the current time.
    /// - Returns: what to do; malformed or unauthenticated messages are dropped (RFC 8445 §7.3, RFC 8489 §6.3).
    public mutating func receive(_ bytes: [UInt8], from source: TransportAddress, now: Duration) -> [Action] {
        guard let message = try? STUNMessage(decoding: bytes), message.method == STUNMessage.bindingMethod,
              message.hasValidFingerprint != false else { return [] }
        switch message.messageClass {
        case .request: return handleRequest(message, from: source, now: now)
        case .success, .error: return handleResponse(message, from: source, now: now)
        case .indication: return []  // keepalives (RFC 8445 §11) need no answer
        }
    }

    // MARK: - Requests from the peer

    private mutating func handleRequest(_ request: STUNMessage, from source: TransportAddress,
                                        now: Duration) -> [Action] {
        let key = Array(configuration.localPwd.utf8)
        guard let username = request.username, username.hasPrefix(configuration.localUfrag + ":"),
              request.hasValidIntegrity(key: key) else { return [] }
        if case .checking(let checking) = state, username != configuration.localUfrag + ":" + checking.remoteUfrag {
            return []
        }
        var actions: [Action] = []
        // RFC 8445 §7.3.1.1: a role conflict is settled by the larger tie-breaker.
        if isControlling, let theirs = request.iceControlling {
            if configuration.tieBreaker >= theirs {
                let error = STUNMessage(class: .error, transactionID: request.transactionID,
                                        attributes: [.errorCode(487, reason: "Role Conflict")])
                return [.send(error.encoded(integrityKey: key), to: source)]
            }
            isControlling = false
        } else if !isControlling, let theirs = request.iceControlled, configuration.tieBreaker < theirs {
            let error = STUNMessage(class: .error, transactionID: request.transactionID,
                                    attributes: [.errorCode(487, reason: "Role Conflict")])
            return [.send(error.encoded(integrityKey: key), to: source)]
        }
        let response = STUNMessage(class: .success, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(source, transactionID: request.transactionID)])
        actions.append(.send(response.encoded(integrityKey: key), to: source))
        let priority = request.priority ?? ICECandidate.priority(kind: .peerReflexive, localPreference: 0)
        switch state {
        case .gathering, .gathered:
            earlyPeers[source] = priority
        case .checking(var checking):
            if let index = checking.pairs.firstIndex(where: { $0.remote.address == source }) {
                if request.useCandidate && !isControlling { checking.pairs[index].nominatedByPeer = true }
                if checking.pairs[index].state == .succeeded, checking.pairs[index].nominatedByPeer {
                    return actions + select(source, checking: checking, now: now)
                }
                if checking.pairs[index].state != .succeeded && !checking.triggered.contains(source) {
                    checking.triggered.append(source)
                    checking.pairs[index].state = .waiting
                }
            } else if localCandidate(for: source) != nil {
                var pair = Pair(remote: ICECandidate(kind: .peerReflexive, address: source, priority: priority,
                                                     foundation: "prflx"))
                pair.nominatedByPeer = request.useCandidate && !isControlling
                checking.pairs.append(pair)
                checking.triggered.append(source)
            }
            state = .checking(checking)
        case .connected(var connected):
            if source == connected.selected {
                connected.lastHeard = now
                state = .connected(connected)
            }
        case .failed:
            break
        }
        return actions
    }

    /// When anything authenticated last came from the peer on the selected path (kept after a failure, so the
    /// driver can say how long the path was silent before it was given up); nil before a pair is selected.
    public var lastHeardFromPeer: Duration? {
        switch state {
        case .connected(let connected): connected.lastHeard
        case .failed(let lastHeard): lastHeard
        case .gathering, .gathered, .checking: nil
        }
    }

    /// The driver got something authenticated from the peer on the selected path (SRTCP that decrypts, a DTLS
    /// record): the path is alive.
    /// - Parameter now: the current time.
    public mutating func heard(now: Duration) {
        guard case .connected(var connected) = state else { return }
        connected.lastHeard = max(connected.lastHeard, now)
        state = .connected(connected)
    }

    // MARK: - Responses to our requests

    private mutating func handleResponse(_ response: STUNMessage, from source: TransportAddress,
                                         now: Duration) -> [Action] {
        guard let transaction = transactions[response.transactionID] else { return [] }
        switch transaction.purpose {
        case .serverReflexive:
            transactions[response.transactionID] = nil
            guard case .gathering = state else { return [] }
            if response.messageClass == .success, let mapped = response.mappedAddress,
               let base = localCandidate(for: mapped)?.address,
               !localCandidates.contains(where: { $0.address == mapped }) {
                localCandidates.append(ICECandidate(
                    kind: .serverReflexive, address: mapped, base: base,
                    priority: ICECandidate.priority(kind: .serverReflexive, localPreference: 65535),
                    foundation: "srflx"))
            }
            state = .gathered
            return [.gathered(localCandidates)]
        case .consent:
            guard case .connected(var connected) = state else { return [] }
            let pwd = connected.remotePwd
            guard response.hasValidIntegrity(key: pwd) else { return [] }
            transactions[response.transactionID] = nil
            if response.messageClass == .success && source == transaction.destination {
                connected.lastConsent = now
                connected.lastHeard = now
                state = .connected(connected)
            }
            return []
        case .check(let remote, let nominating):
            guard case .checking(var checking) = state else {
                transactions[response.transactionID] = nil
                return []
            }
            guard response.hasValidIntegrity(key: checking.remotePwd) else { return [] }
            transactions[response.transactionID] = nil
            guard let index = checking.pairs.firstIndex(where: { $0.remote.address == remote }) else { return [] }
            if response.messageClass == .error {
                if response.errorCode?.code == 487 {
                    // RFC 8445 §7.2.5.1: switch roles and check the pair again.
                    isControlling.toggle()
                    checking.pairs[index].state = .waiting
                    checking.triggered.append(remote)
                } else {
                    checking.pairs[index].state = .failed
                }
                state = .checking(checking)
                return []
            }
            // RFC 8445 §7.2.5.2.1: the response must come from where the request went.
            guard source == transaction.destination else {
                checking.pairs[index].state = .failed
                state = .checking(checking)
                return []
            }
            checking.pairs[index].state = .succeeded
            if nominating || (!isControlling && checking.pairs[index].nominatedByPeer) {
                return select(remote, checking: checking, now: now)
            }
            var actions: [Action] = []
            if isControlling && checking.nominating == nil {
                checking.nominating = remote
                actions.append(sendCheck(to: remote, nominating: true, checking: checking, now: now))
            }
            state = .checking(checking)
            return actions
        }
    }

    // MARK: - Helpers

    private mutating func select(_ address: TransportAddress, checking: Checking, now: Duration) -> [Action] {
        transactions = transactions.filter {
            if case .check = $0.value.purpose { return false }
            return true
        }
        state = .connected(Connected(remoteUfrag: checking.remoteUfrag, remotePwd: checking.remotePwd,
                                     selected: address, lastConsent: now,
                                     nextConsent: now + configuration.consentInterval, lastHeard: now,
                                     lastConsentSent: now))
        return [.connected(address)]
    }

    private func nextPairToCheck(_ checking: inout Checking) -> TransportAddress? {
        while let address = checking.triggered.first {
            checking.triggered.removeFirst()
            if let index = checking.pairs.firstIndex(where: { $0.remote.address == address }),
               checking.pairs[index].state != .inProgress {
                checking.pairs[index].state = .inProgress
                return address
            }
        }
        guard let index = checking.pairs.firstIndex(where: { $0.state == .waiting }) else { return nil }
        checking.pairs[index].state = .inProgress
        return checking.pairs[index].remote.address
    }

    private mutating func sendCheck(to address: TransportAddress, nominating: Bool, checking: Checking,
                                    now: Duration) -> Action {
        let request = checkRequest(remoteUfrag: checking.remoteUfrag, nominating: nominating,
                                   local: localCandidate(for: address))
        return send(request.encoded(integrityKey: checking.remotePwd), to: address,
                    purpose: .check(remote: address, nominating: nominating), now: now, retransmits: true,
                    transactionID: request.transactionID)
    }

    /// RFC 8445 §7.1: USERNAME, PRIORITY (as a peer-reflexive candidate), the role, and USE-CANDIDATE to nominate.
    private mutating func checkRequest(remoteUfrag: String, nominating: Bool,
                                       local: ICECandidate? = nil) -> STUNMessage {
        let preference = UInt16(truncatingIfNeeded: (local?.priority ?? 0) >> 8)
        var attributes: [STUNAttribute] = [
            .username(remoteUfrag + ":" + configuration.localUfrag),
            .priority(ICECandidate.priority(kind: .peerReflexive, localPreference: preference)),
            isControlling ? .iceControlling(configuration.tieBreaker) : .iceControlled(configuration.tieBreaker),
        ]
        if nominating && isControlling { attributes.append(.useCandidate) }
        return STUNMessage(class: .request, transactionID: newTransactionID(), attributes: attributes)
    }

    private mutating func send(_ bytes: [UInt8], to destination: TransportAddress, purpose: Purpose, now: Duration,
                               retransmits: Bool, transactionID: [UInt8]) -> Action {
        // A check that is not resent waits for its answer as long as consent lasts: on a path with a long round
        // trip (satellite, a congested uplink) the answer comes after any retransmission timeout.
        let wait = retransmits ? configuration.initialRTO : configuration.consentTimeout
        transactions[transactionID] = Transaction(purpose: purpose, bytes: bytes, destination: destination,
                                                  nextSend: now + wait,
                                                  rto: configuration.initialRTO, transmissions: 1,
                                                  retransmits: retransmits)
        return .send(bytes, to: destination)
    }

    /// RFC 8489 §6.2.1: resend with a doubling timeout; after the last try the transaction fails.
    private mutating func retransmit(now: Duration) -> [Action] {
        var actions: [Action] = []
        for (id, var transaction) in transactions where now >= transaction.nextSend {
            if !transaction.retransmits || transaction.transmissions >= configuration.maxTransmissions {
                transactions[id] = nil
                if case .check(let remote, _) = transaction.purpose, case .checking(var checking) = state,
                   let index = checking.pairs.firstIndex(where: { $0.remote.address == remote }) {
                    checking.pairs[index].state = .failed
                    state = .checking(checking)
                }
                continue
            }
            transaction.transmissions += 1
            transaction.rto = min(transaction.rto * 2, .milliseconds(1600))
            transaction.nextSend = now + transaction.rto
            transactions[id] = transaction
            actions.append(.send(transaction.bytes, to: transaction.destination))
        }
        return actions
    }

    private func localCandidate(for remote: TransportAddress) -> ICECandidate? {
        localCandidates.first { $0.kind == .host && $0.address.isIPv6 == remote.isIPv6 }
    }

    private func sortPairs(_ pairs: inout [Pair]) {
        let controlling = isControlling
        pairs.sort { lhs, rhs in
            func priority(_ pair: Pair) -> UInt64 {
                let local = localCandidate(for: pair.remote.address)?.priority ?? 0
                return controlling
                    ? ICECandidate.pairPriority(controlling: local, controlled: pair.remote.priority)
                    : ICECandidate.pairPriority(controlling: pair.remote.priority, controlled: local)
            }
            return priority(lhs) > priority(rhs)
        }
    }

    private mutating func newTransactionID() -> [UInt8] {
        (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
}
