/// The Python peer of the metrics test: Prometheus's own parser (`prometheus_client`, PyPI, pinned in
/// scripts/requirements-test.txt) reads the real `/metrics` while ffmpeg publishes a show and Python `websockets`
/// clients (LiveShowPeers' `liveclient.py`) watch and chat.
enum MetricsPeers {
    static let scenario = #"""
        """A show goes live from ffmpeg, four sessions watch it, one chats, one is refused, a player fetches its LL-HLS:
        the counters of /metrics, parsed by prometheus_client, say so. Prints a JSON summary; raises on a failure."""
        import asyncio, json, subprocess, sys, time, urllib.error, urllib.request
        from prometheus_client.parser import text_string_to_metric_families
        from liveclient import Client, mint

        BASE, SECRET, METRICS, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        HTTP = BASE.replace("ws://", "http://")


        def get(url):
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    return response.status, response.headers.get("Content-Type"), response.read()
            except urllib.error.HTTPError as error:
                return error.code, error.headers.get("Content-Type"), error.read()


        def scrape():
            """Every sample as {(name, ((label, value), ...)): value}, and each family's type, and the raw text."""
            status, content_type, body = get(METRICS)
            assert status == 200, f"/metrics answered {status}"
            text = body.decode()
            samples, types = {}, {}
            for family in text_string_to_metric_families(text):
                types[family.name] = family.type
                for sample in family.samples:
                    samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
            return samples, types, text, content_type


        def value(samples, name, **labels):
            return samples.get((name, tuple(sorted(labels.items()))), 0)


