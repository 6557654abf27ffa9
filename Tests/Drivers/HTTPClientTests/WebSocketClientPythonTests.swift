import HTTP
import HTTPClient
import TestSupport
import Testing
import WebSocket

/// Python `websockets` as the server of ``WebSocketClient``: messages both ways (fragmented and 1 MB ones
/// included), pings, close codes both ways, invalid UTF-8 → 1007, oversized → 1009, headers and subprotocols.
@Suite(.startsPeers) struct WebSocketClientPythonTests {
    static let script = """
        import asyncio, sys
        from websockets.asyncio.server import serve
        from websockets.exceptions import ConnectionClosed

        async def handler(ws):
            path = ws.request.path
            try:
                if path == "/echo":
                    async for message in ws:
                        await ws.send(message)
                elif path == "/headers":
                    await ws.send("%s|%s" % (ws.request.headers.get("Authorization"), ws.subprotocol))
                    await ws.wait_closed()
                elif path == "/fragments":
                    await ws.send(["frag", "men", "ted"])
                    await ws.send([b"\\x01" * 70000, b"\\x02" * 70000])
                    await ws.send("z" * (1 << 20))
                    await ws.wait_closed()
                elif path == "/ping":
                    pong = await ws.ping(b"server ping")
                    await asyncio.wait_for(pong, 5)
                    await ws.send("pong received")
                    await ws.wait_closed()
                elif path.startswith("/close/"):
                    await ws.close(int(path.split("/")[2]), "server closes")
                elif path == "/invalid":
                    ws.protocol.send_text(b"bad \\xed\\xa0\\x80 surrogate")
                    ws.send_data()
                    await ws.wait_closed()
                elif path == "/big":
                    await ws.send("b" * (2 << 20))
                    await ws.wait_closed()
            except ConnectionClosed:
                pass
            rcvd = ws.protocol.close_rcvd
            print(path, rcvd.code if rcvd else None, flush=True)

        def select(ws, offered):
            return next((name for name in offered if name in ("v2", "v1")), None)

        async def main():
            async with serve(handler, "127.0.0.1", 0, max_size=None, select_subprotocol=select) as server:
                print(server.sockets[0].getsockname()[1], flush=True)
                await asyncio.Future()

        asyncio.run(main())
        """

    @Test func talksToAPythonServer() async throws {
        let peer = try PythonPeer(Self.script)
        defer { peer.stop() }
        let base = "ws://127.0.0.1:\(try await peer.readLine())"
        let options = WebSocketClient.Options(maximumMessageSize: 1 << 20)

        let echo = try await WebSocketClient.connect(to: base + "/echo", options: options)
        try await echo.send(text: "héllo")
        #expect(await echo.receive() == .text("héllo"))
        try await echo.send(binary: [0, 1, 255])
        #expect(await echo.receive() == .binary([0, 1, 255]))
        let megabyte = [UInt8](repeating: 0xA5, count: 1 << 20)
        try await echo.send(binary: megabyte)
        #expect(await echo.receive() == .binary(megabyte))
        try await echo.ping([1, 2, 3])
        #expect(await echo.close(code: .goingAway, reason: "done").code == .goingAway)
        #expect(try await peer.readLine() == "/echo 1001")

        let headers = try await WebSocketClient.connect(to: base + "/headers", headers: ["Authorization": "Bearer t"],
                                                        subprotocols: ["v1", "v3"])
        #expect(headers.subprotocol == "v1")
        #expect(await headers.receive() == .text("Bearer t|v1"))
        await headers.close()
        #expect(try await peer.readLine() == "/headers 1000")

        let fragments = try await WebSocketClient.connect(to: base + "/fragments", options: options)
        #expect(await fragments.receive() == .text("fragmented"))
        #expect(await fragments.receive() == .binary([UInt8](repeating: 1, count: 70000)
                                                      + [UInt8](repeating: 2, count: 70000)))
        #expect(await fragments.receive() == .text(String(repeating: "z", count: 1 << 20)))
        await fragments.close(code: WebSocketCloseCode(rawValue: 4000))
        #expect(try await peer.readLine() == "/fragments 4000")

        // The client's own ping: Python answers with a pong, counted before the echo that was sent after it.
        let pinging = try await WebSocketClient.connect(to: base + "/echo")
        #expect(pinging.pongsReceived == 0)
        try await pinging.ping([1, 2, 3])
        try await pinging.send(text: "after the ping")
        #expect(await pinging.receive() == .text("after the ping"))
        #expect(pinging.pongsReceived == 1)
        await pinging.close()
        #expect(try await peer.readLine() == "/echo 1000")

        let ping = try await WebSocketClient.connect(to: base + "/ping")
        #expect(await ping.receive() == .text("pong received"))
        await ping.close()
        #expect(try await peer.readLine() == "/ping 1000")

        for code in [1000, 1001, 1008, 1011, 3000, 4999] {
            let closing = try await WebSocketClient.connect(to: base + "/close/\(code)")
            #expect(await closing.receive() == nil)
            #expect(closing.closeInfo?.code.rawValue == UInt16(code))
            #expect(closing.closeInfo?.reason == "server closes")
            #expect(closing.closeInfo?.initiatedByPeer == true)
            #expect(try await peer.readLine() == "/close/\(code) \(code)")
        }

        let invalid = try await WebSocketClient.connect(to: base + "/invalid")
        #expect(await invalid.receive() == nil)
        #expect(invalid.closeInfo?.code == .invalidPayload)
        #expect(try await peer.readLine() == "/invalid 1007")

        let big = try await WebSocketClient.connect(to: base + "/big", options: options)
        #expect(await big.receive() == nil)
        #expect(big.closeInfo?.code == .messageTooBig)
        #expect(try await peer.readLine() == "/big 1009")
    }

    @Test func reportsARefusedUpgradeAndAnUnreachableServer() async throws {
        let port = try FreePort.next()
        let refused = await #expect(throws: HTTPClientError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/x?access_token=secret")
        }
        #expect(refused?.code == .connectFailed)
        #expect(refused?.description.contains("secret") == false)
        await #expect(throws: HTTPClientError.self) { _ = try await WebSocketClient.connect(to: "ftp://a/") }
    }
}
