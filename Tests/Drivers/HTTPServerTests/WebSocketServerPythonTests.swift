import Foundation
import TestSupport
import Testing
import WebSocket

/// Python `websockets` (PyPI, pinned in scripts/requirements-test.txt) as the client of the server's WebSockets.
@Suite(.startsPeers) struct WebSocketServerPythonTests {
    static let script = """
        import asyncio, sys
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosedError, InvalidStatus

        base = sys.argv[1]
        token = sys.argv[2]

        async def main():
            async with connect(base + "/ws", subprotocols=["superchat", "chat"], max_size=None) as ws:
                assert ws.subprotocol == "chat", ws.subprotocol
                await ws.send("héllo")
                assert await ws.recv() == "héllo"
                await ws.send(b"\\x00\\x01\\xff")
                assert await ws.recv() == b"\\x00\\x01\\xff"
                await ws.send(["frag", "men", "ted ünï"])          # three frames, one message
                assert await ws.recv() == "fragmented ünï"
                await ws.send([b"\\x01" * 1000, b"\\x02" * 1000])
                assert await ws.recv() == b"\\x01" * 1000 + b"\\x02" * 1000
                big_text = "x" * (1 << 20)
                await ws.send(big_text)
                assert await ws.recv() == big_text
                big_binary = bytes(range(256)) * 4096
                await ws.send(big_binary)
                assert await ws.recv() == big_binary
                pong = await ws.ping(b"are you there")
                latency = await asyncio.wait_for(pong, 5)
                print("messages ok")

            for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]:
                async with connect(base + "/ws") as ws:
                    await ws.close(code, "reason %d" % code)
                    assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == code, code
            print("close codes ok")

            async with connect(base + "/ws") as ws:
                ws.protocol.send_text(b"ok \\xc3\\x28 not utf-8")        # invalid UTF-8 in a text frame
                ws.send_data()
                try:
                    await ws.recv()
                    raise AssertionError("the server accepted invalid UTF-8")
                except ConnectionClosedError as error:
                    assert error.rcvd.code == 1007, error.rcvd
            print("1007 ok")

            async with connect(base + "/ws", max_size=None) as ws:
                await ws.send("y" * (2 << 20))                           # over the route's 1 MiB limit
                try:
                    await ws.recv()
                    raise AssertionError("the server accepted an oversized message")
                except ConnectionClosedError as error:
                    assert error.rcvd.code == 1009, error.rcvd
            print("1009 ok")

            try:
                async with connect(base + "/v1/streams/show"):
                    raise AssertionError("accepted without a token")
            except InvalidStatus as error:
                assert error.response.status_code == 401
            async with connect(base + "/v1/streams/show?access_token=" + token) as ws:
                pass
            async with connect(base + "/v1/streams/show", additional_headers={"Authorization": "Bearer " + token}):
                pass
            print("tokens ok")

        asyncio.run(main())
        """

    @Test func pythonClientExchangesMessagesAndCloses() async throws {
        let server = try await TestServer()
        let output = try await runPython(Self.script, ["ws://127.0.0.1:\(server.port)", TestServer.token])
        await server.stop()
        #expect(output == "messages ok\nclose codes ok\n1007 ok\n1009 ok\ntokens ok\n")
        let codes = server.closes.withLock { $0.map(\.code.rawValue) }
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            #expect(codes.contains(code), "the server's onClose never saw \(code)")
        }
        #expect(server.closes.withLock { $0.contains { $0.code == .invalidPayload && !$0.initiatedByPeer } })
        #expect(server.closes.withLock { $0.contains { $0.code == .messageTooBig && !$0.initiatedByPeer } })
    }
}
