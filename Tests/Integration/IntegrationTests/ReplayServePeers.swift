/// The peers of ``ReplayServeTests``: the host as a protocol client of ``LiveShowPeers`` (`liveclient.py`), ffmpeg
/// publishing, ffprobe and ffmpeg reading the replay over HTTP, urllib as callers with and without a token, and
/// Debian's Chromium (Playwright) on the watch page.
enum ReplayServePeers {
    static let script = #"""
        """A show's replay from every side; prints one JSON object: the checks passed and the figures measured."""
        import asyncio, json, subprocess, sys, time, urllib.error, urllib.request
        from playwright.async_api import async_playwright
        from liveclient import Client, mint

        BASE, SECRET, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]
        HTTP = BASE.replace("ws://", "http://", 1)
        SHOW = "private:vod"
        PUBLISHED = 8.0
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        checks = []


        def check(condition, what):
            if not condition:
                raise AssertionError(what)
            checks.append(what)


        def get(url, headers=None, method="GET"):
            try:
                request = urllib.request.Request(url, headers=headers or {}, method=method)
                with opener.open(request, timeout=10) as reply:
                    return reply.status, dict(reply.headers), reply.read()
            except urllib.error.HTTPError as error:
                return error.code, dict(error.headers), error.read()


        def run(arguments, timeout=60):
            return subprocess.run(arguments, capture_output=True, text=True, timeout=timeout)


        async def main():
            ann_token = mint(SECRET, "ann", "Ann")
            ann = await Client(BASE, SHOW, ann_token, label="ann").open()
            check((await ann.join())["ok"], "the host joins")
            ingest = await ann.request("ingest")
            ffmpeg = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re",
                                       "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=15",
                                       "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                       "-t", str(PUBLISHED), "-c:v", "libx264", "-preset", "ultrafast", "-tune",
                                       "zerolatency", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "flv",
                                       ingest["url"] + "/" + ingest["key"]],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(WORK + "/ffmpeg.log", "w"))
            try:
                await ann.wait(lambda c: {"event": "media", "media": "on", "main": "obs"} in c.events, timeout=20,
                               what="media on")
                LIST = f"{HTTP}/v1/streams/{SHOW}/recordings"
                live = get(LIST + "?access_token=" + ann_token)
                check(live[0] == 200 and json.loads(live[2])["recordings"] == [],
                      f"while live nothing is listed: the file is being written {live[:1]} {live[2][:300]}")
                check(ffmpeg.wait(timeout=30) == 0, "ffmpeg published its 8 s")
                check((await ann.request("end"))["ok"], "the host ends the show")
            finally:
                ffmpeg.kill()

            # The replay is listed once finished (the main picture ends with the publish).
            deadline = time.monotonic() + 20
            while True:
                status, headers, body = get(LIST + "?access_token=" + ann_token)
                listing = json.loads(body) if status == 200 else {}
                if listing.get("recordings") or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            check(status == 200 and len(listing.get("recordings", [])) == 1, f"one replay listed: {status} {body[:400]}")
            check(headers.get("Cache-Control") == "private, no-cache", f"the list is private: {headers}")
            replay = listing["recordings"][0]
            check(listing["stream"] == SHOW and replay["container"] == "mp4", f"its shape: {replay}")
            check(abs(replay["duration"] - PUBLISHED) < 1.0, f"its duration is what was published: {replay}")
            check(replay["endedAt"] - replay["startedAt"] == round(replay["duration"] * 1000), f"times: {replay}")
            playlist_url = HTTP + replay["playlist"]
            file_url = HTTP + replay["file"]
            check("access_token=" in playlist_url, "addresses carry the token the list was asked with")

            # The playlist: VOD, byte ranges of the one file.
            status, headers, body = get(playlist_url)
            text = body.decode()
            check(status == 200 and headers["Content-Type"] == "application/vnd.apple.mpegurl", f"{status} {headers}")
            for tag in ["#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MAP:URI=", "BYTERANGE=", "#EXT-X-BYTERANGE:",
                        "#EXT-X-ENDLIST", "#EXT-X-INDEPENDENT-SEGMENTS"]:
                check(tag in text, f"the playlist has {tag}")
            segments = text.count("#EXTINF:")
            check(6 <= segments <= 10, f"a segment per 1 s keyframe: {segments}")
            # The file answers Range.
            status, headers, body = get(file_url, {"Range": "bytes=0-7"})
            check(status == 206 and body[4:8] == b"ftyp" and headers["Content-Range"].endswith("/" + str(replay["bytes"])),
                  f"Range on the file: {status} {headers} {body}")

            # ffprobe over HTTP: the playlist's duration; a seek to the middle decodes from there.
            probe = run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", playlist_url])
            duration = float(json.loads(probe.stdout)["format"]["duration"]) if probe.returncode == 0 else -1
            check(abs(duration - PUBLISHED) < 1.0, f"ffprobe reads the playlist: {duration} s {probe.stderr[-500:]}")
            whole = run(["ffmpeg", "-nostdin", "-v", "error", "-i", playlist_url, "-f", "null", "-"])
            check(whole.returncode == 0 and whole.stderr.strip() == "",
                  f"ffmpeg decodes the whole playlist cleanly: {whole.stderr[-500:]}")
            # Seeking: over HTTP Range in the file the playlist names (FFmpeg 5.1's HLS demuxer cannot seek in any
            # fMP4 playlist, its own `-hls_segment_type fmp4` output included: "Invalid NAL unit size" after the
            # seek; browsers seek in the playlist, below).
            frames = run(["ffprobe", "-v", "error", "-read_intervals", "4%+0.5", "-select_streams", "v:0",
                          "-show_entries", "frame=pts_time", "-of", "csv=p=0", file_url])
            times = [float(line) for line in frames.stdout.split() if line.strip()]
            check(frames.returncode == 0 and times and 3.0 <= times[0] <= 4.5 and frames.stderr.strip() == "",
                  f"ffprobe seeks to 4 s in the file: first frame at {times[:1]} {frames.stderr[-500:]}")
            seek = run(["ffmpeg", "-nostdin", "-v", "error", "-ss", "4", "-i", file_url, "-frames:v", "15",
                        "-f", "null", "-"])
            check(seek.returncode == 0 and seek.stderr.strip() == "", f"ffmpeg -ss 4 decodes: {seek.stderr[-500:]}")

            # The same permission as the show's status and live video: a visitor is refused; a signed-in user has
            # what the status gives them.
            card = get(f"{HTTP}/v1/streams/{SHOW}")[0]
            bob = mint(SECRET, "bob", "Bob")
            bob_card = get(f"{HTTP}/v1/streams/{SHOW}?access_token={bob}")[0]
            check(card == 401, f"the status refuses a visitor: {card}")
            hls = get(f"{HTTP}/hls/{SHOW}/main.m3u8")[0]
            check(hls == 401, f"its live video needs a token: {hls}")
            bare = replay["playlist"].split("?")[0]
            for path in [f"/v1/streams/{SHOW}/recordings", bare, bare.replace(".m3u8", ".mp4")]:
                check(get(HTTP + path)[0] == card, f"a visitor is refused {path} as the status: {card}")
                check(get(HTTP + path + "?access_token=" + bob)[0] == bob_card, f"bob gets {path} as the status: {bob_card}")
                check(get(HTTP + path, {"Authorization": "Bearer " + ann_token})[0] == 200, f"ann's bearer {path}")
            check(get(HTTP + bare.replace(".m3u8", "-no.m3u8") + "?access_token=" + ann_token)[0] == 404,
                  "an unknown replay is 404")

            # Chromium: the watch page lists the replay while the show is not live, plays it, and seeks.
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
                page = await browser.new_page()
                errors = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                await page.goto(f"{HTTP}/watch/{SHOW}#token={ann_token}")
                button = page.locator("#replay-list button")
                await button.first.wait_for(state="visible", timeout=20_000)
                check(await button.count() == 1, "the watch page lists the replay")
                await button.first.click()
                await page.wait_for_function("() => document.querySelector('#video').currentTime > 1",
                                             timeout=20_000)
                state = await page.evaluate("() => ({ duration: document.querySelector('#video').duration, "
                                            "controls: document.querySelector('#video').controls, "
                                            "curtain: document.getElementById('curtain').hidden })")
                check(abs(state["duration"] - PUBLISHED) < 1.0 and state["controls"] and state["curtain"],
                      f"it plays as VOD with its seek bar: {state}")
                started = time.monotonic()
                await page.evaluate("() => { document.querySelector('#video').currentTime = 6; }")
                await page.wait_for_function("() => { const v = document.querySelector('#video'); "
                                             "return !v.seeking && v.currentTime > 6.3 && !v.paused; }", timeout=15_000)
                seek_ms = (time.monotonic() - started) * 1000
                check(True, "a seek forward to 6 s plays on from there")
                await page.evaluate("() => { document.querySelector('#video').currentTime = 1; }")
                await page.wait_for_function("() => { const v = document.querySelector('#video'); "
                                             "return !v.seeking && v.currentTime > 1.3 && v.currentTime < 4; }",
                                             timeout=15_000)
                check(True, "a seek back to 1 s plays from there")
                await page.wait_for_function("() => document.querySelector('#video').ended", timeout=20_000)
                check(True, "the replay plays to its end")
                check(not errors, f"no page errors: {errors}")
                await browser.close()
            print(json.dumps({"checks": len(checks), "duration": replay["duration"], "bytes": replay["bytes"],
                              "segments": segments, "ffprobeDuration": duration, "seekMs": round(seek_ms)}))


        asyncio.run(main())
        """#
}
