#if canImport(Glibc)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import HTTP
import HTTPClient
import IngestServer
import JSON
import Locking
import ShowServer

/// `stream serve --webhook URL --webhook-secret-file FILE`: signed POSTs of what happened to shows, to the app's
/// backend (docs/webhooks.md).
///
/// An event counts as queued once its record is in `DATA_DIR/webhooks.queue` and fsynced, so a crash or a SIGKILL
/// loses none: the next start delivers what was left. Events go out one at a time, oldest first; one that fails is
/// tried again on ``WebhookBackoff``'s schedule, then given up (logged). The queue holds
/// ``WebhookJournal/defaultCapacity`` events and drops the oldest beyond (logged, counted). The secret and the URL's
/// path and query never reach the log.
final class ServeWebhooks: Sendable {
    static let options: [OptionSpec] = [
        .value("webhook", valueName: "URL",
               help: "POST shows' events, signed, to URL (docs/webhooks.md); needs --shows."),
        .value("webhook-secret-file", valueName: "FILE",
               help: "The secret webhooks are signed with (mode 0600, at least 16 bytes)."),
    ]
    /// The queue's file in the data directory.
    static let fileName = "webhooks.queue"
    /// The shortest secret accepted.
    static let minimumSecretLength = 16

    private struct State {
        var journal: WebhookJournal
        var descriptor: Int32
        var dropped = 0
        var delivered = 0
        var stopped = false
    }

    /// Where events go, and how the log shows it: scheme, host and port only (a path or query may hold a
    /// credential). Replaced when a reload of the config file changes `webhook`.
    private struct Target: Sendable {
        var url: String
        var shownURL: String
    }

    private let target: Locked<Target>
    /// The signing secret and its file: the secret is replaced when a reload re-reads the file (a rotation), the
    /// file when a reload of the config file names another.
    private let secret: Locked<(bytes: [UInt8], file: String)>
    private let path: String
    private let client: HTTPClient
    private let console: Console
    private let state: Locked<State>
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: Locked<AsyncStream<Void>?>
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Reads the options and opens the queue (delivery starts with ``start()``).
    /// - Returns: nil without `--webhook`.
    /// - Throws: `CLIError.usage` for a URL that is not http(s), a missing, short or non-private secret file, or
    ///   options without `--shows`; `CLIError.failure` when the queue file cannot be opened.
    static func make(_ arguments: ParsedArguments, dataDirectory: String?, console: Console) throws -> ServeWebhooks? {
        guard let url = arguments.value("webhook") else {
            if arguments.value("webhook-secret-file") != nil {
                throw CLIError.usage("--webhook-secret-file needs --webhook URL")
            }
            return nil
        }
        let target = try Self.target(url)
        guard let dataDirectory else { throw CLIError.usage("--webhook needs --shows FILE (webhooks tell of shows)") }
        guard let secretFile = arguments.value("webhook-secret-file") else {
            throw CLIError.usage("--webhook needs --webhook-secret-file FILE (make one with `openssl rand -hex 32 > "
                                    + "FILE; chmod 600 FILE`)")
        }
        let secret = try readSecret(secretFile)
        let client: HTTPClient
        do {
            client = try HTTPClient(options: HTTPClient.Options(connectTimeout: .seconds(5),
                                                                requestTimeout: .seconds(10),
                                                                maximumResponseBodySize: 64 * 1024))
        } catch {
            throw CLIError.failure("webhooks: \(error.description)")
        }
        return try ServeWebhooks(target: target, secret: secret, secretFile: secretFile, directory: dataDirectory,
                                 client: client, console: console)
    }

    /// A `--webhook` URL checked: http or https.
    private static func target(_ url: String) throws(CLIError) -> Target {
        guard let parsed = HTTPURL(url), parsed.scheme == "http" || parsed.scheme == "https" else {
            throw CLIError.usage("--webhook must be an http:// or https:// URL")
        }
        return Target(url: url, shownURL: "\(parsed.scheme)://\(parsed.hostField)")
    }

