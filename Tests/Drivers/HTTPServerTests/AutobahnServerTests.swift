import Foundation
import HTTPServer
import TestSupport
import Testing

/// The Autobahn|Testsuite cases, run by kosoku (PyPI) against the server's WebSocket echo: sections 1-7 (framing,
/// pings, reserved bits, opcodes, fragmentation, UTF-8, closing) and 9 (performance: messages and frames up to
/// 16 MiB, 1000 messages in a row), with the echo route's message limit raised to 16 MiB for section 9.
@Suite(.startsPeers) struct AutobahnServerTests {
    /// Prints one line per case: id, behavior, close behavior, duration in ms; then leaves at once. kosoku's native
    /// runtime sometimes aborts in the interpreter's teardown on a loaded machine (SIGABRT after all 300 lines were
    /// printed: 1 run in 6 with two busy loops beside it), so the script skips the teardown.
    static let script = """
        import asyncio, os, sys, kosoku
        url, cases, concurrency = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
        async def main():
            try:
                results = await kosoku.run_fuzzingclient(url, cases=cases, concurrency=concurrency)
            except kosoku.FailureError as failure:
                results = failure.results
            for r in results:
                \(AutobahnResult.printLine)
        asyncio.run(main())
        sys.stdout.flush()
        os._exit(0)
        """

    /// Runs `cases` against a server whose echo route accepts messages up to 16 MiB.
    static func run(cases: [String], concurrency: Int, timeout: TimeInterval) async throws -> [AutobahnResult] {
        let server = try await TestServer(webSocketOptions: WebSocketOptions(maximumMessageSize: 16 << 20,
                                                                             outboundQueueLimit: 64 << 20))
        let output: String
        do {
            output = try await runPython(script, ["ws://127.0.0.1:\(server.port)/ws", cases.joined(separator: ","),
                                                  String(concurrency)], timeout: timeout)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return AutobahnResult.parse(output.split(separator: "\n"))
    }

    /// Whether a case's verdicts are what docs/http.md says they are.
    static func isExpected(_ result: AutobahnResult) -> Bool {
        result.passed && (!result.isException || AutobahnResult.informationalByDesign.contains(result.caseID))
    }

    @Test func sectionsOneToSevenAndNinePass() async throws {
        let sections = ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "9.*"]
        // Four cases at a time share two cores with the server and kosoku; on a loaded machine a close handshake
        // can miss kosoku's one-second drop timeout (UNCLEAN: 7.7.x, 6.4.3-4 with two busy loops beside it), or
        // kosoku can die. Those cases run once more, one at a time: a fault of ours fails both times.
        var results: [AutobahnResult]
        do {
            results = try await Self.run(cases: sections, concurrency: 4, timeout: 170)
        } catch {
            print("Autobahn: kosoku did not finish (\(error)); running every case again, one at a time")
            results = try await Self.run(cases: sections, concurrency: 1, timeout: 300)
        }
        let again = results.filter { !Self.isExpected($0) }.map(\.caseID)
        if !again.isEmpty {
            print("Autobahn: running \(again.count) cases again, one at a time: \(again.joined(separator: " "))")
            let second = try await Self.run(cases: again, concurrency: 1, timeout: 120)
            let byID = Dictionary(second.map { ($0.caseID, $0) }, uniquingKeysWith: { first, _ in first })
            results = results.map { byID[$0.caseID] ?? $0 }
        }
        #expect(results.count == 300, "kosoku ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "failed: \(failed.map(\.description).joined(separator: "; "))")
        // Every exception to OK is one docs/http.md explains.
        let exceptions = results.filter(\.isException)
        #expect(Set(exceptions.map(\.caseID)).isSubset(of: AutobahnResult.informationalByDesign),
                "unexplained: \(exceptions.map(\.description).joined(separator: "; "))")
    }
}
