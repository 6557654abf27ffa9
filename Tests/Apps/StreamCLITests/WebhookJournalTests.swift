import Testing
@testable import StreamCLI

/// The webhook queue's file format, its recovery after a torn write, its bound, the backoff and the signature.
@Suite struct WebhookJournalTests {
    private func entry(_ id: String, _ type: String = "show.live") -> WebhookJournal.Entry {
        WebhookJournal.Entry(id: id, body: Array(#"{"id":"\#(id)","type":"\#(type)"}"#.utf8))
    }

    private func empty(capacity: Int = WebhookJournal.defaultCapacity) -> WebhookJournal {
        WebhookJournal(capacity: capacity, recovered: WebhookJournal.recover([]))
    }

    @Test func aQueuedRecordIsOneCheckedLine() {
        // The check is SHA-256's first 4 bytes, as Python's hashlib computes them for this body.
        #expect(String(decoding: WebhookJournal.queueRecord(entry("ev1")), as: UTF8.self)
                    == #"Q 2df7081f {"id":"ev1","type":"show.live"}"# + "\n")
        #expect(String(decoding: WebhookJournal.doneRecord("ev1"), as: UTF8.self) == "D ev1\n")
    }

    @Test func recoversWhatWasQueuedAndNotDone() {
        var journal = empty()
        var file: [UInt8] = []
        for id in ["a1", "b2", "c3"] { file += journal.enqueue(entry(id)).append }
        file += journal.finish("b2") ?? []
        let recovery = WebhookJournal.recover(file)
        #expect(recovery.pending.map(\.id) == ["a1", "c3"])
        #expect(recovery.validLength == file.count && recovery.discardedBytes == 0)
        #expect(journal.pending == recovery.pending)
        #expect(journal.finish("b2") == nil, "done twice")
    }

    /// The server's own ids (`evt_` and hex digits): a file where some were delivered is read back whole, the done
    /// ones left out, none after them lost (a `D evt_…` line once stopped the reading there and cut the file).
    @Test func recoversTheServersOwnIDsPastTheirDoneRecords() {
        var journal = empty()
        var file: [UInt8] = []
        let ids = (0..<4).map { _ in ServeWebhooks.newEventID() }
        for id in ids { file += journal.enqueue(entry(id)).append }
        file += journal.finish(ids[0]) ?? []
        file += journal.finish(ids[2]) ?? []
        let recovery = WebhookJournal.recover(file)
        #expect(recovery.pending.map(\.id) == [ids[1], ids[3]])
        #expect(recovery.validLength == file.count && recovery.discardedBytes == 0, "\(recovery)")
    }

    @Test func leavesOutATornLastRecordWhereverItWasCut() {
        var journal = empty()
        let whole = journal.enqueue(entry("a1")).append
        let last = journal.enqueue(entry("b2")).append
        for cut in 0..<last.count {
            let recovery = WebhookJournal.recover(whole + last.prefix(cut))
            #expect(recovery.pending.map(\.id) == ["a1"], "cut at \(cut)")
            #expect(recovery.validLength == whole.count && recovery.discardedBytes == cut)
        }
        #expect(WebhookJournal.recover(whole + last).pending.map(\.id) == ["a1", "b2"])
    }

    @Test func stopsAtARecordThatDoesNotCheck() {
        var journal = empty()
        let first = journal.enqueue(entry("a1")).append
        var second = journal.enqueue(entry("b2")).append
        second[second.count - 3] ^= 0x20
        let recovery = WebhookJournal.recover(first + second + WebhookJournal.doneRecord("a1"))
        #expect(recovery.pending.map(\.id) == ["a1"])
        #expect(recovery.validLength == first.count)
    }

    @Test func aFullQueueDropsTheOldestAndSaysSo() {
        var journal = empty(capacity: 2)
        var file: [UInt8] = []
        file += journal.enqueue(entry("a1")).append
        file += journal.enqueue(entry("b2")).append
        let (bytes, dropped) = journal.enqueue(entry("c3"))
        file += bytes
        #expect(dropped?.id == "a1")
        #expect(journal.pending.map(\.id) == ["b2", "c3"])
        #expect(WebhookJournal.recover(file).pending.map(\.id) == ["b2", "c3"])
        let more = WebhookJournal.recover(file + WebhookJournal.queueRecord(entry("d4")), capacity: 2)
        #expect(more.pending.map(\.id) == ["c3", "d4"] && more.overflowed == 1)
    }

    @Test func compactsToThePendingEventsOnce() {
        var journal = empty()
        for index in 0..<1500 {
            _ = journal.enqueue(entry("e\(index)"))
            _ = journal.finish("e\(index)")
        }
        _ = journal.enqueue(entry("last"))
        #expect(journal.needsCompaction)
        let contents = journal.compactedContents()
        journal.compacted(length: contents.count)
        #expect(!journal.needsCompaction)
        #expect(WebhookJournal.recover(contents).pending.map(\.id) == ["last"])
    }

    @Test func backsOffFromOneSecondForAboutTenMinutes() {
        #expect(WebhookBackoff.delay(afterFailures: 1) == .seconds(1))
        #expect(WebhookBackoff.delay(afterFailures: 2) == .seconds(2))
        #expect(WebhookBackoff.delay(afterFailures: 8) == .seconds(120))
        #expect(WebhookBackoff.delay(afterFailures: WebhookBackoff.attempts - 1) == .seconds(120))
        #expect(WebhookBackoff.delay(afterFailures: WebhookBackoff.attempts) == nil)
        #expect(WebhookBackoff.totalWait == .seconds(607))
    }

    @Test func signsTheTimestampAndTheBodyAsPythonsHMACDoes() {
        let body = Array(#"{"id":"ev1","type":"show.live"}"#.utf8)
        let signature = WebhookSignature.signature(secret: Array("whsec-test-0123456789".utf8), timestamp: 1_733_400_000,
                                                   body: body)
        #expect(signature == "v1=e659f9d54f09919d7f6a65cc71a452357938412c4ca95995f0d7efb4974ef1ae")
    }
}