    /// The secret in `file`: private (0600), at least ``minimumSecretLength`` bytes once trimmed.
    /// - Throws: `CLIError.usage` saying what is wrong.
    private static func readSecret(_ file: String) throws(CLIError) -> [UInt8] {
        let contents = try TokenSecretFile.privateContents(file, flag: "--webhook-secret-file",
                                                          what: "a webhook secret")
        let secret = Array(String(decoding: contents, as: UTF8.self).trimmed.utf8)
        guard secret.count >= minimumSecretLength else {
            throw CLIError.usage("--webhook-secret-file: the secret is shorter than \(minimumSecretLength) bytes")
        }
        return secret
    }

    /// Re-reads the secret's file (a reload): deliveries from now on are signed with what it holds; a file that
    /// fails the checks is refused and the secret in force stays.
    /// - Returns: the log line.
    func reloadSecret() -> String {
        let file = secret.withLock { $0.file }
        do {
            let fresh = try Self.readSecret(file)
            let changed = secret.withLock { current in
                defer { current.bytes = fresh }
                return current.bytes != fresh
            }
            return "webhooks: reloaded \(file): "
                + (changed ? "a new secret signs what is sent from now on" : "the same secret")
        } catch {
            return "webhooks: reload refused: \(error.message); the secret in force stays"
        }
    }

    /// Takes a new URL and secret's file (a reload of the config file): both are checked before either applies, and
    /// every delivery from then on, retries of queued events included, goes to the new URL.
    /// - Returns: what changed, for the log line (empty when nothing did).
    /// - Throws: `CLIError.usage` as at start: a URL that is not http(s), a secret's file that fails the checks.
    func reconfigure(url: String, secretFile: String) throws(CLIError) -> [String] {
        let fresh = try Self.target(url)
        let (current, file) = (target.withLock { $0 }, secret.withLock { $0.file })
        let bytes = secretFile == file ? nil : try Self.readSecret(secretFile)
        var changes: [String] = []
        if fresh.url != current.url {
            target.withLock { $0 = fresh }
            changes.append("webhooks go to \(fresh.shownURL) from now on")
        }
        if let bytes {
            secret.withLock { $0 = (bytes, secretFile) }
            changes.append("webhooks are signed with the secret in \(secretFile)")
        }
        return changes
    }

    private init(target: Target, secret: [UInt8], secretFile: String, directory: String, client: HTTPClient,
                 console: Console) throws {
        self.target = Locked(target)
        self.secret = Locked((secret, secretFile))
        self.client = client
        self.console = console
        path = directory + "/" + Self.fileName
        mkdir(directory, 0o700)
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CLIError.failure("webhooks: cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let recovery = WebhookJournal.recover(Self.readAll(descriptor))
        if recovery.discardedBytes > 0 {
            // A torn last record: the write it was part of never counted, so cut it off before appending.
            _ = ftruncate(descriptor, off_t(recovery.validLength))
            _ = fsync(descriptor)
            console.print(ServeCommand.timestamp() + " webhooks: left out \(recovery.discardedBytes) bytes of a torn "
                            + "record at the end of \(path)")
        }
        if recovery.overflowed > 0 {
            console.print(ServeCommand.timestamp() + " webhooks: \(recovery.overflowed) queued events dropped, the "
                            + "oldest, to keep \(WebhookJournal.defaultCapacity)")
        }
        state = Locked(State(journal: WebhookJournal(recovered: recovery), descriptor: descriptor))
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wake = continuation
        wakes = Locked(stream)
        if !recovery.pending.isEmpty {
            let count = recovery.pending.count
            console.print(ServeCommand.timestamp() + " webhooks: \(count) event\(count == 1 ? "" : "s") queued before "
                            + "the last stop go to \(target.shownURL)")
        }
    }

    /// Receives the ingest's events (finished recordings) and, through `sink`, the shows' ones.
    func attach(to configuration: inout RTMPServer.Configuration, sink: Locked<ServeWebhooks?>) {
        let previous = configuration.onEvent
        configuration.onEvent = { [self] event in
            previous(event)
            report(event)
        }
        sink.withLock { $0 = self }
    }

    /// Starts delivering.
    func start() {
        guard let stream = wakes.withLock({ $0.take() }) else { return }
        console.print("Webhooks go to \(target.withLock { $0.shownURL }), queued in \(path)")
        wake.yield()
        task.withLock { $0 = Task.detached { [self] in await deliver(stream) } }
    }

    /// Stops delivering; what is queued stays on disk for the next start.
    ///
    /// It does not wait for a request under way (up to its 10 s timeout): that event is not marked done, so the next
    /// start sends it again, which a receiver deduplicating on `id` absorbs.
    func stop() async {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            close(state.descriptor)
        }
        wake.finish()
        task.withLock { $0.take() }?.cancel()
        await client.shutdown()
    }

