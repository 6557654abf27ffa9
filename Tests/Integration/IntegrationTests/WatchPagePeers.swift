/// The watch page's browser peer: Debian's Chromium driven by Playwright (PyPI), with the live-show protocol client
/// of ``LiveShowPeers`` as the host. Written to the test's directory beside `liveclient.py` and run with `python3`.
enum WatchPagePeers {
    static let script = #"""
        """The watch page in Debian's Chromium (Playwright) against a real `stream serve --shows`: the host (a
        protocol client) publishes `stream broadcast --source test` with its OBS key; Bob (viewer) and Max (mod) watch
        in two browser contexts. Checks the picture plays and shows the test pattern, the chat both ways, reactions and
        the count, Max's ban ending Bob's page, and the end of the show. Prints one JSON object: the checks passed and
        the latency of every frame Bob's page presented (its wall clock minus the time code burnt into the frame)."""
        import asyncio, json, os, subprocess, sys, time
        from playwright.async_api import async_playwright
        from liveclient import Client, mint

        HTTP, SECRET, STREAM, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        GEOMETRY, SCREENSHOT, MODE = json.loads(sys.argv[5]), sys.argv[6], sys.argv[7]
        LATENCY_SECONDS = float(sys.argv[8])
        sys.path.insert(0, sys.argv[9])
        from hls_browser import READER  # reads the time code and frame number burnt into each presented frame
        SHOW = "show:mugs"
        checks = []

        FLOATS = """
        () => {
          window.__floats = [];
          new MutationObserver((records) => {
            for (const record of records) for (const node of record.addedNodes) {
              if (node.dataset && node.dataset.reaction) window.__floats.push(node.dataset.reaction);
            }
          }).observe(document.getElementById('reactions-layer'), { childList: true });
        }
        """


        def check(condition, what):
            if not condition:
                raise AssertionError(what)
            checks.append(what)


