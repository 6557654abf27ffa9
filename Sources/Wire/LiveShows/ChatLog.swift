import LiveProtocol

/// A show's chat as sessions see it: the last messages (oldest first), the deletions recently applied, and the
/// position from which a returning client can be brought up to date without sending everything again.
///
/// Facts arrive in the store's order, each with a chat sequence number above the last; a fact at or below the
/// current number was already applied and is ignored, so a fact delivered twice changes nothing.
struct ChatLog: Sendable {
    /// Deletions remembered for clients catching up; older ones make such clients start over.
    static let deletionMemory = 1000

    let epoch: String
    let historyLimit: Int
    private(set) var seq: Int64
    private var messages: [ChatMessage]
    private var head = 0
    private var deletions: [(seq: Int64, id: Int64)] = []
    /// A client whose position is at or after this is brought up to date by difference; before it, it starts over.
    private var recoverableFrom: Int64

    init(epoch: String, seq: Int64, history: [ChatMessage], historyLimit: Int) {
        self.epoch = epoch
        self.seq = seq
        self.historyLimit = historyLimit
        self.messages = Array(history.suffix(historyLimit))
        // Deletions before loading are unknown: clients from before then start over.
        self.recoverableFrom = seq
    }

    /// The history, oldest first.
    var history: ArraySlice<ChatMessage> { messages[head...] }

    /// A message still in the history.
    func message(_ id: Int64) -> ChatMessage? {
        var low = head
        var high = messages.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if messages[middle].id == id { return messages[middle] }
            if messages[middle].id < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// Applies a committed message. - Returns: false when it was already applied.
    mutating func append(_ message: ChatMessage) -> Bool {
        guard message.id > seq else { return false }
        seq = message.id
        messages.append(message)
        if messages.count - head > historyLimit {
            recoverableFrom = max(recoverableFrom, messages[head].id)
            head += 1
            if head > 1024 && head * 2 > messages.count {
                messages.removeFirst(head)
                head = 0
            }
        }
        return true
    }

    /// Applies a deletion. - Returns: false when it was already applied.
    mutating func delete(_ id: Int64, seq deletionSeq: Int64) -> Bool {
        guard deletionSeq > seq else { return false }
        seq = deletionSeq
        if let index = messages[head...].firstIndex(where: { $0.id == id }) {
            messages.remove(at: index)
        }
        deletions.append((deletionSeq, id))
        if deletions.count > Self.deletionMemory {
            recoverableFrom = max(recoverableFrom, deletions.removeFirst().seq)
        }
        return true
    }

    /// Applies a clear. - Returns: false when it was already applied.
    mutating func clear(seq clearSeq: Int64) -> Bool {
        guard clearSeq > seq else { return false }
        seq = clearSeq
        messages.removeAll()
        head = 0
        deletions.removeAll()
        recoverableFrom = clearSeq
        return true
    }

    /// What a joining client gets: the difference from its position when that is possible, else everything.
    func sync(since position: ChatPosition?) -> ChatSync {
        if let position, position.epoch == epoch, position.seq >= recoverableFrom, position.seq <= seq {
            return ChatSync(epoch: epoch, seq: seq, reset: false,
                            messages: history.filter { $0.id > position.seq },
                            deleted: deletions.filter { $0.seq > position.seq && $0.id <= position.seq }.map(\.id))
        }
        return ChatSync(epoch: epoch, seq: seq, reset: true, messages: Array(history), deleted: [])
    }
}
