import Foundation
import HTTPServer
import TestSupport
import Testing

/// The Autobahn|Testsuite cases, run by kosoku (PyPI) against the server's WebSocket echo: sections 1-7 (framing,
/// pings, reserved bits, opcodes, fragmentation, UTF-8, closing) and 9 (performance: messages and frames up to
/// 16 MiB, 1000 messages in a row), with the echo route's message limit raised to 16 MiB for section 9.
@Suite(.startsPeers) struct AutobahnServerTests {
    /// Prints one line per case: id, behavior, close behavior, duration in ms.
    static let script = """
        import asyncio, sys, kosoku
        url, cases = sys.argv[1], sys.argv[2].split(",")
        async def main():
            try:
                results = await kosoku.run_fuzzingclient(url, cases=cases, concurrency=4)
            except kosoku.FailureError as failure:
                results = failure.results
            for r in results:
                \(AutobahnResult.printLine)
        asyncio.run(main())
        """

    /// Runs `cases` against a server whose echo route accepts messages up to 16 MiB.
    static func run(cases: [String], timeout: TimeInterval) async throws -> [AutobahnResult] {
        let server = try await TestServer(webSocketOptions: WebSocketOptions(maximumMessageSize: 16 << 20,
                                                                             outboundQueueLimit: 64 << 20))
        let output = try await runPython(script, ["ws://127.0.0.1:\(server.port)/ws", cases.joined(separator: ",")],
                                         timeout: timeout)
        await server.stop()
        return AutobahnResult.parse(output.split(separator: "\n"))
    }

    @Test func sectionsOneToSevenAndNinePass() async throws {
        let results = try await Self.run(cases: ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "9.*"],
                                         timeout: 170)
        #expect(results.count == 300, "kosoku ran \(results.count) cases")
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "failed: \(failed.map(\.description).joined(separator: "; "))")
        // Every exception to OK is one docs/http.md explains.
        let exceptions = results.filter(\.isException)
        #expect(Set(exceptions.map(\.caseID)).isSubset(of: AutobahnResult.informationalByDesign),
                "unexplained: \(exceptions.map(\.description).joined(separator: "; "))")
    }

}
