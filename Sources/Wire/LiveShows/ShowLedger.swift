import LiveProtocol

/// What every ``ShowStore`` must do with writes, as a pure value held in memory: the reference the SQLite store is
/// tested against, and the store of the show tests.
///
/// Per show: the chat sequence number (raised by each message, deletion and clear), the messages with a deleted
/// mark, the pinned message, slow mode, bans, timeouts, the OBS key and the media record.
public struct ShowLedger: Sendable {
    struct Book: Sendable {
        var seq: Int64 = 0
        var messages: [ChatMessage] = []
        var deleted: Set<Int64> = []
        var pinned: Int64?
        var slow = 0
        var bans: Set<UserID> = []
        var timeouts: [UserID: Int64] = [:]
        var ingestKey: IngestKeyRecord?
        var media = MediaRecord()
    }

    /// The epoch records carry.
    public let epoch: String
    private var books: [String: Book] = [:]

    /// Creates an empty ledger.
    public init(epoch: String) {
        self.epoch = epoch
    }

    /// What a store's `load` returns.
    public func load(_ name: String, historyLimit: Int, now: Int64) -> ShowRecord {
        let book = books[name] ?? Book()
        let live = book.messages.filter { !book.deleted.contains($0.id) }
        return ShowRecord(epoch: epoch, seq: book.seq, history: Array(live.suffix(historyLimit)),
                          pinned: book.pinned.flatMap { id in book.messages.first { $0.id == id } }, slow: book.slow,
                          bans: book.bans, timeouts: book.timeouts.filter { $0.value > now },
                          ingestKey: book.ingestKey, media: book.media)
    }

    /// What a store's `commit` does with one write.
    public mutating func commit(_ name: String, _ write: StoreWrite) -> Result<StoreFact, StoreError> {
        var book = books[name] ?? Book()
        defer { books[name] = book }
        switch write {
        case .message(let draft):
            book.seq += 1
            let message = draft.committed(id: book.seq)
            book.messages.append(message)
            return .success(.message(message))
        case .deleteMessage(let id):
            guard book.messages.contains(where: { $0.id == id }), !book.deleted.contains(id) else {
                return .failure(StoreError(.notFound, "no message \(id)"))
            }
            book.seq += 1
            book.deleted.insert(id)
            if book.pinned == id { book.pinned = nil }
            return .success(.deleted(id: id, seq: book.seq))
        case .clearChat:
            book.seq += 1
            for message in book.messages { book.deleted.insert(message.id) }
            book.pinned = nil
            return .success(.cleared(seq: book.seq))
        case .pin(let id):
            guard let id else {
                book.pinned = nil
                return .success(.pinned(nil))
            }
            guard let message = book.messages.first(where: { $0.id == id }), !book.deleted.contains(id) else {
                return .failure(StoreError(.notFound, "no message \(id)"))
            }
            book.pinned = id
            return .success(.pinned(message))
        case .slow(let seconds):
            book.slow = seconds
            return .success(.slow(seconds))
        case .ban(let user):
            book.bans.insert(UserID(user))
            return .success(.banned(user: user))
        case .unban(let user):
            book.bans.remove(UserID(user))
            return .success(.unbanned(user: user))
        case .timeout(let user, let until):
            book.timeouts[UserID(user)] = until
            return .success(.timedOut(user: user, until: until))
        case .kick(let user):
            return .success(.kicked(user: user))
        case .reaction(let reaction):
            return .success(.reaction(reaction))
        case .ingestKey(let record):
            book.ingestKey = record
            return .success(.ingestKey(record))
        case .tileStarted, .tileStopped, .end, .reopen, .setMain:
            if let next = book.media.applying(write) { book.media = next }
            return .success(.media(book.media))
        }
    }

    /// What a store's `ingestKeyOwners` returns.
    public func ingestKeyOwners() -> [IngestKeyOwner] {
        books.compactMap { name, book in
            book.ingestKey.map {
                IngestKeyOwner(show: name, key: $0, generation: book.media.generation, ended: book.media.ended)
            }
        }.sorted { $0.show < $1.show }
    }

    /// What a store does when it opens after the process stopped: no publisher is connected any more.
    public mutating func restart() {
        for name in books.keys { books[name]?.media.tiles = [] }
    }
}