        def rgb_pixels(png, width, height):
            """The screenshot's pixels, scaled to width x height, by ffmpeg."""
            raw = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", png,
                                  "-vf", f"scale={width}:{height}", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                                 capture_output=True, check=True).stdout
            return lambda x, y: tuple(raw[(y * width + x) * 3:(y * width + x) * 3 + 3])


        async def text_of(page, selector):
            return (await page.locator(selector).text_content() or "").strip()


        async def main():
            ann = await Client("ws" + HTTP[4:], SHOW, mint(SECRET, "ann", "Ann"), label="ann").open()
            check((await ann.join())["ok"], "the host joins")
            ingest = await ann.request("ingest")
            check(ingest["ok"], "the host gets its OBS key")
            environment = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config", XDG_DATA_HOME=f"{WORK}/data",
                               HOME=f"{WORK}/home")
            broadcast = subprocess.Popen([STREAM, "broadcast", ingest["url"], "--key-stdin", "--source", "test",
                                          "--quality", "480", "--fps", "30", "--pip", "on", "--duration", "120"],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                         stderr=open(f"{WORK}/broadcast.err", "w"), env=environment)
            broadcast.stdin.write((ingest["key"] + "\n").encode())
            broadcast.stdin.close()
            report = {}
            try:
                await ann.wait(lambda c: {"event": "state", "state": "live"} in c.events, timeout=30, what="live")
                async with async_playwright() as playwright:
                    browser = await playwright.chromium.launch(
                        executable_path="/usr/bin/chromium",
                        args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
                    errors = []
                    pages = {}
                    for user, name in [("bob", "Bob"), ("max", "Max")]:
                        context = await browser.new_context(viewport={"width": 1280, "height": 720})
                        page = await context.new_page()
                        page.on("pageerror", lambda error: errors.append(str(error)))
                        query = {"plain": "?mode=plain", "low-latency": "?mode=hls"}.get(MODE, "")
                        await page.goto(f"{HTTP}/watch/{SHOW}{query}#token={mint(SECRET, user, name)}")
                        check("#token" not in page.url, f"{name}'s token leaves the address bar")
                        if user == "bob":
                            await page.evaluate(READER, GEOMETRY)
                        await page.evaluate(FLOATS)
                        pages[user] = page
                    bob, max_ = pages["bob"], pages["max"]

                    # The picture plays: state live, the video's time advances, the pixels are the test pattern.
                    for page in (bob, max_):
                        await page.wait_for_function("() => document.getElementById('state').textContent === 'Live'")
                    await bob.wait_for_function("() => document.querySelector('video').currentTime > 1", timeout=30_000)
                    before = await bob.evaluate("() => document.querySelector('video').currentTime")
                    first = await bob.evaluate("() => window.__shown.length")
                    await asyncio.sleep(LATENCY_SECONDS)
                    shown = (await bob.evaluate("() => window.__shown"))[first:]
                    after = await bob.evaluate("() => document.querySelector('video').currentTime")
                    check(after - before > LATENCY_SECONDS * 0.7,
                          f"the video's time advances ({before:.2f} -> {after:.2f})")
                    check(await bob.locator("#curtain").is_hidden(), "nothing covers the picture while it plays")
                    await bob.locator("#video").screenshot(path=f"{WORK}/video.png")
                    pixel = rgb_pixels(f"{WORK}/video.png", 320, 180)
                    bars = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0), (191, 0, 191), (191, 0, 0),
                            (0, 0, 191), (0, 0, 0)]
                    # Two rows: between the time code and the sliding box, and lower down beside the PiP (bottom right).
                    for y, count in [(0.415, 8), (0.66, 6)]:
                        for index, expected in enumerate(bars[:count]):
                            seen = pixel(int((index + 0.5) * 320 / 8), int(y * 180))
                            check(all(abs(a - b) <= 48 for a, b in zip(seen, expected)),
                                  f"bar {index} of the test pattern at {y}: {seen} ~ {expected}")
                    frames = [s["frame"] for s in shown]
                    check(len(shown) > LATENCY_SECONDS * 10 and frames == sorted(frames),
                          f"frames presented in order ({len(shown)})")

                    # The count: Bob and Max (the host is not counted).
                    for page in (bob, max_):
                        await page.wait_for_function("() => document.getElementById('viewers').dataset.count === '2'")
                    check(await text_of(bob, "#viewers") == "2 watching", "the count in words")

                    # An empty chat says so and invites a message (issue 34 item 12); the first message replaces it.
                    check(await bob.locator("#chat-empty").is_visible()
                          and await text_of(bob, "#chat-empty") == "No messages yet. Say hello!",
                          "an empty chat has a prompt")

                    # Chat both ways, written with the keyboard.
                    await bob.locator("#text").fill("hello from Bob")
                    await bob.locator("#text").press("Enter")
                    await max_.locator("#messages .message", has_text="hello from Bob").wait_for()
                    check(await max_.locator("#chat-empty").is_hidden(), "the prompt goes with the first message")
                    await max_.locator("#text").fill("hi Bob, welcome")
                    await max_.locator("#text").press("Enter")
                    await bob.locator("#messages .message", has_text="hi Bob, welcome").wait_for()
                    reply = bob.locator("#messages .message", has_text="hi Bob, welcome")
                    check(await reply.locator(".role").text_content() == "mod", "a mod's message says so")
                    check(await bob.locator("#messages .message", has_text="hello from Bob").count() == 1,
                          "the sender sees its message once")
                    check(await bob.locator("details.moderate").count() == 0, "a viewer has no moderation actions")
                    # The compose box counts code points as the server does (issue 34 G: maxlength counted UTF-16
                    # units and stopped 500 emoji at 250); what goes past 500 is cut at 500 code points.
                    await bob.locator("#text").focus()
                    await bob.keyboard.insert_text("\U0001F3A5" * 500)
                    typed = await bob.evaluate("() => Array.from(document.getElementById('text').value).length")
                    check(typed == 500, f"500 emoji fit in the compose box ({typed} code points)")
                    await bob.keyboard.insert_text("x")
                    typed = await bob.evaluate("() => Array.from(document.getElementById('text').value).length")
                    check(typed == 500, f"the 501st code point is cut ({typed})")
                    await bob.locator("#text").fill("")
                    own = max_.locator("#messages .message", has_text="hi Bob, welcome")
                    check(await own.locator("button", has_text="Pin").count() == 1
                          and await own.locator("button", has_text="Ban").count() == 0
                          and await own.locator("button", has_text="Delete").count() == 0,
                          "a mod may pin its own message, not delete it or ban itself")

                    # Reactions float over the other's picture.
                    await bob.locator("#reaction-buttons button[data-reaction=heart]").click()
                    await max_.wait_for_function("() => window.__floats.includes('heart')")
                    await max_.locator("#reaction-buttons button[data-reaction=fire]").click()
                    await bob.wait_for_function("() => window.__floats.includes('fire')")
                    check(True, "each sees the other's reaction")
                    # 25 reactions at once: past the server's rate the page says so and the buttons wait (issue 34
                    # item 12: they were dropped with no sign).
                    await bob.evaluate("""() => {
                        const button = document.querySelector('#reaction-buttons button[data-reaction=clap]');
                        for (let i = 0; i < 25; i++) button.click();
                    }""")
                    await bob.locator("#reaction-note:not([hidden])", has_text="Too fast").wait_for()
                    check(await bob.locator("#reaction-buttons button[data-reaction=clap]").is_disabled(),
                          "the reaction buttons wait out the limit")
                    await bob.locator("#reaction-note").wait_for(state="hidden", timeout=5_000)
                    check(await bob.locator("#reaction-buttons button[data-reaction=clap]").is_enabled(),
                          "and come back")

                    # The pinned message, and slow mode's wait said in words.
                    line = max_.locator("#messages .message", has_text="hello from Bob")
                    await line.locator("summary").click()
                    await line.get_by_role("button", name="Pin", exact=True).click()
                    await bob.locator("#pinned:not([hidden])", has_text="hello from Bob").wait_for()
                    await max_.locator("#slow-select").select_option("30")
                    await bob.locator("#slow-note", has_text="one message every 30 s").wait_for()
                    await bob.locator("#text").fill("second")
                    await bob.locator("#text").press("Enter")
                    await bob.locator("#slow-note", has_text="You can write again in").wait_for()
                    check(await bob.locator("#send").is_disabled(), "the send button waits out slow mode")
                    if SCREENSHOT:
                        for kind in ("heart", "clap", "heart", "fire"):
                            await max_.locator(f"#reaction-buttons button[data-reaction={kind}]").click()
                        await max_.wait_for_function(
                            "() => document.querySelectorAll('#reactions-layer .float').length > 2")
                        await line.locator("summary").click()
                        await max_.screenshot(path=SCREENSHOT)
                        await max_.keyboard.press("Escape")
                        check(not await line.locator("details").evaluate("(d) => d.open"), "Escape closes the menu")

                    # Max bans Bob from the keyboard: Bob's page ends with a message.
                    await line.locator("summary").focus()
                    await max_.keyboard.press("Enter")
                    await line.get_by_role("button", name="Ban").focus()
                    await max_.keyboard.press("Enter")
                    await bob.locator("#curtain-text", has_text="You were banned from this stream.").wait_for()
                    await max_.locator("#messages .system", has_text="Bob is banned.").wait_for()
                    check(await bob.locator("#text").is_disabled(), "the banned page cannot write")

                    # Refusals and roles said in words, to a visitor (no token).
                    visitor = await (await browser.new_context()).new_page()
                    visitor.on("pageerror", lambda error: errors.append(str(error)))
                    for stream, words in [("private:mugs", "This stream is for signed-in viewers only"),
                                          ("nope:mugs", "There is no stream called “nope:mugs”."),
                                          ("quiet:mugs", "You can watch this stream but not write in its chat.")]:
                        await visitor.goto(f"{HTTP}/watch/{stream}")
                        await visitor.get_by_text(words).wait_for()
                        check(True, f"{stream}: {words}")
                    check(await visitor.locator("#text").is_disabled(), "a read-only visitor cannot write")

                    # On a phone the picture's controls (pause, sound, volume, full screen) sit under it, not over it.
                    phone = await (await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                                             has_touch=True)).new_page()
                    phone.on("pageerror", lambda error: errors.append(str(error)))
                    await phone.goto(f"{HTTP}/watch/{SHOW}#token={mint(SECRET, 'pat', 'Pat')}")
                    await phone.wait_for_function("() => document.getElementById('state').textContent === 'Live'")
                    video = await phone.locator("#video").bounding_box()
                    for control in ("#pause", "#sound", "#volume", "#fullscreen"):
                        box = await phone.locator(control).bounding_box()
                        covers = (box["x"] < video["x"] + video["width"] and video["x"] < box["x"] + box["width"]
                                  and box["y"] < video["y"] + video["height"] and video["y"] < box["y"] + box["height"])
                        check(not covers and box["y"] < 844, f"{control} is under the picture on a phone: {box} {video}")

                    # The host ends the show: "Ended", and no count of who is still on the page.
                    check((await ann.request("end"))["ok"], "the host ends the show")
                    await max_.wait_for_function("() => document.getElementById('state').textContent === 'Ended'")
                    await max_.locator("#curtain-text", has_text="The show has ended.").wait_for()
                    check(True, "the page says the show ended")
                    check(await max_.locator("#viewers").is_hidden(), "an ended show shows no count")
                    check(errors == [], f"no script errors: {errors}")
                    latencies = sorted(s["latency"] for s in shown)
                    report = {"checks": len(checks), "mode": MODE, "frames": len(shown),
                              "latencyP50": latencies[len(latencies) // 2],
                              "latencyP90": latencies[min(len(latencies) - 1, len(latencies) * 9 // 10)]}
                    await browser.close()
            finally:
                broadcast.kill()
                broadcast.wait()
            print(json.dumps(report))


        asyncio.run(main())
        """#

    /// `stream demo`'s watch page as a visitor sees it: the picture plays, a message, the count, and the end.
    static let demo = #"""
        """`stream demo`'s watch page in Chromium: a visitor (no token) sees the test broadcast play over WebRTC,
        writes in the chat, is counted; the host link goes live from a fake camera; the visitor sees the show end
        when the demo's time is up. Prints one JSON object."""
        import asyncio, json, sys
        from playwright.async_api import async_playwright


        async def main(url, host_url):
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required",
                          "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
                page = await browser.new_page()
                errors = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                await page.goto(url)
                await page.wait_for_function("() => document.getElementById('state').textContent === 'Live'",
                                             timeout=30_000)
                await page.wait_for_function("() => document.querySelector('video').currentTime > 2", timeout=30_000)
                await page.wait_for_function("() => document.getElementById('mode').textContent !== ''")
                mode = await page.locator("#mode").text_content()
                # The host link: the page with the host's development token goes live from the (fake) camera.
                host = await (await browser.new_context()).new_page()
                host.on("pageerror", lambda error: errors.append(str(error)))
                await host.goto(host_url)
                await host.locator("#publish").wait_for(state="visible", timeout=15_000)
                await host.locator("#publish").click()
                await host.wait_for_function("() => document.getElementById('publish-status').textContent"
                                             ".includes('Camera: live')", timeout=15_000)
                host_status = await host.locator("#publish-status").text_content()
                await page.locator("#text").fill("hello demo")
                await page.locator("#text").press("Enter")
                await page.locator("#messages .message", has_text="hello demo").wait_for()
                await page.wait_for_function("() => document.getElementById('viewers').dataset.count === '1'")
                count = await page.locator("#viewers").text_content()
                you = await page.locator("#you").text_content()
                # The visitor chooses a name, writes under it, reloads: the same visitor (its token kept), the same
                # name, both messages its own (issue 34 items 5 and 12).
                token = await page.evaluate("() => localStorage.getItem('stream-visitor-token')")
                await page.locator("#visitor-rename").click()
                # The name field counts code points as the server does (64), not UTF-16 units (32 emoji).
                await page.locator("#visitor-name").focus()
                await page.keyboard.insert_text("\U0001F3A5" * 65)
                typed = await page.evaluate("() => Array.from(document.getElementById('visitor-name').value).length")
                assert typed == 64, f"64 emoji fit in the name field, the 65th is cut ({typed} code points)"
                await page.locator("#visitor-name").fill("Zoë")
                await page.locator("#visitor-form button[type=submit]").click()
                await page.locator("#visitor-shown", has_text="Zoë").wait_for()
                await page.wait_for_function("() => !document.getElementById('text').disabled")
                await page.locator("#text").fill("renamed")
                await page.locator("#text").press("Enter")
                await page.locator("#messages .message.mine", has_text="Zoë").wait_for()
                await page.reload()
                await page.locator("#visitor-shown", has_text="Zoë").wait_for()
                await page.locator("#messages .message", has_text="renamed").wait_for()
                mine = await page.locator("#messages .message.mine").count()
                same = token is not None and token == await page.evaluate(
                    "() => localStorage.getItem('stream-visitor-token')")
                await page.wait_for_function("() => document.getElementById('viewers').dataset.count === '1'")
                await page.wait_for_function("() => document.getElementById('state').textContent === 'Ended'",
                                             timeout=60_000)
                ended = await page.locator("#curtain-text").text_content()
                await browser.close()
            print(json.dumps({"count": count, "you": you, "ended": ended, "errors": errors, "mine": mine,
                              "sameVisitor": same, "mode": mode, "hostStatus": host_status}))


        asyncio.run(main(sys.argv[1], sys.argv[2]))
        """#
}
