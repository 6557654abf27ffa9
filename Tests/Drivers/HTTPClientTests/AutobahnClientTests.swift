import HTTPClient
import TestSupport
import Testing
import WebSocket

/// The Autobahn|Testsuite cases, served by kosoku's fuzzing server to ``WebSocketClient`` as an echo client
/// (Autobahn's client protocol: /getCaseCount, /runCase?case=N&agent=A, /updateReports), sections 1-7 and 9.
@Suite(.startsPeers) struct AutobahnClientTests {
    static let script = """
        import asyncio, sys, kosoku
        cases = sys.argv[1].split(",")
        async def main():
            async with kosoku.run_fuzzingserver(cases=cases, port=0) as server:
                print(server.port, flush=True)
                try:
                    results = await server.get_result()
                except kosoku.FailureError as failure:
                    results = failure.results
                for r in results:
                    \(AutobahnResult.printLine)
                print("DONE")
        asyncio.run(main())
        """

    @Test func sectionsOneToSevenAndNinePass() async throws {
        let peer = try PythonPeer(Self.script, ["1.*,2.*,3.*,4.*,5.*,6.*,7.*,9.*"])
        defer { peer.stop() }
        let base = "ws://127.0.0.1:\(try await peer.readLine())"
        let options = WebSocketClient.Options(maximumMessageSize: 16 << 20, receiveBufferLimit: 32 << 20)
        let counter = try await WebSocketClient.connect(to: base + "/getCaseCount")
        guard case .text(let text)? = await counter.receive(), let count = Int(text) else {
            Issue.record("no case count")
            return
        }
        await counter.close()
        #expect(count == 300)
        for index in 1...count {
            let client = try await WebSocketClient.connect(to: base + "/runCase?case=\(index)&agent=stream",
                                                           options: options)
            for await message in client.messages {
                // The case may fail the connection meanwhile: a send after that is refused, which is expected.
                try? await client.send(message)
            }
        }
        let reports = try await WebSocketClient.connect(to: base + "/updateReports?agent=stream")
        await reports.close()
        let results = AutobahnResult.parse(try await peer.readLines(until: "DONE"))
        #expect(results.count == 300)
        let failed = results.filter { !$0.passed }
        #expect(failed.isEmpty, "failed: \(failed.map(\.description).joined(separator: "; "))")
        let exceptions = results.filter(\.isException)
        #expect(Set(exceptions.map(\.caseID)).isSubset(of: AutobahnResult.informationalByDesign),
                "unexplained: \(exceptions.map(\.description).joined(separator: "; "))")
    }
}