        async def until(what, predicate, timeout=20):
            """Scrapes until predicate(samples) holds; fails with the last samples of interest when time runs out."""
            deadline = time.monotonic() + timeout
            while True:
                samples = (await asyncio.to_thread(scrape))[0]
                if predicate(samples):
                    return samples
                if time.monotonic() > deadline:
                    seen = {k: v for k, v in samples.items() if not k[0].startswith("stream_store_commit_seconds")}
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}; saw {seen}")
                await asyncio.sleep(0.1)


        async def main():
            before, types, text, content_type = await asyncio.to_thread(scrape)
            assert content_type.startswith("text/plain; version=0.0.4"), content_type
            assert types["stream_store_commit_seconds"] == "histogram", types
            assert types["stream_chat_messages"] == "counter" and types["stream_connections"] == "gauge", types
            for status_code in ("401", "403", "429"):
                assert ("stream_refusals_total", (("protocol", "hls"), ("reason", status_code))) in before
            # The WebRTC port's series exist from the start, at 0.
            for kind in ("whip", "whep"):
                assert before[("stream_webrtc_sessions", (("kind", kind),))] == 0, before
            assert before[("stream_refusals_total", (("protocol", "webrtc"), ("reason", "session_limit")))] == 0
            for reason in ("not_multiplexed", "unknown_ufrag", "no_username", "unknown_address"):
                assert ("stream_drops_total", (("reason", "webrtc_" + reason),)) in before, before

            ann = await Client(BASE, "show:metrics", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            reply = await ann.request("goLive", tiles=["camera"])
            assert reply["ok"], reply
            grant = reply["grants"][0]
            camera = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                       "testsrc2=size=320x240:rate=15", "-t", "60", "-c:v", "libx264", "-preset",
                                       "ultrafast", "-tune", "zerolatency", "-g", "15", "-f", "flv",
                                       grant["url"] + "/" + grant["key"]],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(f"{WORK}/ffmpeg.log", "w"))
            try:
                watchers = [await Client(BASE, "show:metrics", mint(SECRET, user), label=user).open()
                            for user in ("bob", "carl")]
                watchers.append(await Client(BASE, "show:metrics", label="visitor").open())
                for watcher in watchers:
                    assert (await watcher.join())["ok"]
                live = await until("the show live with 4 sessions and 3 viewers", lambda s:
                                   value(s, "stream_publishes_live") == 1 and value(s, "stream_shows_live") == 1
                                   and value(s, "stream_show_watchers", show="show:metrics") == 4
                                   and value(s, "stream_show_viewers", show="show:metrics") == 3)
                bob = watchers[0]
                for n in range(5):
                    assert (await bob.request("send", text=f"hello {n}"))["ok"]
                for watcher in watchers:
                    await watcher.wait(lambda c: len(c.messages()) >= 5, what="five messages")
                assert (await bob.request("end"))["error"]["code"] == "not_host"

                # The live list of issue 33 beside the metrics: the show, as its status says it.
                status, _, body = await asyncio.to_thread(get, HTTP + "/v1/streams?pattern=show:*")
                listed = json.loads(body)
                assert status == 200 and [s["name"] for s in listed["streams"]] == ["show:metrics"], listed
                assert listed["streams"][0]["state"] == "live" and listed["streams"][0]["viewers"] == 3, listed

                # LL-HLS: bob's playlist with his media token (held until the first part exists), and a refusal.
                token = bob.welcome["access"]["token"]
                deadline = time.monotonic() + 20
                while True:
                    status, _, _ = await asyncio.to_thread(get, f"{HTTP}/hls/show:metrics/{token}/main.m3u8")
                    if status == 200 or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.2)
                assert status == 200, f"bob's playlist: {status}"
                assert (await asyncio.to_thread(get, f"{HTTP}/hls/show:metrics/main.m3u8"))[0] == 401

                chat_before = value(before, "stream_chat_messages_total")
                after = await until("the messages, refusals and LL-HLS requests counted", lambda s:
                                    value(s, "stream_chat_messages_total") - chat_before == 5
                                    and value(s, "stream_refusals_total", protocol="hls", reason="401") >= 1)
                after_text = (await asyncio.to_thread(scrape))[2]
                for secret in [grant["key"], token, ann.welcome["access"]["token"]]:
                    assert secret not in after_text, "a key or token reached /metrics"
                delta = lambda name, **labels: value(after, name, **labels) - value(before, name, **labels)
                result = {
                    "chat": delta("stream_chat_messages_total"),
                    "deliveries": delta("stream_deliveries_total"),
                    "notHost": delta("stream_refusals_total", protocol="live", reason="not_host"),
                    "hls401": delta("stream_refusals_total", protocol="hls", reason="401"),
                    "hlsShowRequests": delta("stream_hls_requests_total", route="show"),
                    "showHLSRequests": value(after, "stream_show_hls_requests_total", show="show:metrics"),
                    "rtmpBytesIn": delta("stream_received_bytes_total", protocol="rtmp"),
                    "httpBytesOut": delta("stream_sent_bytes_total", protocol="http"),
                    "webSocketBytesIn": delta("stream_received_bytes_total", protocol="websocket"),
                    "webSocketBytesOut": delta("stream_sent_bytes_total", protocol="websocket"),
                    "rtmpConnections": value(after, "stream_connections", protocol="rtmp"),
                    "webSockets": value(after, "stream_connections", protocol="websocket"),
                    "sessions": value(after, "stream_show_sessions"),
                    "commits": delta("stream_store_commit_seconds_count"),
                    "commitsInf": value(after, "stream_store_commit_seconds_bucket", le="+Inf"),
                    "commitsCount": value(after, "stream_store_commit_seconds_count"),
                    "commitSeconds": value(after, "stream_store_commit_seconds_sum"),
                }

                # The host ends the show: the publish stops and the per-show series go.
                assert (await ann.request("end"))["ok"]
                ended = await until("the show's series gone", lambda s:
                                    value(s, "stream_publishes_live") == 0 and value(s, "stream_shows_live") == 0
                                    and not any(k[0] == "stream_show_watchers" for k in s))
                result["endedPublishes"] = value(ended, "stream_publishes_live")
                print(json.dumps(result))
            finally:
                camera.kill()
                camera.wait()


        asyncio.run(main())
        """#
}
