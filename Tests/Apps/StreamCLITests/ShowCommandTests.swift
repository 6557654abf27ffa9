import Foundation
import TestSupport
import Testing

/// `stream show ingest` and `stream show mod` against the real server: what they print, and the server's codes.
@Suite(.serialized, .startsPeers) struct ShowCommandTests {
    @Test func ingestPrintsTheOBSURLAndKeyAndRenews() throws {
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let first = try cli.show("ann", ["ingest"])
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(first.status == 0 && lines.count == 2, "\(first.stderr)")
        #expect(lines.first == "url: rtmp://127.0.0.1:\(server.rtmpPort)/live")
        #expect(lines.last?.hasPrefix("key: ") == true)
        let json = try cli.show("ann", ["ingest", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(object?["key"].map { "key: \($0)" } == lines.last, "the same key until renewed")
        let renewed = try cli.show("ann", ["ingest", "--renew"])
        #expect(renewed.stdout.split(separator: "\n").last.map(String.init) != lines.last)
        let refused = try cli.show("bob", ["ingest"])
        #expect(refused.status == 1 && refused.stderr.contains("not_host") && refused.stdout.isEmpty)
    }

    @Test func everyModerationActionAndItsRefusals() throws {
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let watcher = try cli.watch("bob", log: "watch.err")
        _ = try readEvents(watcher, until: "the welcome") { $0["event"] as? String == "welcome" }
        let typed = try cli.run(["watch", server.base, "show:mugs", "--token-stdin"],
                                stdin: LiveShowCLI.token("kim") + "\nfirst\nsecond\n/leave\n")
        #expect(typed.status == 0, "\(typed.stderr)")
        var ids: [Int] = []
        for _ in 0..<2 {
            let event = try readEvents(watcher, until: "a message") { $0["event"] as? String == "message" }
            if let id = (event.last?["message"] as? [String: Any])?["id"] as? Int { ids.append(id) }
        }
        #expect(ids.count == 2)
        let steps: [([String], String, String)] = [
            (["pin", "\(ids[1])"], "pinned message \(ids[1])", "pinned"),
            (["unpin"], "unpinned", "pinned"),
            (["delete", "\(ids[0])"], "deleted message \(ids[0])", "deleted"),
            (["slow", "10"], "slow mode: one message every 10 s", "slow"),
            (["slow", "0"], "slow mode off", "slow"),
            (["timeout", "bob", "60"], "bob may not write until", "canWrite"),
            (["clear"], "cleared the chat", "deleted"),
        ]
        for (words, printed, event) in steps {
            let result = try cli.show("mugs", ["mod"] + words)
            #expect(result.status == 0 && result.stdout.hasPrefix(printed), "\(words): \(result.stderr)")
            _ = try readEvents(watcher, until: event) { $0["event"] as? String == event }
        }
        #expect(try cli.show("mugs", ["mod", "ban", "kim"]).stdout == "banned kim\n")
        #expect(try cli.show("mugs", ["mod", "unban", "kim"]).stdout == "unbanned kim\n")
        let refusals: [(String, [String], String)] = [
            ("bob", ["mod", "clear"], "not_host"),
            ("mugs", ["mod", "kick", "ann"], "not_host"),
            ("mugs", ["mod", "timeout", "kim", "59"], "invalid"),
            ("mugs", ["mod", "delete", "999999"], "invalid"),
        ]
        for (user, words, code) in refusals {
            let result = try cli.show(user, words)
            #expect(result.status == 1 && result.stderr.contains(code), "\(words): \(result.stderr)")
        }
        let usage = try cli.show("mugs", ["mod", "timeout", "kim"])
        #expect(usage.status == 2 && usage.stderr.contains("timeout USER SECONDS"))
        watcher.stop()
    }
}
