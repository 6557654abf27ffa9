import ByteIO
import Digest

/// The webhook queue as its append-only file holds it (docs/webhooks.md): what is still to deliver, in order, and
/// the bytes that record each change.
///
/// The file is a sequence of lines. `Q <check> <body>` queues an event, its body one line of JSON whose `"id"` names
/// it, `<check>` the first 4 bytes of SHA-256 of the body in hex; `D <id>` says that event is done (delivered, given
/// up or dropped). A record counts once its whole line, newline included, is on disk: a SIGKILL or a power cut during
/// a write leaves a torn last line, which ``recover(_:)`` leaves out (and the driver cuts off).
///
/// The queue holds at most ``capacity`` events: queuing one more drops the oldest, which the caller counts and logs.
struct WebhookJournal {
    /// One event waiting to be delivered.
    struct Entry: Equatable {
        /// The event's `"id"`.
        var id: String
        /// The JSON body, one line.
        var body: [UInt8]
    }

    /// What reading a file found.
    struct Recovery: Equatable {
        /// The events queued and not done, oldest first (at most ``capacity``; older ones were dropped).
        var pending: [Entry]
        /// The bytes up to the end of the last whole record: the file is cut to this length.
        var validLength: Int
        /// Records left out because they were torn or did not check (the bytes after ``validLength``).
        var discardedBytes: Int
        /// Queued events left out because more than ``capacity`` were pending.
        var overflowed: Int
    }

    /// The most events waiting: at about 300 bytes an event, 100 KB of file; an outage long enough to fill it with
    /// shows going live and ending is one where the backend has lost far more than webhooks.
    static let defaultCapacity = 1000
    /// The file is rewritten with only the pending events once it is this many times larger than they are.
    static let compactionRatio = 4

    /// The most events waiting; one more drops the oldest.
    let capacity: Int
    /// The events waiting, oldest first.
    private(set) var pending: [Entry]
    /// The file's length as the journal believes it, to decide when to compact.
    private(set) var fileLength: Int

    /// A journal of the events a file recovered.
    init(capacity: Int = defaultCapacity, recovered: Recovery) {
        precondition(capacity > 0, "a webhook queue holds at least one event")
        self.capacity = capacity
        pending = Array(recovered.pending.suffix(capacity))
        fileLength = recovered.validLength
    }

    /// Queues an event.
    /// - Returns: the bytes to append (and fsync before the event counts as queued), and the oldest event, dropped
    ///   when the queue was full.
    mutating func enqueue(_ entry: Entry) -> (append: [UInt8], dropped: Entry?) {
        precondition(!entry.body.contains(UInt8(ascii: "\n")), "a webhook body is one line")
        var bytes = Self.queueRecord(entry)
        var dropped: Entry?
        if pending.count >= capacity {
            let oldest = pending.removeFirst()
            bytes = Self.doneRecord(oldest.id) + bytes
            dropped = oldest
        }
        pending.append(entry)
        fileLength += bytes.count
        return (bytes, dropped)
    }

    /// Marks an event done (delivered, or given up after the last attempt).
    /// - Returns: the bytes to append, or nil when the event is not pending (dropped meanwhile).
    mutating func finish(_ id: String) -> [UInt8]? {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
        pending.remove(at: index)
        let bytes = Self.doneRecord(id)
        fileLength += bytes.count
        return bytes
    }

    /// Whether the file has grown enough past what it must hold to be rewritten.
    var needsCompaction: Bool {
        let live = pending.reduce(0) { $0 + $1.body.count + 16 }
        return fileLength > 64 * 1024 && fileLength > Self.compactionRatio * live
    }

    /// The whole contents of a compacted file: the pending events only. The caller writes them to a new file,
    /// fsyncs it and renames it over the old one, then calls ``compacted(length:)``.
    func compactedContents() -> [UInt8] {
        pending.flatMap(Self.queueRecord)
    }

    /// Records that the file was replaced by ``compactedContents()``.
    mutating func compacted(length: Int) {
        fileLength = length
    }

    /// Reads a journal file: the pending events, and where its last whole record ends.
    static func recover(_ bytes: [UInt8], capacity: Int = defaultCapacity) -> Recovery {
        var pending: [Entry] = []
        var position = 0
        var overflowed = 0
        while position < bytes.count {
            guard let newline = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else { break }
            let line = bytes[position..<newline]
            if let entry = parseQueued(line) {
                pending.append(entry)
            } else if let id = parseDone(line) {
                pending.removeAll { $0.id == id }
            } else {
                break
            }
            position = newline + 1
        }
        if pending.count > capacity {
            overflowed = pending.count - capacity
            pending.removeFirst(overflowed)
        }
        return Recovery(pending: pending, validLength: position, discardedBytes: bytes.count - position,
                        overflowed: overflowed)
    }

    /// The event id a body names: its `"id"` member (our own bodies start with it).
    static func id(ofBody body: [UInt8]) -> String? {
        let prefix = Array(#"{"id":""#.utf8)
        guard body.starts(with: prefix) else { return nil }
        let rest = body[prefix.count...]
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: rest[..<end], as: UTF8.self)
    }

    /// The event type a body names: its `"type"` member, for log lines.
    static func type(ofBody body: [UInt8]) -> String? {
        let marker = Array(#","type":""#.utf8)
        guard let start = body.firstRange(of: marker)?.upperBound,
              let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }

    static func queueRecord(_ entry: Entry) -> [UInt8] {
        Array("Q ".utf8) + Array(check(entry.body).utf8) + [UInt8(ascii: " ")] + entry.body + [UInt8(ascii: "\n")]
    }

    static func doneRecord(_ id: String) -> [UInt8] {
        Array("D \(id)\n".utf8)
    }

    private static func check(_ body: some Collection<UInt8>) -> String {
        Hex.encode(SHA256.hash(body).prefix(4))
    }

    private static func parseQueued(_ line: ArraySlice<UInt8>) -> Entry? {
        // "Q " + 8 hex digits + " " + body
        guard line.count > 11, line.starts(with: Array("Q ".utf8)),
              line[line.startIndex + 10] == UInt8(ascii: " ") else { return nil }
        let checkText = String(decoding: line[(line.startIndex + 2)..<(line.startIndex + 10)], as: UTF8.self)
        let body = Array(line[(line.startIndex + 11)...])
        guard check(body) == checkText, let id = id(ofBody: body) else { return nil }
        return Entry(id: id, body: body)
    }

    /// An id is what the server makes (`evt_` and 32 hex digits) or a test's: ASCII letters, digits, `_` and `-`.
    private static func parseDone(_ line: ArraySlice<UInt8>) -> String? {
        guard line.count > 2, line.starts(with: Array("D ".utf8)) else { return nil }
        let id = line.dropFirst(2)
        let allowed = id.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed ? String(decoding: id, as: UTF8.self) : nil
    }
}