    /// Queues the webhook of a show server's event, if it has one.
    func report(_ event: ShowServerEvent) {
        switch event {
        case .showLive(let show): queue("show.live", stream: show, [])
        case .showEnded(let show, let seconds, let peak):
            queue("show.ended", stream: show, [("duration", .number(Self.milliseconds(seconds))),
                                               ("peak_viewers", .integer(peak))])
        case .tileAdded(let show, let tile): queue("tile.added", stream: show, [("tile", .string(tile))])
        case .tileEnded(let show, let tile): queue("tile.ended", stream: show, [("tile", .string(tile))])
        case .userBanned(let show, let user): queue("user.banned", stream: show, [("user", .string(user))])
        case .userKicked(let show, let user): queue("user.kicked", stream: show, [("user", .string(user))])
        case .storeFailed, .publishersCut, .connectionDropped, .chatPruned, .revocationForgotten: return
        }
    }

    /// Queues the webhook of an ingest's event, if it has one: a finished recording.
    func report(_ event: ServerEvent) {
        guard case .recordingFinished(let path, let bytes, let seconds) = event else { return }
        queue("recording.ready", stream: nil, [("path", .string(path)), ("bytes", .integer(bytes)),
                                               ("duration", .number(Self.milliseconds(seconds)))])
    }

    /// Queues the webhook of a show's finished replay: its file, and where it plays.
    func reportReplay(show: String, id: String, path: String, bytes: Int, seconds: Double) {
        queue("recording.ready", stream: show, [("path", .string(path)), ("bytes", .integer(bytes)),
                                                ("duration", .number(Self.milliseconds(seconds))),
                                                ("replay", .string(id)),
                                                ("playlist", .string(ServeReplays.path(of: show) + "/\(id).m3u8"))])
    }

    /// Seconds to the millisecond, as the bodies give durations.
    private static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// A new event's id: `evt_` and 32 hex digits of a random UUID, stable across its retries (the receiver's key
    /// for telling a retry from a new event).
    static func newEventID() -> String {
        "evt_" + String(UUID().uuidString.lowercased().filter { $0 != "-" })
    }

    private func queue(_ type: String, stream: String?, _ fields: [(String, JSONValue)]) {
        let id = Self.newEventID()
        let body = JSONWriter.bytes(.object([("id", .string(id)), ("type", .string(type)),
                                             ("time", .string(Self.isoTime())), ("stream", .optional(stream))]
                                            + fields))
        let entry = WebhookJournal.Entry(id: id, body: body)
        let outcome: (dropped: WebhookJournal.Entry?, error: String?) = state.withLock { state in
            guard !state.stopped else { return (nil, "the server is stopping") }
            let (bytes, dropped) = state.journal.enqueue(entry)
            if dropped != nil { state.dropped += 1 }
            return (dropped, Self.append(bytes, to: state.descriptor))
        }
        if let error = outcome.error {
            console.print(ServeCommand.timestamp() + " webhooks: \(type) \(id) not queued on disk: \(error)")
        }
        if let dropped = outcome.dropped {
            console.print(ServeCommand.timestamp() + " webhooks: the queue is full: dropped the oldest event, "
                            + "\(dropped.id)")
        }
        wake.yield()
    }

    private func deliver(_ wakes: AsyncStream<Void>) async {
        for await _ in wakes {
            while !Task.isCancelled, let head = state.withLock({ $0.journal.pending.first }) {
                guard await deliverOne(head) else { return }
            }
        }
    }

