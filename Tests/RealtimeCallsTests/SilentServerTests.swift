import Foundation
import RealtimeCalls
import TestSupport
import Testing

/// A server that takes the WebSocket (Python `websockets`) but never answers the join: the client gives up after
/// its join timeout instead of waiting for ever; a server that is not there at all is `disconnected` at once.
struct SilentServerTests {
    static let script = #"""
        import asyncio, sys
        from websockets.asyncio.server import serve

        async def silent(ws):
            await ws.wait_closed()

        async def main():
            async with serve(silent, "127.0.0.1", int(sys.argv[1])):
                print("ready", flush=True)
                await asyncio.Future()

        asyncio.run(main())
        """#

    @Test func aJoinWithoutAnAnswerTimesOut() async throws {
        let work = try TemporaryDirectory("silent-server")
        try Self.script.write(toFile: work.file("silent.py"), atomically: true, encoding: .utf8)
        let port = try FreePort.next()
        let server = try BackgroundProcess("python3", [work.file("silent.py"), "\(port)"],
                                           errorLog: work.file("silent.err"))
        defer { server.stop() }
        #expect(try server.readLine(timeout: 20) == "ready")
        let client = Realtime(server: "http://127.0.0.1:\(port)", options: Realtime.Options(joinTimeout: .seconds(1))) {
            nil
        }
        let started = ContinuousClock.now
        do {
            _ = try await client.calls.stream("show:mugs")
            Issue.record("a silent server was joined")
        } catch {
            #expect(error.code == "disconnected" && error.reason.contains("did not answer"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func noServerIsDisconnected() async throws {
        let port = try FreePort.next()
        do {
            _ = try await Realtime(server: "http://127.0.0.1:\(port)") { nil }.calls.stream("show:mugs")
            Issue.record("joined a server that is not there")
        } catch {
            #expect(error.code == "disconnected", "\(error)")
        }
    }
}
