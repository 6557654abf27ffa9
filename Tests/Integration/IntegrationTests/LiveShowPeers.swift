/// The Python peers of the live-show tests: clients of docs/live-protocol.md written with `websockets` (PyPI, an
/// implementation we did not write). Each test writes them to its temporary directory and runs `python3`.
enum LiveShowPeers {
    /// Every script, by file name.
    static let scripts: [String: String] = [
        "liveclient.py": client,
        "scenario.py": scenario,
        "ingest.py": ingest,
        "burst.py": burst,
        "afterwards.py": afterwards,
        "load.py": load,
        "slow.py": slow,
        "media.py": media,
    ]

    static let client = #"""
        """A client of Stream's live-show protocol (docs/live-protocol.md), for tests: one WebSocket per Client."""
        import asyncio, base64, hashlib, hmac, json, time
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed


        def mint(secret, sub, name=None, exp_in=3600, nbf_in=None):
            """An HS256 token as an app's backend would mint it, with Python's own hmac."""
            def b64(raw):
                return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            now = int(time.time())
            claims = {"sub": sub, "exp": now + exp_in, "iat": now}
            if name is not None:
                claims["name"] = name
            if nbf_in is not None:
                claims["nbf"] = now + nbf_in
            head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims).encode())
            return head + "." + b64(hmac.new(secret.encode(), head.encode(), hashlib.sha256).digest())


        class Client:
            def __init__(self, base, stream, token=None, bearer=False, label=None):
                self.base, self.stream, self.token, self.bearer = base, stream, token, bearer
                self.label = label or stream
                self.events, self.replies, self.next_id = [], {}, 1
                self.changed = asyncio.Condition()
                self.ws, self.reader, self.welcome = None, None, None

            async def open(self):
                url = f"{self.base}/v1/streams/{self.stream}"
                headers = None
                if self.token and self.bearer:
                    headers = {"Authorization": "Bearer " + self.token}
                elif self.token:
                    url += "?access_token=" + self.token
                self.ws = await connect(url, additional_headers=headers, proxy=None, compression=None, max_size=2 ** 21)
                self.reader = asyncio.create_task(self._read())
                return self

            async def _read(self):
                try:
                    async for text in self.ws:
                        message = json.loads(text)
                        async with self.changed:
                            if "reply" in message:
                                self.replies[message["reply"]] = message
                            else:
                                self.events.append(message)
                            self.changed.notify_all()
                except ConnectionClosed:
                    pass
                async with self.changed:
                    self.changed.notify_all()

            async def wait(self, predicate, timeout=10, what="a condition"):
                async def check():
                    async with self.changed:
                        await self.changed.wait_for(lambda: predicate(self) or self.reader.done())
                try:
                    await asyncio.wait_for(check(), timeout)
                except asyncio.TimeoutError:
                    pass
                if not predicate(self):
                    raise AssertionError(f"{self.label}: timed out waiting for {what}; events {self.events[-5:]}")

            async def request(self, op, **fields):
                request_id = self.next_id
                self.next_id += 1
                await self.ws.send(json.dumps({"op": op, "id": request_id, **fields}))
                await self.wait(lambda c: request_id in c.replies or c.ws.close_code is not None, what=f"reply to {op}")
                if request_id not in self.replies:
                    raise AssertionError(f"{self.label}: closed ({self.ws.close_code}) before replying to {op}")
                return self.replies[request_id]

            async def send_raw(self, text):
                await self.ws.send(text)

            async def join(self, since=None, **fields):
                reply = await self.request("join", **({"since": since} if since else {}), **fields)
                if reply["ok"]:
                    self.welcome = reply
                return reply

            def event_list(self, kind):
                return [event for event in self.events if event["event"] == kind]

            def messages(self):
                return [event["message"] for event in self.event_list("message")]

            async def closed(self, timeout=10):
                await asyncio.wait_for(self.ws.wait_closed(), timeout)
                return self.ws.close_code

            async def close(self):
                await self.ws.close()
                if self.reader:
                    await self.reader
        """#

    static let scenario = #"""
        """Host, mods, viewers and visitors on a real `stream serve --shows`: every role, error code and moderation
        action of docs/live-protocol.md, as the seed states them. Prints the number of checks passed; raises on the
        first failure."""
        import asyncio, json, sys
        from liveclient import Client, mint

        BASE, SECRET = sys.argv[1], open(sys.argv[2]).read().strip()
        checks = 0


        def check(condition, what):
            global checks
            if not condition:
                raise AssertionError(what)
            checks += 1


        def error_of(reply):
            return None if reply["ok"] else reply["error"]["code"]


        def get_json(path, token=None):
            """A plain HTTP GET (the status API, issue 33): status, JSON body, Cache-Control."""
            import urllib.error, urllib.request
            headers = {"Authorization": "Bearer " + token} if token else {}
            request = urllib.request.Request("http" + BASE[2:] + path, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, json.loads(response.read()), response.headers.get("Cache-Control")
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read()), error.headers.get("Cache-Control")


        async def main():
            token = lambda user, name=None: mint(SECRET, user, name)
            show = "show:mugs"
            ann = await Client(BASE, show, token("ann", "Ann"), label="ann").open()                 # host, query token
            mugs = await Client(BASE, show, token("mugs"), bearer=True, label="mugs").open()        # mod, Bearer header
            bob = await Client(BASE, show, token("bob", "Bob"), label="bob").open()
            eve = await Client(BASE, show, token("eve"), label="eve").open()
            visitor = await Client(BASE, show, label="visitor").open()
            for client, role in [(ann, "host"), (mugs, "mod"), (bob, "viewer"), (eve, "viewer"), (visitor, "viewer")]:
                reply = await client.join()
                check(reply["ok"] and reply["you"]["role"] == role, f"{client.label} joins as {role}: {reply}")
            visitor_id = visitor.welcome["visitor"]["id"]
            check(visitor.welcome["you"]["user"] == visitor_id and visitor_id.startswith("visitor:")
                  and visitor.welcome["you"]["name"].startswith("visitor-"), "a visitor has a visitor id")
            check(ann.welcome["you"]["name"] == "Ann", "the token's name is the display name")
            check(ann.welcome["show"]["reactions"] == ["heart", "like", "laugh", "wow", "clap", "fire"],
                  "reactions declared")
            # Distinct watchers: mugs, bob, eve, the visitor (the host is not counted); a second tab of bob counts once.
            bob2 = await Client(BASE, show, token("bob", "Bob"), label="bob2").open()
            await bob2.join()
            await ann.wait(lambda c: any(e["viewers"] == 4 for e in c.event_list("viewers")), what="4 viewers")
            check(True, "viewers are distinct watchers")

            # The status API on the same path without an upgrade: a show card's fields, no WebSocket.
            status, card, cache = await asyncio.to_thread(get_json, "/v1/streams/show:mugs")
            check(status == 200 and card["name"] == show and card["viewers"] == 4 and card["state"] == "idle"
                  and card["tiles"] == [] and card["startedAt"] is None and card["watch"] == "/watch/show:mugs"
                  and cache == "public, max-age=1", f"a show card's status: {status} {card} {cache}")
            status, card, cache = await asyncio.to_thread(get_json, "/v1/streams/show:mugs", token("bob"))
            check(status == 200 and cache == "private, no-store", f"with a token, not for shared caches: {cache}")
            status, body, _ = await asyncio.to_thread(get_json, "/v1/streams/private:x")
            check(status == 401 and body["error"]["code"] == "unauthorized", f"a private card: {status} {body}")
            status, body, _ = await asyncio.to_thread(get_json, "/v1/streams?pattern=show:*")
            check(status == 200 and body == {"streams": []}, f"nothing live yet: {status} {body}")
            status, body, _ = await asyncio.to_thread(get_json, "/v1/streams")
            check(status == 400 and body["error"]["code"] == "invalid", f"a list needs a pattern: {status} {body}")
            status, body, _ = await asyncio.to_thread(get_json, "/v1/streams?pattern=show%3A%3Cb%3E*")
            check(status == 400 and body["error"]["code"] == "invalid" and "<b>" not in body["error"]["reason"],
                  f"a pattern no name could match: {status} {body}")

            # Chat: ids increase, every session sees the same order, a visitor's message has no user id.
            for client, text in [(bob, "one"), (eve, "two"), (visitor, "three")]:
                reply = await client.request("send", text=text)
                check(reply["ok"] and reply["message"]["text"] == text, f"{client.label} sends: {reply}")
            for client in [ann, mugs, bob, eve, visitor, bob2]:
                await client.wait(lambda c: len(c.messages()) >= 3, what="three messages")
                texts = [m["text"] for m in client.messages()]
                check(texts == ["one", "two", "three"], f"{client.label} sees the messages in order: {texts}")
            ids = [m["id"] for m in ann.messages()]
            check(ids == sorted(ids) and len(set(ids)) == 3, "message ids increase")
            check(ann.messages()[2]["user"] == visitor_id and ann.messages()[0]["user"] == "bob",
                  "writer ids, the visitor's id for a visitor")
            late = await Client(BASE, show, token("zed"), label="zed").open()
            reply = await late.join()
            check([m["text"] for m in reply["chat"]["messages"]] == ["one", "two", "three"],
                  "history on join, oldest first")
            epoch, seq = reply["chat"]["epoch"], reply["chat"]["seq"]
            await late.close()

            # What a role may not do throws its code.
            check(error_of(await bob.request("goLive")) == "not_host", "a viewer cannot go live: not_host")
            check(error_of(await bob.request("end")) == "not_host", "a viewer cannot end: not_host")
            check(error_of(await mugs.request("ingest")) == "not_host", "a mod cannot get the OBS key: not_host")
            check(error_of(await bob.request("timeout", user="eve", seconds=60)) == "not_host",
                  "a viewer cannot moderate")
            check(error_of(await bob.request("clearChat")) == "not_host", "a viewer cannot clear the chat")
            quiet = await Client(BASE, "quiet:mugs", label="quiet visitor").open()
            check((await quiet.join())["you"]["role"] == "read_only", "visitors of quiet:* read only")
            check(error_of(await quiet.request("send", text="hi")) == "read_only", "read_only cannot send")
            check(error_of(await quiet.request("react", reaction="heart")) == "read_only", "read_only cannot react")
            await quiet.close()

            # Slow mode: viewers wait (with the seconds to wait), hosts and mods do not.
            check((await mugs.request("setSlow", seconds=10))["ok"], "a mod sets slow mode")
            await bob.wait(lambda c: any(e["seconds"] == 10 for e in c.event_list("slow")), what="slow event")
            kim = await Client(BASE, show, token("kim"), label="kim").open()
            await kim.join()
            check((await kim.request("send", text="slow one"))["ok"], "the first message under slow mode")
            reply = await kim.request("send", text="slow two")
            check(error_of(reply) == "slow" and 1 <= reply["error"]["retryAfter"] <= 10, f"slow with seconds: {reply}")
            # Slow mode counts from the last message, even one written before it was turned on; per user, not per tab.
            check(error_of(await bob.request("send", text="too soon")) == "slow", "slow counts from bob's last message")
            check(error_of(await bob2.request("send", text="other tab")) == "slow", "slow mode per user, not per tab")
            # A visitor that comes back with its token is the same visitor: slow mode follows it (issue 34 item 5).
            guest = await Client(BASE, show, label="guest").open()
            await guest.join(name="Zoë")
            guest_pass = guest.welcome["visitor"]
            check(guest.welcome["you"]["name"] == "Zoë", "a visitor chooses its name")
            check((await guest.request("send", text="guest one"))["ok"], "a visitor writes under slow mode")
            await guest.close()
            guest = await Client(BASE, show, label="guest again").open()
            reply = await guest.join(visitor=guest_pass["token"], name="Zoë")
            check(reply["you"]["user"] == guest_pass["id"], f"the token brings the same visitor back: {reply}")
            check(error_of(await guest.request("send", text="guest two")) == "slow", "slow mode follows the visitor")
            check((await mugs.request("ban", user=guest_pass["id"]))["ok"], "a mod bans a visitor by its id")
            check(await guest.closed() == 4403, "the banned visitor is closed")
            guest = await Client(BASE, show, label="guest banned").open()
            check(error_of(await guest.join(visitor=guest_pass["token"])) == "banned", "and refused with its token")
            await guest.close()
            await kim.close()
            for client in [ann, mugs]:
                for text in ["exempt 1", "exempt 2"]:
                    check((await client.request("send", text=text))["ok"], f"{client.label} is exempt from slow mode")
            check((await ann.request("setSlow", seconds=0))["ok"], "slow mode off")

            # Timeout: the user keeps watching, cannot write, is told the time left.
            reply = await mugs.request("timeout", user="eve", seconds=60)
            check(reply["ok"] and reply["until"] > 0, f"a mod times eve out: {reply}")
            await eve.wait(lambda c: any(not e["you"]["canWrite"] for e in c.event_list("you")), what="canWrite false")
            reply = await eve.request("send", text="let me")
            check(error_of(reply) == "timeout" and 55 <= reply["error"]["retryAfter"] <= 60,
                  f"timeout with time left: {reply}")
            for bad in [59, 86401]:
                check(error_of(await mugs.request("timeout", user="eve", seconds=bad)) == "invalid",
                      f"timeout of {bad} s")
            before = len(eve.messages())
            await bob.request("send", text="eve still watches")
            await eve.wait(lambda c: len(c.messages()) > before, what="eve still receives")
            check(True, "the timed-out user keeps watching")

            # Mods cannot act on the host or another mod; nobody acts on a host.
            for op, fields in [("kick", {"user": "ann"}), ("ban", {"user": "ann"}),
                               ("timeout", {"user": "max", "seconds": 60}), ("kick", {"user": "max"})]:
                check(error_of(await mugs.request(op, **fields)) == "not_host", f"a mod cannot {op} {fields['user']}")
            check(error_of(await ann.request("kick", user="ann")) == "invalid", "a host cannot be moderated")
            host_message = (await ann.request("send", text="from the host"))["message"]
            check(error_of(await mugs.request("deleteMessage", message=host_message["id"])) == "not_host",
                  "a mod cannot delete the host's message")

            # Delete, pin, unpin, clear.
            first = ann.messages()[0]
            check((await mugs.request("deleteMessage", message=first["id"]))["ok"], "a mod deletes a message")
            await bob.wait(lambda c: any(e["message"] == first["id"] for e in c.event_list("deleted")), what="deleted")
            check(error_of(await mugs.request("deleteMessage", message=first["id"])) == "invalid", "deleting twice")
            second = ann.messages()[1]
            check((await ann.request("pin", message=second["id"]))["ok"], "the host pins")
            await visitor.wait(lambda c: any(e["message"] and e["message"]["id"] == second["id"]
                                             for e in c.event_list("pinned")), what="pinned")
            check((await mugs.request("unpin"))["ok"], "a mod unpins")
            await visitor.wait(lambda c: c.event_list("pinned")[-1]["message"] is None, what="unpinned")
            check(True, "pin and unpin reach everyone")

            # Resync: a client that comes back with its position gets only what it missed.
            bob.events.clear()
            await ann.request("send", text="after the position")
            rejoin = await Client(BASE, show, token("zed"), label="zed again").open()
            reply = await rejoin.join(since={"epoch": epoch, "seq": seq})
            texts = [m["text"] for m in reply["chat"]["messages"]]
            check(not reply["chat"]["reset"] and "one" not in texts and texts[-1] == "after the position"
                  and first["id"] in reply["chat"]["deleted"], f"resync without duplicates or gaps: {reply['chat']}")
            await rejoin.close()
            check((await mugs.request("clearChat"))["ok"], "a mod clears the chat")
            await bob.wait(lambda c: bool(c.event_list("cleared")), what="cleared")
            check(True, "cleared reaches everyone")

            # Reactions, counted by kind.
            check((await bob.request("react", reaction="heart"))["ok"], "bob reacts")
            await visitor.wait(lambda c: any(e["counts"].get("heart", 0) >= 1 for e in c.event_list("reactions")),
                               what="reactions")
            check(error_of(await bob.request("react", reaction="poop")) == "invalid", "a reaction outside the set")

            # Kick: every session of the user closes with kicked; they may come back.
            check((await mugs.request("kick", user="bob"))["ok"], "a mod kicks bob")
            for client in [bob, bob2]:
                code = await client.closed()
                check(code == 4409 and client.events[-1] == {"event": "ended", "reason": "kicked"},
                      f"{client.label} ended kicked ({code})")
            bob = await Client(BASE, show, token("bob", "Bob"), label="bob back").open()
            check((await bob.join())["ok"], "a kicked user may come back")

            # Ban: closed with banned, refused on return, until unbanned.
            check((await ann.request("ban", user="eve"))["ok"], "the host bans eve")
            code = await eve.closed()
            check(code == 4403 and eve.events[-1] == {"event": "ended", "reason": "banned"},
                  f"eve ended banned ({code})")
            eve = await Client(BASE, show, token("eve"), label="eve again").open()
            check(error_of(await eve.join()) == "banned" and await eve.closed() == 4403, "a banned user is refused")
            check((await mugs.request("unban", user="eve"))["ok"], "a mod unbans eve")
            eve = await Client(BASE, show, token("eve"), label="eve unbanned").open()
            check((await eve.join())["ok"], "an unbanned user comes back")

            # unauthorized, not_found, invalid.
            for label, bad in [("expired", mint(SECRET, "bob", exp_in=-3600)), ("not yet valid", mint(SECRET, "bob",
                               nbf_in=3600)), ("another secret", mint("x" * 40, "bob")), ("garbage", "a.b.c")]:
                client = await Client(BASE, show, bad, label=label).open()
                reply = await client.join()
                check(error_of(reply) == "unauthorized" and await client.closed() == 4401, f"{label} token: {reply}")
            nobody = await Client(BASE, "private:x", label="private visitor").open()
            check(error_of(await nobody.join()) == "unauthorized", "role none is unauthorized")
            unknown = await Client(BASE, "room:x", token("bob"), label="unknown").open()
            check(error_of(await unknown.join()) == "not_found" and await unknown.closed() == 4404, "not_found")
            check(error_of(await bob.request("dance")) == "invalid", "unknown op")
            check(error_of(await bob.request("send", text="x" * 501)) == "invalid", "a message over 500 characters")
            await bob.send_raw("{not json")
            await bob.wait(lambda c: None in c.replies, what="a reply to malformed JSON")
            check(bob.replies[None]["error"]["code"] == "invalid", "malformed JSON is invalid")

            # Leave.
            check((await visitor.request("leave"))["ok"], "leave")
            check(await visitor.closed() == 1000 and visitor.events[-1]["reason"] == "left", "left")
            print(json.dumps({"checks": checks}))


        asyncio.run(main())
        """#

    static let ingest = #"""
        """OBS from the host's side: ffmpeg publishes with the URL and key from ingest(); the show goes live with the
        OBS tile; ingest(renew=True) cuts that ffmpeg within a second and refuses its key; the new key works."""
        import asyncio, json, subprocess, sys, time
        from liveclient import Client, mint

        BASE, SECRET, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]


        def ffmpeg(url, key, seconds, log):
            return subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                     "testsrc2=size=320x240:rate=15", "-t", str(seconds), "-c:v", "libx264", "-preset",
                                     "ultrafast", "-tune", "zerolatency", "-g", "15", "-f", "flv", f"{url}/{key}"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(log, "w"))


        async def main():
            ann = await Client(BASE, "show:mugs", mint(SECRET, "ann"), label="ann").open()
            bob = await Client(BASE, "show:mugs", mint(SECRET, "bob"), label="bob").open()
            await ann.join()
            assert (await bob.join())["show"]["state"] == "idle"
            old = await ann.request("ingest")
            assert old["ok"] and old["url"].startswith("rtmp://") and old["key"].startswith("live_"), old
            again = await ann.request("ingest")
            assert again["key"] == old["key"], "the same key until renewed"
            first = ffmpeg(old["url"], old["key"], 60, f"{WORK}/ffmpeg-old.log")
            await bob.wait(lambda c: any(e["event"] == "tiles" and e["tiles"] == ["obs"] and e["main"] == "obs"
                                         for e in c.events), timeout=20, what="the OBS tile")
            assert {"event": "state", "state": "live"} in bob.events
            # The media event is its own message, after the tiles: wait for it rather than race it.
            await bob.wait(lambda c: {"event": "media", "media": "on", "main": "obs"} in c.events, what="media on")
            renewed = await ann.request("ingest", renew=True)
            renewed_at = time.monotonic()
            assert renewed["ok"] and renewed["key"] != old["key"], renewed
            first.wait(timeout=10)
            cut_after = time.monotonic() - renewed_at
            await bob.wait(lambda c: {"event": "state", "state": "idle"} in c.events, what="idle after the cut")
            refused = ffmpeg(old["url"], old["key"], 3, f"{WORK}/ffmpeg-refused.log")
            refused_status = refused.wait(timeout=20)
            lives = sum(1 for e in bob.events if e == {"event": "state", "state": "live"})
            second = ffmpeg(renewed["url"], renewed["key"], 60, f"{WORK}/ffmpeg-new.log")
            await bob.wait(lambda c: sum(1 for e in c.events if e == {"event": "state", "state": "live"}) > lives,
                           timeout=20, what="live with the new key")
            assert (await ann.request("end"))["ok"]
            second.wait(timeout=10)
            await bob.wait(lambda c: {"event": "state", "state": "ended"} in c.events, what="ended")
            assert {"event": "media", "media": "off", "main": None} in bob.events
            print(json.dumps({"cutAfterSeconds": round(cut_after, 3), "refusedExit": refused_status,
                              "newKeyLive": True}))


        asyncio.run(main())
        """#

    static let media = #"""
        """Issue 34 defect A: a show's LL-HLS is served only with the media token of a session that joined, for
        that show, its user not banned since. ffmpeg publishes the host's camera; bob and a visitor join; Python's
        urllib fetches the playlist, init segment and a part with and without tokens, before and after the host
        bans bob. Writes the tokens to WORK/tokens.json (for the log check) and prints a JSON summary of statuses."""
        import asyncio, json, re, subprocess, sys, time, urllib.error, urllib.request
        from liveclient import Client, mint

        BASE, SECRET, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]
        HTTP = BASE.replace("ws://", "http://")


        def get(path):
            try:
                with urllib.request.urlopen(HTTP + path, timeout=10) as response:
                    return response.status, response.read()
            except urllib.error.HTTPError as error:
                return error.code, error.read()


        async def until_ok(path, timeout=20):
            deadline = time.monotonic() + timeout
            while True:
                status, body = await asyncio.to_thread(get, path)
                if status == 200 or time.monotonic() > deadline:
                    return status, body
                await asyncio.sleep(0.1)


        async def main():
            ann = await Client(BASE, "show:media", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            reply = await ann.request("goLive", tiles=["camera"])
            assert reply["ok"], reply
            grant = reply["grants"][0]
            camera = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                       "testsrc2=size=320x240:rate=15", "-t", "40", "-c:v", "libx264", "-preset",
                                       "ultrafast", "-tune", "zerolatency", "-g", "15", "-f", "flv",
                                       grant["url"] + "/" + grant["key"]],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(f"{WORK}/ffmpeg-camera.log", "w"))
            bob = await Client(BASE, "show:media", mint(SECRET, "bob"), label="bob").open()
            visitor = await Client(BASE, "show:media", label="visitor").open()
            await bob.join()
            await visitor.join()
            tokens = {c.label: c.welcome["access"]["token"] for c in (ann, bob, visitor)}
            with open(f"{WORK}/tokens.json", "w") as out:
                json.dump(tokens, out)
            paths = {who: f"/hls/show:media/{token}/" for who, token in tokens.items()}
            result = {"distinct": len(set(tokens.values())),
                      "expiresIn": round(bob.welcome["access"]["expiresAt"] / 1000 - time.time())}

            status, body = await until_ok(paths["bob"] + "main.m3u8")
            result["bob playlist"] = status
            playlist = body.decode()
            init = re.search(r'#EXT-X-MAP:URI="([^"]+)"', playlist).group(1)
            part = re.findall(r'#EXT-X-PART:[^\n]*URI="([^"]+)"', playlist)[-1]
            result["bob init"] = get(paths["bob"] + init)[0]
            result["bob part"] = get(paths["bob"] + part)[0]
            result["visitor playlist"] = get(paths["visitor"] + "main.m3u8")[0]
            result["no token playlist"] = get("/hls/show:media/main.m3u8")[0]
            result["no token init"] = get("/hls/show:media/" + init)[0]
            result["bob token, other show"] = get(f"/hls/show:other/{tokens['bob']}/main.m3u8")[0]

            assert (await ann.request("ban", user="bob"))["ok"]
            result["bob closed"] = await bob.closed()
            status, body = get(paths["bob"] + "main.m3u8")
            result["bob playlist after ban"] = status
            result["bob refusal"] = body.decode().strip()
            result["bob init after ban"] = get(paths["bob"] + init)[0]
            result["bob part after ban"] = get(paths["bob"] + part)[0]
            result["visitor playlist after ban"] = get(paths["visitor"] + "main.m3u8")[0]
            result["ann playlist after ban"] = get(paths["ann"] + "main.m3u8")[0]

            # A show for signed-in users only: a visitor may not watch and gets no token.
            stranger = await Client(BASE, "private:media", label="stranger").open()
            refused = await stranger.join()
            result["stranger private"] = refused["error"]["code"]
            result["stranger token"] = "access" in refused
            assert (await ann.request("end"))["ok"]
            camera.wait(timeout=10)
            print(json.dumps(result))


        asyncio.run(main())
        """#

    static let burst = #"""
        """Before a crash: a pin, a ban, a timeout and an OBS key; then writers send as fast as the server takes them,
        and every acknowledged message is written down (flushed) before the next is counted. The test kills the
        server."""
        import asyncio, json, sys
        from liveclient import Client, mint

        BASE, SECRET, ACKED, WRITERS = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], int(sys.argv[4])


        async def writer(index, out):
            client = await Client(BASE, "show:mugs", mint(SECRET, f"writer{index}"), label=f"writer{index}").open()
            await client.join()
            number = 0
            try:
                while True:
                    number += 1
                    reply = await client.request("send", text=f"burst {index}-{number}")
                    if reply["ok"]:
                        out.write(json.dumps({"id": reply["message"]["id"], "text": reply["message"]["text"]}) + "\n")
                        out.flush()
                    elif reply["error"]["code"] == "rate_limited":
                        await asyncio.sleep(reply["error"]["retryAfter"] / 10)
            except Exception:
                return


        async def main():
            ann = await Client(BASE, "show:mugs", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            pinned = (await ann.request("send", text="pin me"))["message"]
            assert (await ann.request("pin", message=pinned["id"]))["ok"]
            assert (await ann.request("ban", user="eve"))["ok"]
            timeout = await ann.request("timeout", user="bob", seconds=3600)
            key = await ann.request("ingest")
            assert (await ann.request("setSlow", seconds=0))["ok"]
            with open(ACKED + ".state", "w") as state:
                json.dump({"pinned": pinned["id"], "timeoutUntil": timeout["until"], "key": key["key"]}, state)
            with open(ACKED, "w") as out:
                print("bursting", flush=True)
                await asyncio.gather(*(writer(index, out) for index in range(WRITERS)))


        asyncio.run(main())
        """#

    static let afterwards = #"""
        """After the restart: every acknowledged message is there, and so are the pin, the ban, the timeout and the
        key."""
        import asyncio, json, sys
        from liveclient import Client, mint

        BASE, SECRET, ACKED = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]


        async def main():
            acked = [json.loads(line) for line in open(ACKED) if line.strip()]
            state = json.load(open(ACKED + ".state"))
            ann = await Client(BASE, "show:mugs", mint(SECRET, "ann"), label="ann").open()
            welcome = await ann.join()
            history = {m["id"]: m["text"] for m in welcome["chat"]["messages"]}
            kept = [a for a in acked if a["id"] in history]
            older = [a for a in acked if a["id"] not in history]
            assert all(history[a["id"]] == a["text"] for a in kept), "an acknowledged message changed"
            oldest = min(history) if history else 0
            lost = [a for a in older if a["id"] >= oldest]
            assert not lost, f"acknowledged messages lost: {lost}"
            assert welcome["show"]["pinned"] and welcome["show"]["pinned"]["id"] == state["pinned"], "the pin was lost"
            bob = await Client(BASE, "show:mugs", mint(SECRET, "bob"), label="bob").open()
            you = (await bob.join())["you"]
            assert not you["canWrite"] and you["timeoutUntil"] == state["timeoutUntil"], f"the timeout was lost: {you}"
            eve = await Client(BASE, "show:mugs", mint(SECRET, "eve"), label="eve").open()
            assert (await eve.join())["error"]["code"] == "banned", "the ban was lost"
            assert (await ann.request("ingest"))["key"] == state["key"], "the OBS key was lost"
            print(json.dumps({"acknowledged": len(acked), "inHistory": len(kept), "olderThanHistory": len(older)}))


        asyncio.run(main())
        """#

    static let load = #"""
        """CI-size load: watchers and writers in one show. Every watcher gets every message once, in the same order."""
        import asyncio, json, sys, time
        from liveclient import Client, mint

        BASE, SECRET, WATCHERS, WRITERS, EACH = (sys.argv[1], open(sys.argv[2]).read().strip(), int(sys.argv[3]),
                                                  int(sys.argv[4]), int(sys.argv[5]))


        async def main():
            watchers = []
            for start in range(0, WATCHERS, 100):
                batch = [Client(BASE, "show:load", mint(SECRET, f"watcher{n}"), label=f"watcher{n}")
                         for n in range(start, min(start + 100, WATCHERS))]
                await asyncio.gather(*(client.open() for client in batch))
                await asyncio.gather(*(client.join() for client in batch))
                watchers += batch
            writers = [await Client(BASE, "show:load", mint(SECRET, f"writer{n}"), label=f"writer{n}").open()
                       for n in range(WRITERS)]
            await asyncio.gather(*(writer.join() for writer in writers))
            await watchers[0].wait(lambda c: any(e["viewers"] >= WATCHERS for e in c.event_list("viewers")), timeout=30,
                                   what="the count of watchers")
            started = time.monotonic()

            async def write(index, writer):
                for number in range(EACH):
                    reply = await writer.request("send", text=f"load {index}-{number}")
                    assert reply["ok"], reply
                    await asyncio.sleep(0.4)

            await asyncio.gather(*(write(index, writer) for index, writer in enumerate(writers)))
            total = WRITERS * EACH
            for watcher in watchers:
                await watcher.wait(lambda c: len(c.messages()) >= total, timeout=60, what=f"{total} messages")
            reference = [m["id"] for m in watchers[0].messages()]
            assert len(reference) == total and len(set(reference)) == total, "duplicates or gaps"
            for watcher in watchers:
                assert [m["id"] for m in watcher.messages()] == reference, f"{watcher.label} saw another order"
            print(json.dumps({"watchers": WATCHERS, "writers": WRITERS, "messages": total,
                              "deliveries": total * WATCHERS, "seconds": round(time.monotonic() - started, 2)}))


        asyncio.run(main())
        """#

    static let slow = #"""
        """A watcher that stops reading (a tiny receive buffer, a raw socket that never reads) while writers send about
        2.6 MB of chat: the server closes that watcher (1008, then TCP once the close times out) when its bounded
        outbound queue is full, instead of buffering for it; a reading watcher in the same show gets every message,
        in order."""
        import asyncio, base64, json, os, socket, struct, sys, time
        from liveclient import Client, mint

        BASE, SECRET = sys.argv[1], open(sys.argv[2]).read().strip()
        WRITERS, EACH, TEXT = 50, 80, "x" * 480


        def frame(text):
            payload, mask = text.encode(), os.urandom(4)
            head = bytes([0x81, 0x80 | 126]) + struct.pack("!H", len(payload)) if len(payload) > 125 \
                else bytes([0x81, 0x80 | len(payload)])
            return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


        def stalled_watcher(port, token):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            key = base64.b64encode(os.urandom(16)).decode()
            sock.sendall((f"GET /v1/streams/show:slow?access_token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(1)
            assert head.startswith(b"HTTP/1.1 101"), head
            sock.sendall(frame(json.dumps({"op": "join", "id": 1})))
            return sock


        def drain(sock, seconds):
            """Reads what the server still sends: (messages seen, close code or None, bytes read, connection ended)."""
            sock.settimeout(seconds)
            data, ended, deadline = b"", False, time.monotonic() + seconds
            try:
                while time.monotonic() < deadline:
                    chunk = sock.recv(1 << 16)
                    if not chunk:
                        ended = True
                        break
                    data += chunk
            except ConnectionResetError:
                ended = True
            except socket.timeout:
                pass
            messages, code, at = 0, None, 0
            while at + 2 <= len(data):
                opcode, length, at = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
                if length == 126:
                    length, at = struct.unpack("!H", data[at:at + 2])[0], at + 2
                elif length == 127:
                    length, at = struct.unpack("!Q", data[at:at + 8])[0], at + 8
                if at + length > len(data):
                    break
                if opcode == 1 and b'"event":"message"' in data[at:at + length].replace(b" ", b""):
                    messages += 1
                elif opcode == 8 and length >= 2:
                    code = struct.unpack("!H", data[at:at + 2])[0]
                at += length
            return messages, code, len(data), ended


        async def main():
            port = int(BASE.rsplit(":", 1)[1])
            stalled = stalled_watcher(port, mint(SECRET, "stalled"))
            reader = await Client(BASE, "show:slow", mint(SECRET, "reader"), label="reader").open()
            await reader.join()
            writers = [Client(BASE, "show:slow", mint(SECRET, f"writer{n}"), label=f"writer{n}")
                       for n in range(WRITERS)]
            await asyncio.gather(*(writer.open() for writer in writers))
            await asyncio.gather(*(writer.join() for writer in writers))

            async def write(index, writer):
                sent = 0
                while sent < EACH:
                    reply = await writer.request("send", text=f"{index}-{sent} {TEXT}")
                    if reply["ok"]:
                        sent += 1
                    else:
                        assert reply["error"]["code"] == "rate_limited", reply
                        await asyncio.sleep(reply["error"]["retryAfter"])

            await asyncio.gather(*(write(index, writer) for index, writer in enumerate(writers)))
            total = WRITERS * EACH
            await reader.wait(lambda c: len(c.messages()) >= total, timeout=60, what=f"{total} messages")
            ids = [m["id"] for m in reader.messages()]
            assert len(ids) == total and ids == sorted(ids) and len(set(ids)) == total, "the reader lost or reordered"
            messages, code, read, ended = drain(stalled, 10)
            assert ended, f"the stalled watcher is still connected after {read} bytes ({messages} messages)"
            assert messages < total, f"the stalled watcher got all {messages} messages: nothing was bounded"
            print(json.dumps({"messages": total, "stalledGot": messages, "stalledBytes": read, "closeCode": code,
                              "dropped": True}))


        asyncio.run(main())
        """#
}
