#if canImport(Glibc)
import FoundationEssentials
import Dispatch
import Glibc
#else
import Foundation
#endif
import Locking
import LiveShows
import Metrics

/// The thread that owns the ``ShowStore``: it loads shows and commits writes, handing every write that waits to
/// the store as one batch (one transaction: group commit), then answers on the callers' behalf through the
/// closures given with each job.
///
/// The store is made on the worker's own thread and never leaves it, so a store need not be thread-safe.
final class StoreWorker: Sendable {
    enum Job: Sendable {
        case open(@Sendable (Result<[IngestKeyOwner], StoreError>) -> Void)
        case load(String, historyLimit: Int, now: Int64, @Sendable (Result<ShowRecord, StoreError>) -> Void)
        case commit(show: String, StoreWrite, @Sendable (Result<StoreFact, StoreError>) -> Void)
        case prune(before: Int64, limit: Int, @Sendable (Result<Int, StoreError>) -> Void)
        case stop
    }

    typealias CommitReply = @Sendable (Result<StoreFact, StoreError>) -> Void

    /// The most writes in one transaction.
    static let maximumBatch = 512

    private let jobs = Locked<[Job]>([])
    private let signal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// How long each transaction of writes took to commit: taken once per transaction, read by a scrape.
    let commitLatency = Locked(ShowMetrics.emptyCommitHistogram)

    /// Starts the thread; `makeStore` runs on it when the first job (`open`) arrives.
    init(makeStore: @escaping @Sendable () throws(StoreError) -> any ShowStore) {
        let jobs = self.jobs
        let signal = self.signal
        let finished = self.finished
        let commitLatency = self.commitLatency
        DetachedThread.start(name: "stream-show-store") {
            Self.run(jobs: jobs, signal: signal, commitLatency: commitLatency, makeStore: makeStore)
            finished.signal()
        }
    }

    func submit(_ job: Job) {
        jobs.withLock { $0.append(job) }
        signal.signal()
    }

    /// Finishes the jobs already submitted, then stops the thread and waits for it.
    func stop() {
        submit(.stop)
        finished.wait()
    }

    private static func run(jobs: Locked<[Job]>, signal: DispatchSemaphore, commitLatency: Locked<Histogram>,
                            makeStore: @Sendable () throws(StoreError) -> any ShowStore) {
        var store: (any ShowStore)?
        var openFailure: StoreError?
        while true {
            signal.wait()
            let taken = jobs.withLock { queued -> [Job] in
                defer { queued.removeAll(keepingCapacity: true) }
                return queued
            }
            var batch: [(show: String, write: StoreWrite, reply: CommitReply)] = []
            func flush() {
                guard !batch.isEmpty else { return }
                defer { batch.removeAll(keepingCapacity: true) }
                guard let store else {
                    let error = openFailure ?? StoreError(.unavailable, "the store is not open")
                    for entry in batch { entry.reply(.failure(error)) }
                    return
                }
                var start = 0
                while start < batch.count {
                    let slice = batch[start..<min(start + maximumBatch, batch.count)]
                    do {
                        let started = ContinuousClock.now
                        defer {
                            let elapsed = (ContinuousClock.now - started).components
                            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
                            commitLatency.withLock { $0.observe(seconds) }
                        }
                        let results = try store.commit(slice.map { ($0.show, $0.write) })
                        for (entry, result) in zip(slice, results) { entry.reply(result) }
                    } catch {
                        for entry in slice { entry.reply(.failure(error)) }
                    }
                    start += maximumBatch
                }
            }
            for job in taken {
                switch job {
                case .commit(let show, let write, let reply):
                    batch.append((show, write, reply))
                case .open(let reply):
                    flush()
                    do {
                        let opened = try makeStore()
                        store = opened
                        reply(.success(try opened.ingestKeyOwners()))
                    } catch {
                        openFailure = error
                        reply(.failure(error))
                    }
                case .load(let name, let limit, let now, let reply):
                    flush()
                    guard let store else {
                        reply(.failure(openFailure ?? StoreError(.unavailable, "the store is not open")))
                        continue
                    }
                    do {
                        reply(.success(try store.load(name, historyLimit: limit, now: now)))
                    } catch {
                        reply(.failure(error))
                    }
                case .prune(let time, let limit, let reply):
                    flush()
                    guard let store else {
                        reply(.failure(openFailure ?? StoreError(.unavailable, "the store is not open")))
                        continue
                    }
                    do {
                        reply(.success(try store.prune(before: time, limit: limit)))
                    } catch {
                        reply(.failure(error))
                    }
                case .stop:
                    flush()
                    return
                }
            }
            flush()
        }
    }
}
