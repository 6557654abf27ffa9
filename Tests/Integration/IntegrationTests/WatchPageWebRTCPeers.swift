/// The browser peer of ``WatchPageWebRTCTests``: Debian's Chromium (Playwright) with a fake camera, microphone and
/// screen, and the protocol client of ``LiveShowPeers`` (`liveclient.py`) watching what the host's page does.
enum WatchPageWebRTCPeers {
    static let script = #"""
        """The watch page over WebRTC against a real `stream serve --shows`: Ann's page goes live (WHIP, tile
        camera), Bob's page plays it over WHEP, Ann shares her screen (tile screen), a ?mode=hls page plays LL-HLS,
        an OBS picture (our broadcaster over RTMP) made main plays over WHEP too (Bob follows it, a new page starts
        on it), and a browser that may not use UDP (as behind a firewall) falls back to LL-HLS by itself.
        Prints one JSON object: the checks passed and the times measured."""
        import asyncio, json, os, re, socket, subprocess, sys, time
        # aiortc and PyAV are imported before the scenario: importing them mid-way (about a second of this process's
        # CPU, beside three Chromium pages on two cores) froze Bob's video once, while the server had done nothing yet.
        import aioice.ice
        from aiortc import RTCPeerConnection, RTCSessionDescription
        from playwright.async_api import async_playwright
        from liveclient import Client, mint

        HTTP, SECRET, STREAM, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        SHOW = "show:mugs"
        checks = []
        report = {}


        def check(condition, what):
            if not condition:
                raise AssertionError(what)
            checks.append(what)


        async def until(page, expression, what, timeout=10_000):
            """Waits for a page condition with a bound; fails with what the page's lines said."""
            started = time.monotonic()
            try:
                await page.wait_for_function(expression, timeout=timeout)
            except Exception as error:
                seen = await page.evaluate("() => [document.getElementById('mode').textContent, "
                                           "document.getElementById('publish-status').textContent, "
                                           "document.getElementById('curtain-text').textContent]")
                raise AssertionError(f"{what} (not within {timeout} ms; the page said {seen}: {error})")
            checks.append(what)
            return time.monotonic() - started


        class Relay(asyncio.DatagramProtocol):
            """The host's camera path for its first WHIP session: a UDP relay between the page and the server's port,
            which the test cuts (it then drops everything both ways)."""
            def __init__(self, server_port):
                self.server_port, self.page, self.cut, self.back = server_port, None, False, None
            def datagram_received(self, data, addr):
                if self.cut:
                    return
                if addr[1] == self.server_port:
                    if self.page:
                        self.transport.sendto(data, self.page)
                else:
                    self.page = addr
                    self.transport.sendto(data, ("127.0.0.1", self.server_port))
            def connection_made(self, transport):
                self.transport = transport


        async def aiortc_frames(url, token, seconds=2):
            """aiortc as a WHEP player of `url`: the video frames it decodes in `seconds` after connecting."""
            import urllib.request
            # FIELD-NOTES: aioice offers only non-loopback addresses by default.
            aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
            pc = RTCPeerConnection()
            pc.addTransceiver("video", direction="recvonly")
            pc.addTransceiver("audio", direction="recvonly")
            frames = []

            async def consume(track):
                while True:
                    try:
                        await track.recv()
                    except Exception:
                        return
                    if track.kind == "video":
                        frames.append(1)

            pc.on("track", lambda track: asyncio.ensure_future(consume(track)))
            await pc.setLocalDescription(await pc.createOffer())
            request = urllib.request.Request(url, data=pc.localDescription.sdp.encode(), method="POST",
                                             headers={"Content-Type": "application/sdp",
                                                      "Authorization": "Bearer " + token})
            answer = await asyncio.get_running_loop().run_in_executor(
                None, lambda: urllib.request.urlopen(request, timeout=10).read().decode())
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
            for _ in range(100):
                if pc.connectionState == "connected":
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(seconds)
            await pc.close()
            return len(frames)


        async def main():
            ann = await Client("ws" + HTTP[4:], SHOW, mint(SECRET, "ann", "Ann"), label="ann").open()
            check((await ann.join())["ok"], "the host's protocol client joins")
            broadcast = None
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required",
                          "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                          "--auto-select-desktop-capture-source=Entire screen"])
                errors = []

                async def open_page(path):
                    page = await (await browser.new_context(viewport={"width": 1280, "height": 720})).new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    await page.goto(HTTP + path)
                    return page