    /// Tries one event until it is delivered or given up; false when the task was cancelled meanwhile.
    private func deliverOne(_ entry: WebhookJournal.Entry) async -> Bool {
        var failures = 0
        let type = WebhookJournal.type(ofBody: entry.body) ?? "event"
        while true {
            let timestamp = Int64(time(nil))
            let url = target.withLock { $0.url }
            let headers: HTTPHeaders = [
                "Content-Type": "application/json",
                "User-Agent": "stream-webhooks/1",
                WebhookSignature.idHeader: entry.id,
                WebhookSignature.timestampHeader: String(timestamp),
                WebhookSignature.signatureHeader: WebhookSignature.signature(secret: secret.withLock { $0.bytes },
                                                                             timestamp: timestamp, body: entry.body),
            ]
            let failure: String
            do {
                // A repeat is harmless (the receiver deduplicates on the id), so deliveries share a connection.
                let response = try await client.post(url, headers: headers, body: entry.body, mayRepeat: true)
                if (200..<300).contains(response.status.code) {
                    finish(entry.id)
                    return true
                }
                failure = "answered \(response.status.code)"
            } catch {
                failure = error.description
            }
            if Task.isCancelled { return false }
            failures += 1
            guard let delay = WebhookBackoff.delay(afterFailures: failures) else {
                console.print(ServeCommand.timestamp() + " webhooks: \(type) \(entry.id) given up after \(failures) "
                                + "attempts (\(failure))")
                finish(entry.id)
                return true
            }
            console.print(ServeCommand.timestamp() + " webhooks: \(type) \(entry.id) attempt \(failures) failed "
                            + "(\(failure)): next in \(delay.components.seconds) s")
            do {
                try await Task.sleep(for: delay)
            } catch {
                return false
            }
        }
    }

    private func finish(_ id: String) {
        let error: String? = state.withLock { state in
            guard !state.stopped, let bytes = state.journal.finish(id) else { return nil }
            state.delivered += 1
            // Not fsynced: a done record lost in a crash only sends that event again (the receiver deduplicates on
            // its id), and the next event's fsync flushes it anyway. It halves the fsyncs, the webhooks' main cost.
            if let error = Self.append(bytes, to: state.descriptor, sync: false) { return error }
            guard state.journal.needsCompaction else { return nil }
            return compact(&state)
        }
        if let error { console.print(ServeCommand.timestamp() + " webhooks: \(error)") }
    }

    /// Rewrites the file with the pending events only: a new file, fsynced, renamed over the old one.
    private func compact(_ state: inout State) -> String? {
        let contents = state.journal.compactedContents()
        let temporary = path + ".new"
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return "cannot compact \(path): \(String(cString: strerror(errno)))" }
        if let error = Self.append(contents, to: descriptor) {
            close(descriptor)
            return "cannot compact \(path): \(error)"
        }
        guard rename(temporary, path) == 0 else {
            close(descriptor)
            return "cannot compact \(path): \(String(cString: strerror(errno)))"
        }
        close(state.descriptor)
        state.descriptor = descriptor
        state.journal.compacted(length: contents.count)
        return nil
    }

    /// Writes all of `bytes` and fsyncs (unless `sync` is false): only then does a queued event count. Returns what
    /// went wrong, if anything.
    private static func append(_ bytes: [UInt8], to descriptor: Int32, sync: Bool = true) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += written
        }
        return !sync || fsync(descriptor) == 0 ? nil : String(cString: strerror(errno))
    }

    private static func readAll(_ descriptor: Int32) -> [UInt8] {
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        _ = lseek(descriptor, 0, SEEK_SET)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            contents += buffer[0..<count]
        }
        return contents
    }

    /// Now in UTC as ISO 8601 with milliseconds, through C (no ICU): "2026-12-05T20:01:02.345Z".
    static func isoTime() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let fraction = String(repeating: "0", count: milliseconds < 10 ? 2 : milliseconds < 100 ? 1 : 0)
            + "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
