import Foundation
import RealtimeCalls
import TestSupport
import Testing

/// A server that takes the WebSocket (Python `websockets`) but never answers the join: the client gives up after
/// its join timeout instead of waiting for ever; one that answers the join (and pings) but no request: the call
/// fails after the request timeout and the client connects again; a server that is not there at all is
/// `disconnected` at once.
@Suite(.startsPeers) struct SilentServerTests {
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

    /// Welcomes every join (docs/live-protocol.md's welcome), then reads and never answers; prints each join.
    static let deafScript = #"""
        import asyncio, json, sys
        from websockets.asyncio.server import serve

        JOINS = 0

        async def deaf(ws):
            global JOINS
            async for text in ws:
                request = json.loads(text)
                if request["op"] == "join":
                    JOINS += 1
                    print(f"joined {JOINS}", flush=True)
                    await ws.send(json.dumps({"reply": request["id"], "ok": True,
                        "show": {"name": "show:mugs", "state": "live", "tiles": [], "main": None, "viewers": 1,
                                 "pinned": None, "slow": 0, "reactions": ["heart"]},
                        "you": {"user": "pat", "name": "Pat", "role": "viewer", "canWrite": True,
                                "timeoutUntil": None},
                        "chat": {"epoch": "e1", "seq": 0, "reset": True, "messages": [], "deleted": []}}))
                else:
                    print(f"ignored {request['op']}", flush=True)

        async def main():
            async with serve(deaf, "127.0.0.1", int(sys.argv[1])):
                print("ready", flush=True)
                await asyncio.Future()

        asyncio.run(main())
        """#

    @Test func aRequestWithoutAnAnswerTimesOutAndTheConnectionIsReplaced() async throws {
        let work = try TemporaryDirectory("deaf-server")
        try Self.deafScript.write(toFile: work.file("deaf.py"), atomically: true, encoding: .utf8)
        let port = try FreePort.next()
        let server = try BackgroundProcess("python3", [work.file("deaf.py"), "\(port)"],
                                           errorLog: work.file("deaf.err"))
        defer { server.stop() }
        #expect(try server.readLine(timeout: 20) == "ready")
        let options = Realtime.Options(requestTimeout: .seconds(1))
        let stream = try await Realtime(server: "http://127.0.0.1:\(port)", options: options) { nil }
            .calls.stream("show:mugs")
        defer { stream.leave() }
        #expect(try server.readLine(timeout: 10) == "joined 1")
        let started = ContinuousClock.now
        do {
            _ = try await stream.send("anyone there?")
            Issue.record("a request nobody answered succeeded")
        } catch {
            #expect(error.code == "disconnected" && error.reason.contains("did not answer send within"), "\(error)")
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(1) && waited < .seconds(5), "\(waited)")
        #expect(try server.readLine(timeout: 10) == "ignored send")
        // The connection that did not work is replaced: the client joins again.
        #expect(try server.readLine(timeout: 10) == "joined 2")
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