                try:
                    # (a) Ann's page goes live with the fake camera: the show is live with tile camera. Its first
                    # camera session goes through a relay the test can cut.
                    relays = []

                    async def through_relay(route):
                        response = await route.fetch()
                        body = await response.text()
                        if response.status == 201 and not relays:
                            port = int(re.search(r"^m=\w+ (\d+) ", body, re.M).group(1))
                            _, relay = await asyncio.get_running_loop().create_datagram_endpoint(
                                lambda: Relay(port), local_addr=("127.0.0.1", 0))
                            relays.append(relay)
                            relay_port = relay.transport.get_extra_info("sockname")[1]
                            body = re.sub(r"^(m=\w+ )\d+ ", rf"\g<1>{relay_port} ", body, flags=re.M)
                            body = re.sub(r"^(a=candidate:\S+ \d+ \S+ \d+ \S+ )\d+", rf"\g<1>{relay_port}", body,
                                          flags=re.M)
                        await route.fulfill(response=response, body=body)

                    host_context = await browser.new_context(viewport={"width": 1280, "height": 720})
                    host = await host_context.new_page()
                    host.on("pageerror", lambda error: errors.append(str(error)))
                    await host.route("**/whip?tile=camera", through_relay)
                    await host.goto(HTTP + f"/watch/{SHOW}#token={mint(SECRET, 'ann', 'Ann')}")
                    await host.locator("#publish").wait_for(state="visible", timeout=15_000)
                    started = time.monotonic()
                    await host.locator("#publish").click()
                    await ann.wait(lambda c: any(e["event"] == "tiles" and "camera" in e["tiles"] for e in c.events),
                                   timeout=15, what="tile camera")
                    report["goLiveSeconds"] = round(time.monotonic() - started, 2)
                    check({"event": "state", "state": "live"} in ann.events, "the show is live")
                    await until(host, "() => document.getElementById('publish-status').textContent"
                                ".includes('Camera: live')", "the host's page says Camera: live")
                    check(await host.locator("#preview").is_visible(), "the preview shows in the picture area")
                    text = await host.locator("body").inner_text()
                    check("token" not in text.lower() and "eyJ" not in text, "no token in the page's text")

                    # The Camera toggle mutes the track, the session goes on.
                    await host.locator("#camera").click()
                    check(await host.evaluate("() => !document.getElementById('preview').srcObject"
                                              ".getVideoTracks()[0].enabled"), "Camera off disables the track")
                    await host.locator("#camera").click()
                    check(await host.locator("#camera").text_content() == "Camera on", "and Camera on again")

                    # (b) Bob plays the main picture over WebRTC.
                    bob = await open_page(f"/watch/{SHOW}#token={mint(SECRET, 'bob', 'Bob')}")
                    report["webrtcSeconds"] = round(await until(
                        bob, "() => window.streamWHEP && window.streamWHEP.pc"
                        " && window.streamWHEP.pc.connectionState === 'connected'",
                        "Bob's RTCPeerConnection connects", timeout=15_000), 2)
                    start = await bob.evaluate("() => document.querySelector('video').currentTime")
                    await until(bob, f"() => document.querySelector('video').currentTime > {start} + 1",
                                "Bob's video plays on", timeout=10_000)
                    await until(bob, "() => document.getElementById('mode').textContent.startsWith('WebRTC')",
                                "the mode line says WebRTC")
                    report["bobMode"] = await bob.locator("#mode").text_content()

                    # aiortc (another WebRTC stack) plays the main picture, the host's camera, over WHEP too.
                    decoded = await aiortc_frames(HTTP + f"/v1/streams/{SHOW}/whep", mint(SECRET, "dee", "Dee"))
                    check(decoded >= 10, f"aiortc decodes the browser host's picture over WHEP ({decoded} frames)")
                    report["aiortcFrames"] = decoded

