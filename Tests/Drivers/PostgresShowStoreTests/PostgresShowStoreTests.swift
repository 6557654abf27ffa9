import Foundation
import LiveProtocol
import LiveShows
import Locking
import PostgresShowStore
import TestSupport
import Testing

/// The PostgreSQL store against a real PostgreSQL of each test's own (initdb in a temporary directory, a free
/// loopback port): the same contract as the SQLite store, then what only a shared store has to do — several nodes
/// on one database, migrations at once, the server going away and coming back.
@Suite(.startsPeers) struct PostgresShowStoreTests {
    static func open(_ server: PostgresServer, _ database: String = "postgres",
                     timeout: Duration = .seconds(10)) throws -> PostgresShowStore {
        try PostgresShowStore(location: PostgresLocation(url: server.url(database)), timeout: timeout)
    }

    /// Runs `body` on `count` threads of their own (not Dispatch's pool, which runs two at a time on two cores),
    /// released together once every one has started, and waits for them all.
    /// - Throws: ``WaitTimeout`` when they have not all finished within `timeout`.
    static func onThreads(_ count: Int, within timeout: Duration = .seconds(60),
                          _ body: @escaping @Sendable (Int) -> Void) throws {
        let started = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            Thread {
                started.signal()
                go.wait()
                body(index)
                finished.leave()
            }.start()
        }
        for _ in 0..<count { started.wait() }
        for _ in 0..<count { go.signal() }
        let seconds = Double(timeout.components.seconds)
        guard finished.wait(timeout: .now() + seconds) == .success else {
            throw WaitTimeout(description: "\(count) threads did not finish within \(timeout)")
        }
    }

    @Test func bansAndTimeoutsAreKeptByTheBytesOfTheUserID() throws {
        let server = try PostgresServer()
        try ShowStoreContract.keepsUserIDsByTheirBytes(try Self.open(server))
    }

    /// Whatever batching, the store answers every write as the reference ledger does, and loads the same records.
    @Test(arguments: [1, 7, 64])
    func behavesAsTheLedger(batchSize: Int) throws {
        let server = try PostgresServer()
        let store = try Self.open(server)
        try ShowStoreContract.behavesAsTheLedger(store, epoch: store.epoch, batchSize: batchSize)
    }

    /// Everything survives closing and opening again, except published tiles: the store that opens is the only
    /// node, so no publisher is left.
    @Test func reopeningKeepsEverythingButTiles() throws {
        let server = try PostgresServer()
        try ShowStoreContract.reopeningKeepsEverythingButTiles {
            let store = try Self.open(server)
            return (store, store.epoch)
        }
    }

    /// psql (not our client) sees the pruned tables: the timeout still running stays, the index exists.
    @Test func pruningRemovesOldChatButThePinnedMessage() throws {
        let server = try PostgresServer()
        try ShowStoreContract.pruningRemovesOldChatButThePinnedMessage(try Self.open(server))
        #expect(try server.psql("SELECT show, user_id FROM timeouts", database: "postgres") == "show:cups|zoë\n")
        #expect(try server.psql("SELECT indexname FROM pg_indexes WHERE indexname = 'messages_by_time'",
                                database: "postgres") == "messages_by_time\n")
    }

    /// The schema and a message as psql sees them: one migration recorded, the text as written.
    @Test func theDatabaseAsPsqlSeesIt() throws {
        let server = try PostgresServer()
        let store = try Self.open(server)
        _ = try store.commit([("show:mugs", .message(MessageDraft(user: "bob", name: "Bob", role: .viewer,
                                                                   text: "it's \"here\" ☕", time: 5)))])
        #expect(try server.psql("SELECT version FROM stream_migrations", database: "postgres") == "1\n")
        #expect(try server.psql("SELECT show, id, user_id, text FROM messages", database: "postgres")
                == "show:mugs|1|bob|it's \"here\" ☕\n")
        #expect(try server.psql("SELECT value FROM meta WHERE key = 'epoch'", database: "postgres")
                == store.epoch + "\n")
    }

    /// PostgreSQL's text cannot hold NUL: such a write is refused alone (the rest of its batch goes through), and a
    /// name with a NUL is never cut short into another show's.
    @Test func aNULIsRefusedAloneAndNeverCutsANameShort() throws {
        let server = try PostgresServer()
        let store = try Self.open(server)
        let results = try store.commit([
            ("show:mugs", .message(MessageDraft(user: "a\0b", name: "A", role: .viewer, text: "hi", time: 1))),
            ("show:mugs", ShowStoreContract.draft("kept", at: 2)),
            ("show:mugs\0x", .slow(9)),
        ])
        #expect(results.count == 3)
        guard results.count == 3 else { return }
        #expect({ if case .failure(let error) = results[0] { "\(error)".contains("NUL") } else { false } }())
        #expect(results[1] == .success(.message(ChatMessage(id: 1, user: "bob", name: "Bob", role: .viewer,
                                                             text: "kept", time: 2))))
        #expect({ if case .failure = results[2] { true } else { false } }())
        #expect(try store.load("show:mugs\0x", historyLimit: 10, now: 0) == ShowRecord(epoch: store.epoch))
        let mugs = try store.load("show:mugs", historyLimit: 10, now: 0)
        #expect(mugs.history.map(\.text) == ["kept"] && mugs.slow == 0)
    }

    /// Six nodes opening a new database at the same moment: every one opens, with the same epoch, and the schema
    /// is made once (without the advisory lock, concurrent CREATE TABLEs fail with a unique violation).
    @Test func nodesStartingAtOnceMigrateOnce() throws {
        let server = try PostgresServer()
        try server.makeDatabase("cluster")
        let url = server.url("cluster")
        let nodes = 6
        let opened = Locked<[Result<String, StoreError>]>([])
        try Self.onThreads(nodes) { _ in
            let result = Result { () throws(StoreError) -> String in
                try PostgresShowStore(location: PostgresLocation(url: url)).epoch
            }
            opened.withLock { $0.append(result) }
        }
        let results = opened.withLock { $0 }
        let epochs = results.compactMap { try? $0.get() }
        #expect(epochs.count == nodes, "\(results)")
        #expect(Set(epochs).count == 1, "\(epochs)")
        #expect(try server.psql("SELECT count(*) FROM stream_migrations", database: "cluster") == "1\n")
    }

    /// Two nodes writing to the same shows at once, in batches naming the shows in opposite orders: every message
    /// gets an id, one order per show with no gap and no double, and neither node's batch fails (no deadlock).
    @Test func twoNodesShareOneOrderPerShow() throws {
        let server = try PostgresServer()
        _ = try Self.open(server)
        let url = server.url()
        let perNode = 150
        let ids = Locked<[String: [Int64]]>([:])
        let failures = Locked<[String]>([])
        try Self.onThreads(2) { node in
            do {
                let store = try PostgresShowStore(location: PostgresLocation(url: url))
                let shows = node == 0 ? ["show:a", "show:b"] : ["show:b", "show:a"]
                for index in 0..<perNode {
                    let batch = shows.map { ($0, ShowStoreContract.draft("node \(node) #\(index)", at: 1)) }
                    for ((show, _), result) in zip(batch, try store.commit(batch)) {
                        guard case .success(.message(let message)) = result else {
                            failures.withLock { $0.append("\(result)") }
                            continue
                        }
                        ids.withLock { $0[show, default: []].append(message.id) }
                    }
                }
            } catch {
                failures.withLock { $0.append("node \(node): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let store = try Self.open(server)
        for show in ["show:a", "show:b"] {
            let given = ids.withLock { $0[show] ?? [] }
            #expect(given.sorted() == Array(1...Int64(2 * perNode)), "\(show): \(given.count) ids")
            let record = try store.load(show, historyLimit: 1000, now: 0)
            #expect(record.seq == Int64(2 * perNode))
            #expect(record.history.map(\.id) == Array(1...Int64(2 * perNode)))
        }
    }

    /// The first node of a cluster marks every picture unpublished; a node joining a running one leaves the
    /// pictures its peers publish.
    @Test func onlyTheFirstNodeForgetsThePictures() throws {
        let server = try PostgresServer()
        do {
            let first = try Self.open(server)
            _ = try first.commit([("show:mugs", .tileStarted(.camera, generation: 0))])
            let joining = try Self.open(server)
            #expect(try joining.load("show:mugs", historyLimit: 0, now: 0).media.tiles == [.camera])
            #expect(try first.load("show:mugs", historyLimit: 0, now: 0).media.tiles == [.camera])
        }
        let alone = try Self.open(server)
        #expect(try alone.load("show:mugs", historyLimit: 0, now: 0).media.tiles.isEmpty)
    }

    @Test func aDatabaseFromANewerStreamIsRefused() throws {
        let server = try PostgresServer()
        _ = try Self.open(server)
        _ = try server.psql("INSERT INTO stream_migrations (version) VALUES (99)", database: "postgres")
        #expect { try Self.open(server) } throws: { error in
            (error as? StoreError)?.code == .damaged
                && "\(error)".contains("has schema version 99, newer than this stream knows (1): use a newer stream")
        }
    }

    /// The server stopped: writes and loads are errors that name the server (no crash, nothing half done); once it
    /// is back, the same store connects again and the chat goes on from where it was.
    @Test func aServerDownIsAnErrorUntilItIsBack() throws {
        let server = try PostgresServer()
        let store = try Self.open(server)
        #expect(try store.commit([("show:mugs", ShowStoreContract.draft("before", at: 1))])
                == [.success(.message(ChatMessage(id: 1, user: "bob", name: "Bob", role: .viewer, text: "before",
                                                  time: 1)))])
        try server.stop()
        let started = ContinuousClock.now
        #expect { try store.commit([("show:mugs", ShowStoreContract.draft("lost", at: 2))]) } throws: { error in
            (error as? StoreError)?.code == .unavailable
                && "\(error)".contains("cannot connect to PostgreSQL at postgres://stream@127.0.0.1:\(server.port)/")
        }
        #expect { try store.load("show:mugs", historyLimit: 10, now: 0) } throws: { error in
            (error as? StoreError)?.code == .unavailable
        }
        #expect(ContinuousClock.now - started < .seconds(5), "a refused connection is an error at once")
        try server.start()
        let results = try store.commit([("show:mugs", ShowStoreContract.draft("after", at: 3))])
        guard case .success(.message(let message)) = results.first else {
            Issue.record("after the restart: \(results)")
            return
        }
        #expect(message.id == 2)
        #expect(try store.load("show:mugs", historyLimit: 10, now: 0).history.map(\.text) == ["before", "after"])
    }

    /// A server that holds the connection but answers nothing (frozen) is an error after the timeout, not a store
    /// thread blocked for ever; once it answers again, so does the store.
    @Test func aServerThatDoesNotAnswerIsAnErrorAfterTheTimeout() throws {
        let server = try PostgresServer()
        let store = try Self.open(server, timeout: .seconds(1))
        _ = try store.commit([("show:mugs", ShowStoreContract.draft("before", at: 1))])
        server.freeze()
        defer { server.thaw() }
        let started = ContinuousClock.now
        #expect { try store.commit([("show:mugs", ShowStoreContract.draft("lost", at: 2))]) } throws: { error in
            (error as? StoreError)?.code == .unavailable && "\(error)".contains("did not answer within 1.0 seconds")
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(1) && waited < .seconds(4), "\(waited)")
        server.thaw()
        #expect(try store.load("show:mugs", historyLimit: 10, now: 0).history.map(\.text) == ["before"])
    }

    /// A password is used, and never appears in an error, even a wrong one.
    @Test func aPasswordIsUsedButNeverShown() throws {
        let password = "s3cret-\(UInt32.random(in: 0...UInt32.max))"
        let server = try PostgresServer(password: password)
        let location = try PostgresLocation(url: server.url())
        #expect { try PostgresShowStore(location: location, password: "wrong-\(password)") } throws: { error in
            "\(error)".contains("password authentication failed for user \"stream\"")
                && !"\(error)".contains(password)
        }
        let store = try PostgresShowStore(location: location, password: password)
        _ = try store.commit([("show:mugs", .slow(5))])
        #expect(try store.load("show:mugs", historyLimit: 0, now: 0).slow == 5)
    }

    /// Nothing listening: a clear error, at once.
    @Test func noServerIsAClearError() throws {
        let port = try FreePort.next()
        let location = try PostgresLocation(url: "postgres://stream@127.0.0.1:\(port)/shows")
        #expect { try PostgresShowStore(location: location) } throws: { error in
            (error as? StoreError)?.code == .unavailable
                && "\(error)".hasPrefix("cannot connect to PostgreSQL at postgres://stream@127.0.0.1:\(port)/shows: ")
                && "\(error)".contains("Connection refused")
        }
    }
}
