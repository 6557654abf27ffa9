import LiveProtocol
@testable import LiveShows
import Testing

struct ChatLogTests {
    static func message(_ id: Int64) -> ChatMessage {
        ChatMessage(id: id, user: "u", name: "U", role: .viewer, text: "m\(id)", time: id)
    }

    @Test func historyIsTheLastMessagesOldestFirst() {
        var log = ChatLog(epoch: "e", seq: 0, history: [], historyLimit: 3)
        for id in 1...5 { 
            let result1 = log.append(Self.message(Int64(id)))
            #expect(result1)
        }
        #expect(log.history.map(\.id) == [3, 4, 5])
        let result2 = log.append(Self.message(5))
        #expect(!result2)
        #expect(log.sync(since: nil) == ChatSync(epoch: "e", seq: 5, reset: true, messages: log.history.map { $0 },
                                                 deleted: []))
    }

    @Test func aReturningClientGetsOnlyTheDifference() {
        var log = ChatLog(epoch: "e", seq: 0, history: [], historyLimit: 10)
        for id in 1...4 { _ = log.append(Self.message(Int64(id))) }
        let position = ChatPosition(epoch: "e", seq: 4)
        _ = log.append(Self.message(5))
        let result3 = log.delete(2, seq: 6)
        #expect(result3)
        _ = log.append(Self.message(7))
        let deletedLater = log.delete(5, seq: 8)  // made and deleted after the position: not listed
        #expect(deletedLater)
        let sync = log.sync(since: position)
        #expect(!sync.reset)
        #expect(sync.messages.map(\.id) == [7])
        #expect(sync.deleted == [2])
        #expect(sync.seq == 8)
        // Up to date: nothing.
        #expect(log.sync(since: ChatPosition(epoch: "e", seq: 8)).messages.isEmpty)
    }

    @Test(arguments: [
        ChatPosition(epoch: "other", seq: 2),  // another epoch (store wiped)
        ChatPosition(epoch: "e", seq: 99),  // ahead of the server (another store)
        ChatPosition(epoch: "e", seq: 1),  // before the oldest message kept
    ])
    func positionsThatCannotBeTrustedStartOver(position: ChatPosition) {
        var log = ChatLog(epoch: "e", seq: 0, history: [], historyLimit: 2)
        for id in 1...4 { _ = log.append(Self.message(Int64(id))) }
        let sync = log.sync(since: position)
        #expect(sync.reset)
        #expect(sync.messages.map(\.id) == [3, 4])
    }

    @Test func aLoadedLogCannotVouchForDeletionsBeforeIt() {
        let log = ChatLog(epoch: "e", seq: 10, history: [Self.message(9), Self.message(10)], historyLimit: 5)
        #expect(log.sync(since: ChatPosition(epoch: "e", seq: 9)).reset)
        #expect(!log.sync(since: ChatPosition(epoch: "e", seq: 10)).reset)
    }

    @Test func clearStartsEveryoneOver() {
        var log = ChatLog(epoch: "e", seq: 0, history: [], historyLimit: 5)
        for id in 1...3 { _ = log.append(Self.message(Int64(id))) }
        let result4 = log.clear(seq: 4)
        #expect(result4)
        let result5 = log.clear(seq: 4)
        #expect(!result5)
        _ = log.append(Self.message(5))
        #expect(log.history.map(\.id) == [5])
        let sync = log.sync(since: ChatPosition(epoch: "e", seq: 3))
        #expect(sync.reset && sync.messages.map(\.id) == [5])
        #expect(!log.sync(since: ChatPosition(epoch: "e", seq: 4)).reset)
    }

    @Test func forgottenDeletionsStartOldClientsOver() {
        var log = ChatLog(epoch: "e", seq: 0, history: [], historyLimit: 5000)
        for id in 1...1200 { _ = log.append(Self.message(Int64(id))) }
        var seq: Int64 = 1200
        for id in 1...1001 {
            seq += 1
            _ = log.delete(Int64(id), seq: seq)
        }
        #expect(log.sync(since: ChatPosition(epoch: "e", seq: 1200)).reset)
        #expect(!log.sync(since: ChatPosition(epoch: "e", seq: 1201)).reset)
        #expect(log.message(1100)?.text == "m1100")
        #expect(log.message(5) == nil)
    }
}