                    # (c) Ann shares her screen: tiles camera and screen; she can choose the main picture.
                    await host.locator("#share-screen").click()
                    await ann.wait(lambda c: any(e["event"] == "tiles" and {"camera", "screen"} <= set(e["tiles"])
                                                 for e in c.events), timeout=15, what="tiles camera and screen")
                    checks.append("sharing the screen publishes tile screen")
                    await until(host, "() => document.querySelectorAll('#main-choice button').length === 3",
                                "the host can choose the main picture among camera, screen and Auto")
                    await host.locator("#main-choice button[data-tile='camera']").click()
                    await ann.wait(lambda c: any(e["event"] == "tiles" and e.get("main") == "camera"
                                                 for e in c.events), timeout=10, what="main camera")
                    checks.append("Main picture: Camera sends setMain")
                    start = await bob.evaluate("() => document.querySelector('video').currentTime")
                    await until(bob, f"() => document.querySelector('video').currentTime > {start} + 1"
                                " && window.streamWHEP.pc.connectionState === 'connected'",
                                "Bob's session follows the main picture and plays on")

                    # (c) Bob also opens the screen beside the main picture (the camera), then instead of it.
                    await bob.locator("#tile-choice button[data-tile='screen']").click()
                    await until(bob, "() => window.streamTileWHEP && window.streamTileWHEP.pc"
                                " && window.streamTileWHEP.pc.connectionState === 'connected'"
                                " && document.getElementById('tile-video').currentTime > 1",
                                "Bob plays the screen beside the main picture over WebRTC", timeout=15_000)
                    check(await bob.locator("#tile-label").text_content() == "Screen", "the small picture says Screen")
                    await host.screenshot(path=f"{WORK}/watch-host.png")
                    await bob.screenshot(path=f"{WORK}/watch-viewer.png")
                    await bob.locator("#tile-swap").click()
                    check(await bob.evaluate("() => document.getElementById('stage')"
                                             ".classList.contains('tile-instead')"), "Show instead swaps the pictures")
                    start = await bob.evaluate("() => document.querySelector('#video').currentTime")
                    await until(bob, f"() => document.querySelector('#video').currentTime > {start} + 0.5",
                                "the main picture plays on, small")
                    await bob.screenshot(path=f"{WORK}/watch-viewer-instead.png")
                    await bob.locator("#tile-close").click()
                    check(await bob.locator("#tile-view").is_hidden(), "Close ends the second picture")

                    # Bob's video has not frozen (Chrome's own count): not across aiortc's join, the switches of the
                    # main picture and the second picture, nor over 3 s more of steady play.
                    freezes_js = """async () => { let count = null;
                      (await window.streamWHEP.pc.getStats()).forEach((entry) => {
                        if (entry.type === 'inbound-rtp' && entry.kind === 'video') count = entry.freezeCount; });
                      return count; }"""
                    before = await bob.evaluate(freezes_js)
                    start = await bob.evaluate("() => document.querySelector('#video').currentTime")
                    await until(bob, f"() => document.querySelector('#video').currentTime > {start} + 3",
                                "Bob plays 3 s more of the main picture", timeout=10_000)
                    after = await bob.evaluate(freezes_js)
                    report["bobFreezes"] = {"acrossSwitches": before, "steady3s": after - before}
                    check(before == 0 and after == before,
                          f"Bob's video froze {before} times across the switches, {after - before} in 3 s more")

                    # (c') The camera's path is cut: the page notices, publishes the camera again in a new WHIP
                    # session (which takes the picture over), and Bob's session goes on with it.
                    check(len(relays) == 1, "the first camera session went through the relay")
                    cut = time.monotonic()
                    relays[0].cut = True
                    await until(host, "() => document.getElementById('publish-status').textContent"
                                ".includes('Camera: reconnecting')", "the host's page says the camera is reconnecting",
                                timeout=30_000)
                    await until(host, "() => document.getElementById('publish-status').textContent"
                                ".includes('Camera: live')", "and live again, by itself", timeout=30_000)
                    report["republishSeconds"] = round(time.monotonic() - cut, 1)
                    check(not any(e["event"] == "state" and e["state"] == "idle" for e in ann.events),
                          "the show never went off the air")
                    start = await bob.evaluate("() => document.querySelector('video').currentTime")
                    await until(bob, f"() => document.querySelector('video').currentTime > {start} + 1",
                                "Bob's video plays on after the host's reconnect", timeout=15_000)

                    # (d) ?mode=hls plays LL-HLS and says so.
                    hls = await open_page(f"/watch/{SHOW}?mode=hls#token={mint(SECRET, 'cid', 'Cid')}")
                    report["hlsSeconds"] = round(await until(
                        hls, "() => document.getElementById('mode').textContent.startsWith('LL-HLS')"
                        " && document.querySelector('video').currentTime > 0", "?mode=hls plays LL-HLS",
                        timeout=15_000), 2)

