import Foundation
import TestSupport
import Testing

/// `stream watch`: typed lines and reactions reach the others; kicked, banned or refused exit 1 with the reason;
/// a bad or expired token says `unauthorized` and never appears in the output.
@Suite(.serialized, .startsPeers) struct WatchCommandTests {
    @Test func typedLinesAndReactionsReachTheOthers() throws {
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let watcher = try cli.watch("bob", log: "watch.err")
        _ = try readEvents(watcher, until: "the welcome") { $0["event"] as? String == "welcome" }
        let typed = try cli.run(["watch", server.base, "show:mugs", "--token-stdin"],
                                stdin: LiveShowCLI.token("eve")
                                    + "\nhello from eve\n/react heart\n/react nope\n/leave\n")
        #expect(typed.status == 0, "\(typed.stderr)")
        #expect(typed.stderr.contains("/react takes one of heart"))
        let message = try readEvents(watcher, until: "eve's message") { $0["event"] as? String == "message" }
        let body = message.last?["message"] as? [String: Any]
        #expect(body?["text"] as? String == "hello from eve" && body?["user"] as? String == "eve")
        let reactions = try readEvents(watcher, until: "the heart") { $0["event"] as? String == "reactions" }
        #expect((reactions.last?["counts"] as? [String: Int]) == ["heart": 1])
        watcher.stop()
    }

    @Test func kickedAndBannedExitOneWithTheReason() throws {
        let server = try LiveShowServer()
        let cli = LiveShowCLI(server: server)
        let bob = try cli.watch("bob", log: "bob.err")
        let eve = try cli.watch("eve", log: "eve.err")
        for watcher in [bob, eve] {
            _ = try readEvents(watcher, until: "the welcome") { $0["event"] as? String == "welcome" }
        }
        #expect(try cli.show("mugs", ["mod", "kick", "bob"]).stdout == "kicked bob\n")
        #expect(try readEvents(bob, until: "kicked") { $0["event"] as? String == "ended" }.last?["reason"]
                as? String == "kicked")
        #expect(bob.waitForExit(timeout: 10) == 1)
        #expect(try String(contentsOfFile: server.work.file("bob.err"), encoding: .utf8).contains("kicked"))
        #expect(try cli.show("ann", ["mod", "ban", "eve"]).status == 0)
        #expect(eve.waitForExit(timeout: 10) == 1)
        let again = try cli.run(["watch", server.base, "show:mugs", "--token-stdin"],
                                stdin: LiveShowCLI.token("eve") + "\n")
        #expect(again.status == 1 && again.stderr.contains("banned"), "\(again.stderr)")
    }

    @Test(arguments: [("expired", -120), ("forged", 3600)])
    func aBadOrExpiredTokenIsUnauthorizedAndNeverPrinted(_ kind: String, _ seconds: Int64) throws {
        let server = try LiveShowServer()
        let token = LiveShowCLI.token("bob", seconds: seconds) + (kind == "forged" ? "x" : "")
        let result = try LiveShowCLI(server: server).run(["watch", server.base, "show:mugs", "--token-stdin"],
                                                          stdin: token + "\n")
        #expect(result.status == 1 && result.stderr.contains("unauthorized"), "\(result.stderr)")
        if kind == "expired" { #expect(result.stderr.contains("expired")) }
        #expect(!(result.stdout + result.stderr + server.errorLog()).contains(token))
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let server = try LiveShowServer()
        let file = try server.tokenFile(LiveShowCLI.token("bob"))
        chmod(file, 0o644)
        let result = try LiveShowCLI(server: server).run(["watch", server.base, "show:mugs", "--token-file", file])
        #expect(result.status == 2 && result.stderr.contains("chmod 600"), "\(result.stderr)")
    }
}
