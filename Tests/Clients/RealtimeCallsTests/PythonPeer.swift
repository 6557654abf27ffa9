/// The Python peer of the client's tests: a client of docs/live-protocol.md written with `websockets` (PyPI, an
/// implementation we did not write), joined to the same show as two Swift clients.
enum PythonPeer {
    /// Joins `show:mugs` as `pat`, prints `joined`, sends one message and one heart, then waits until it has seen
    /// `argv[3]` messages and `argv[3]` hearts and the count `argv[4]`, and prints what it saw as one JSON line.
    static let script = #"""
        import asyncio, base64, hashlib, hmac, json, sys, time
        from websockets.asyncio.client import connect

        BASE, SECRET = sys.argv[1], open(sys.argv[2]).read().strip()
        MESSAGES, VIEWERS = int(sys.argv[3]), int(sys.argv[4])


        def mint(sub):
            def b64(raw):
                return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            now = int(time.time())
            head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + \
                b64(json.dumps({"sub": sub, "name": "Pat", "exp": now + 600}).encode())
            return head + "." + b64(hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest())


        async def main():
            async with connect(f"{BASE}/v1/streams/show:mugs?access_token={mint('pat')}", proxy=None) as ws:
                await ws.send(json.dumps({"op": "join", "id": 1}))
                welcome = json.loads(await ws.recv())
                assert welcome["ok"], welcome
                messages = {m["id"]: m["text"] for m in welcome["chat"]["messages"]}
                hearts, viewers = 0, welcome["show"]["viewers"]
                print("joined", flush=True)
                await ws.send(json.dumps({"op": "send", "id": 2, "text": "from python"}))
                await ws.send(json.dumps({"op": "react", "id": 3, "reaction": "heart"}))
                deadline = time.monotonic() + 30
                while (len(messages) < MESSAGES or hearts < MESSAGES or viewers != VIEWERS) \
                        and time.monotonic() < deadline:
                    try:
                        event = json.loads(await asyncio.wait_for(ws.recv(), 1))
                    except asyncio.TimeoutError:
                        continue
                    if event.get("event") == "message":
                        messages[event["message"]["id"]] = event["message"]["text"]
                    elif event.get("event") == "reactions":
                        hearts += event["counts"].get("heart", 0)
                    elif event.get("event") == "viewers":
                        viewers = event["viewers"]
                    elif event.get("reply") in (2, 3):
                        assert event["ok"], event
                print(json.dumps({"messages": [[i, messages[i]] for i in sorted(messages)], "hearts": hearts,
                                  "viewers": viewers}), flush=True)


        asyncio.run(main())
        """#
}