                    # (e) The main picture published over RTMP (our broadcaster, as OBS would): its H.264 and its
                    # sound (AAC made Opus) play over WHEP as well; Bob's session follows it.
                    ingest = await ann.request("ingest")
                    environment = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config", XDG_DATA_HOME=f"{WORK}/data",
                                       HOME=f"{WORK}/home")
                    broadcast = subprocess.Popen(
                        [STREAM, "broadcast", ingest["url"], "--key-stdin", "--source", "test", "--quality", "480",
                         "--fps", "24", "--pip", "off", "--duration", "120"], stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL, stderr=open(f"{WORK}/broadcast.err", "w"), env=environment)
                    broadcast.stdin.write((ingest["key"] + "\n").encode())
                    broadcast.stdin.close()
                    await ann.wait(lambda c: any(e["event"] == "tiles" and "obs" in e["tiles"] for e in c.events),
                                   timeout=30, what="tile obs")
                    check((await ann.request("setMain", tile="obs"))["ok"], "the host makes OBS the main picture")
                    start = await bob.evaluate("() => document.querySelector('video').currentTime")
                    await until(bob, f"() => document.querySelector('video').currentTime > {start} + 1"
                                " && window.streamWHEP.pc.connectionState === 'connected'"
                                " && document.getElementById('mode').textContent.startsWith('WebRTC')",
                                "Bob's session follows the OBS picture over WebRTC", timeout=15_000)
                    dan = await open_page(f"/watch/{SHOW}#token={mint(SECRET, 'dan', 'Dan')}")
                    await until(dan, "() => document.getElementById('state').textContent === 'Live'",
                                "Dan's page joins", timeout=15_000)
                    report["obsWebRTCSeconds"] = round(await until(
                        dan, "() => document.getElementById('mode').textContent.startsWith('WebRTC')"
                        " && document.querySelector('video').currentTime > 0",
                        "a new page plays the OBS picture over WebRTC", timeout=15_000), 2)

                    # (f) A viewer whose UDP path is dead (as behind a firewall): its WHEP answer is rewritten to
                    # send it to a socket that drops every datagram. WebRTC cannot connect, and the page plays
                    # LL-HLS within 5 s and says so.
                    drop = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    drop.bind(("127.0.0.1", 0))
                    drop_port = drop.getsockname()[1]

                    async def through_dead_path(route):
                        response = await route.fetch()
                        body = await response.text()
                        if response.status == 201:
                            body = re.sub(r"^(m=\w+ )\d+ ", rf"\g<1>{drop_port} ", body, flags=re.M)
                            body = re.sub(r"^(a=candidate:\S+ \d+ \S+ \d+ \S+ )\d+", rf"\g<1>{drop_port}", body,
                                          flags=re.M)
                        await route.fulfill(response=response, body=body)

                    eve = await (await browser.new_context(viewport={"width": 1280, "height": 720})).new_page()
                    eve.on("pageerror", lambda error: errors.append(str(error)))
                    await eve.route("**/whep", through_dead_path)
                    await eve.goto(HTTP + f"/watch/{SHOW}#token={mint(SECRET, 'eve', 'Eve')}")
                    await until(eve, "() => document.getElementById('state').textContent === 'Live'",
                                "Eve's page joins", timeout=15_000)
                    report["fallbackSeconds"] = round(await until(
                        eve, "() => document.getElementById('mode').textContent.startsWith('LL-HLS')"
                        " && document.querySelector('video').currentTime > 0",
                        "with its UDP path dead the page plays LL-HLS within 5 s and says so", timeout=5_000), 2)
                    report["fallbackMode"] = await eve.locator("#mode").text_content()
                    drop.close()

                    # End the show from the page: the protocol's end, the sessions closed.
                    await host.locator("#end-show").click()
                    await ann.wait(lambda c: {"event": "state", "state": "ended"} in c.events, timeout=10,
                                   what="ended")
                    await until(host, "() => document.getElementById('preview').hidden"
                                " && document.getElementById('publish-status').textContent === ''",
                                "End the show closes the page's sessions")
                    check(errors == [], f"no script errors: {errors}")
                finally:
                    if broadcast:
                        broadcast.kill()
                        broadcast.wait()
                    await browser.close()
            report["checks"] = len(checks)
            print(json.dumps(report))


        asyncio.run(main())
        """#
}
