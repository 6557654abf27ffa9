import LiveProtocol
import LiveShows

/// Drives one ``Show`` as a driver would, with a ``ShowLedger`` as its store: runs every effect, keeps what each
/// session received, and lets a test hold commits back to see what happens before them.
struct ShowHarness {
    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)
    static let credentials = IngestCredentials(keyDerivationKey: Array(secret.reversed()), grantKey: secret)
    static let ingestURL = "rtmp://127.0.0.1:1935/live"
    static let start: Int64 = 1_764_500_000_000

    var show: Show
    var ledger: ShowLedger
    var now: Int64 = start
    /// Every message each session received, in order.
    var inbox: [SessionID: [ServerMessage]] = [:]
    /// Sessions joined and not closed: broadcasts go to them.
    var members: Set<SessionID> = []
    var closed: [SessionID] = []
    var cuts: [String?] = []
    /// Users whose media tokens a ban revoked, in order.
    var revokedMedia: [String] = []
    var directory = IngestDirectory()
    /// When true, writes wait in ``held`` until ``releaseCommits()``.
    var holdCommits = false
    var held: [(CommitID, StoreWrite)] = []
    var writes: [StoreWrite] = []
    private var nextRequest: Int64 = 100
    private var entropy: UInt8 = 1

    init(name: String = "show:mugs", catalog: StreamCatalog = ShowHarness.seedCatalog(),
         configure: (inout ShowConfiguration) -> Void = { _ in }, ledger: ShowLedger = ShowLedger(epoch: "e1")) {
        var configuration = ShowConfiguration(ingestURL: Self.ingestURL, credentials: Self.credentials)
        configure(&configuration)
        let (declaration, parameters) = catalog.resolve(name)!
        self.ledger = ledger
        show = Show(name: name, declaration: declaration, parameters: parameters,
                    record: ledger.load(name, historyLimit: configuration.historyLimit, now: Self.start),
                    configuration: configuration)
        directory.update(name, show.ingestEntry)
    }

    /// The seed's declaration: Ann hosts every show, the show's id is its mod, everyone else watches and chats,
    /// visitors read, reactions on.
    static func seedCatalog(visitors: Role = .readOnly, reactions: Bool = true) -> StreamCatalog {
        var catalog = StreamCatalog()
        try! catalog.streams("show:{id}", role: { user, parameters in
            guard let user else { return visitors }
            if user == "ann" { return .host }
            if user == parameters["id"] || user == "max" { return .mod }
            if user == "rita" { return .readOnly }
            if user == "nobody" { return .none }
            return .viewer
        }, options: StreamOptions(reactions: reactions))
        return catalog
    }

    mutating func run(_ effects: [ShowEffect]) {
        for effect in effects {
            switch effect {
            case .send(let session, let message):
                inbox[session, default: []].append(message)
                if case .reply(_, .success(.welcome)) = message { members.insert(session) }
            case .broadcast(let message):
                for member in members { inbox[member, default: []].append(message) }
            case .close(let session):
                members.remove(session)
                closed.append(session)
            case .persist(let commit, let write):
                writes.append(write)
                if holdCommits {
                    held.append((commit, write))
                } else {
                    let result = ledger.commit(show.name, write)
                    run(show.committed(commit, result, now: now))
                }
            case .ingestChanged(let entry):
                directory.update(show.name, entry)
            case .cutPublishers(let keyHash):
                cuts.append(keyHash)
            case .revokeMedia(let user):
                revokedMedia.append(user)
            }
        }
    }

    mutating func releaseCommits() {
        let waiting = held
        held = []
        holdCommits = false
        for (commit, write) in waiting {
            let result = ledger.commit(show.name, write)
            run(show.committed(commit, result, now: now))
        }
    }

    /// Joins a session; returns its reply.
    @discardableResult
    mutating func join(_ session: UInt64, _ user: String?, name: String? = nil,
                       since: ChatPosition? = nil) -> Result<Reply, ShowError> {
        let id = SessionID(session)
        let participant = Participant(user: user, name: name ?? user ?? "visitor-\(session)")
        nextRequest += 1
        run(show.join(id, as: participant, requestID: nextRequest, since: since, now: now))
        return reply(id, nextRequest)
    }

    mutating func welcome(_ session: UInt64, _ user: String?, since: ChatPosition? = nil) -> Welcome {
        guard case .success(.welcome(let welcome)) = join(session, user, since: since) else {
            fatalError("session \(session) could not join")
        }
        return welcome
    }

    /// Sends a request; returns its reply (nil when the reply waits for a held commit).
    @discardableResult
    mutating func ask(_ session: UInt64, _ request: Request) -> Result<Reply, ShowError>? {
        let id = SessionID(session)
        nextRequest += 1
        entropy &+= 1
        run(show.handle(ClientRequest(id: nextRequest, request), from: id, now: now,
                        entropy: [UInt8](repeating: entropy, count: 16)))
        let requestID = nextRequest
        return inbox[id]?.lazy.compactMap { message -> Result<Reply, ShowError>? in
            if case .reply(let replyID, let result) = message, replyID == requestID { return result }
            return nil
        }.first
    }

    /// The error a request gets (nil when it succeeded).
    mutating func error(_ session: UInt64, _ request: Request) -> ShowError? {
        guard case .failure(let error) = ask(session, request) else { return nil }
        return error
    }

    private func reply(_ session: SessionID, _ requestID: Int64) -> Result<Reply, ShowError> {
        for message in inbox[session] ?? [] {
            if case .reply(let id, let result) = message, id == requestID { return result }
        }
        fatalError("no reply to \(requestID)")
    }

    /// The events a session received (replies left out), and forgets them.
    mutating func events(_ session: UInt64) -> [Event] {
        let id = SessionID(session)
        let received = inbox[id] ?? []
        inbox[id] = []
        return received.compactMap { message in
            if case .event(let event) = message { return event }
            return nil
        }
    }

    mutating func advance(milliseconds: Int64) {
        now += milliseconds
        run(show.tick(now: now))
    }

    mutating func tick() {
        run(show.tick(now: now))
    }
}
