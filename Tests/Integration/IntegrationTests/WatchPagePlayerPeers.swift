/// The browser peer of ``WatchPagePlayerTests``: Debian's Chromium driven by Playwright (PyPI), with the protocol
/// client of ``LiveShowPeers`` (`liveclient.py`, beside it in the test's directory) as the host.
enum WatchPagePlayerPeers {
    static let script = #"""
        """The watch page's player controls in Chromium against a real `stream serve --shows`: the host (a protocol
        client) publishes `stream broadcast --source test` with its OBS key; Bob watches. Checks the show's title and
        description, the volume slider (the video's volume, kept across a reload), and that a pause leaves the
        player behind live with "Go live" shown, which brings it back within the live window. Prints one JSON
        object: the checks passed and the lags measured."""
        import asyncio, json, os, subprocess, sys, time
        from playwright.async_api import async_playwright
        from liveclient import Client, mint

        HTTP, SECRET, STREAM, WORK = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        SHOW = "show:mugs"
        checks = []
        LAG = """() => {
          const video = document.querySelector('video');
          const ranges = video.buffered;
          return ranges.length ? ranges.end(ranges.length - 1) - video.currentTime : null;
        }"""


        def check(condition, what):
            if not condition:
                raise AssertionError(what)
            checks.append(what)


        async def check_soon(page, expression, what, timeout=5_000):
            """What the page shows after an element's event (`pause`, `volumechange`), which comes a task after the
            element's own state: waited for, with a bound."""
            try:
                await page.wait_for_function(expression, timeout=timeout)
            except Exception as error:
                raise AssertionError(f"{what} (not within {timeout} ms: {error})")
            checks.append(what)


        async def main():
            ann = await Client("ws" + HTTP[4:], SHOW, mint(SECRET, "ann", "Ann"), label="ann").open()
            check((await ann.join())["ok"], "the host joins")
            ingest = await ann.request("ingest")
            environment = dict(os.environ, XDG_CONFIG_HOME=f"{WORK}/config", XDG_DATA_HOME=f"{WORK}/data",
                               HOME=f"{WORK}/home")
            broadcast = subprocess.Popen([STREAM, "broadcast", ingest["url"], "--key-stdin", "--source", "test",
                                          "--quality", "480", "--fps", "30", "--pip", "off", "--duration", "120"],
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
                    context = await browser.new_context(viewport={"width": 1280, "height": 720})
                    page = await context.new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    # LL-HLS (?mode=hls): what falls behind live is that player (a WebRTC one plays at the edge).
                    await page.goto(f"{HTTP}/watch/{SHOW}?mode=hls#token={mint(SECRET, 'bob', 'Bob')}")

                    # The title (with {id} filled in) is the heading and the tab's title; the description is text.
                    await page.wait_for_function("() => document.getElementById('state').textContent === 'Live'",
                                                 timeout=15_000)
                    heading = await page.locator("#title").text_content()
                    check(heading == "Mugs & mugs <live>", f"the title is the heading: {heading!r}")
                    check(await page.title() == "Mugs & mugs <live> — Stream", f"and the tab's: {await page.title()!r}")
                    description = page.locator("#description")
                    check(await description.is_visible(), "the description shows under the picture")
                    text = await description.evaluate("(node) => node.textContent")
                    check(text == "Line one <b>not bold</b>\nLine two", f"the description as plain text: {text!r}")
                    check(await description.locator("b").count() == 0, "markup in the description stays text")

                    # The volume: Sound on, then the slider from the keyboard sets the video's volume; a reload
                    # keeps it, and the first click turns the sound back on.
                    await page.wait_for_function("() => document.querySelector('video').currentTime > 1",
                                                 timeout=30_000)
                    await page.locator("#sound").click()
                    check(not await page.evaluate("() => document.querySelector('video').muted"), "Sound turns it on")
                    await page.locator("#volume").focus()
                    for _ in range(6):
                        await page.keyboard.press("ArrowLeft")
                    volume = await page.evaluate("() => document.querySelector('video').volume")
                    check(abs(volume - 0.7) < 0.001, f"the slider sets the video's volume ({volume})")
                    await page.reload()
                    await page.wait_for_function("() => document.querySelector('video').currentTime > 0.5",
                                                 timeout=30_000)
                    state = await page.evaluate("() => ({ volume: document.querySelector('video').volume, "
                                                "muted: document.querySelector('video').muted })")
                    check(abs(state["volume"] - 0.7) < 0.001 and state["muted"],
                          f"a reload keeps the volume and starts muted, as browsers autoplay: {state}")
                    await page.locator("#title").click()
                    await page.wait_for_function("() => !document.querySelector('video').muted", timeout=5_000)
                    await check_soon(page, "() => document.getElementById('volume').value === '70'",
                                     "the first click brings back the sound it had, at 70")

                    # Behind live: a pause (key k) holds the player; past 3 s behind "Go live" shows; playing on
                    # keeps it behind; Go live brings it back within the live window and hides the button.
                    await page.wait_for_function("() => window.streamPlayer && window.streamPlayer.behind === false"
                                                 " && document.querySelector('video').currentTime > 0.5")
                    await page.locator("body").press("k")
                    await page.wait_for_function("() => document.querySelector('video').paused", timeout=2_000)
                    await check_soon(page, "() => document.getElementById('pause').textContent === 'Play'",
                                     "the pause button says Play")
                    await page.locator("#go-live").wait_for(state="visible", timeout=15_000)
                    # Play on only well past the 3 s threshold: resumed just past it, a live edge that comes in
                    # late under load brings the player back within 3 s, and it follows the edge again.
                    await page.wait_for_function(f"() => ({LAG})() > 5.5", timeout=15_000)
                    await page.locator("#pause").click()
                    await page.wait_for_function("() => !document.querySelector('video').paused", timeout=5_000)
                    start = await page.evaluate("() => document.querySelector('video').currentTime")
                    await page.wait_for_function(
                        f"() => document.querySelector('video').currentTime > {start} + 1", timeout=5_000)
                    behind = await page.evaluate(LAG)
                    player = await page.evaluate("() => ({ following: window.streamPlayer.following, "
                                                 "stats: window.streamPlayer.stats })")
                    check(behind > 3 and await page.locator("#go-live").is_visible(),
                          f"playing on after the pause stays behind live ({behind:.2f} s) with Go live shown: "
                          f"{player}")
                    await page.locator("#go-live").click()
                    await page.wait_for_function(f"() => ({LAG})() !== null && ({LAG})() < 1.5", timeout=5_000)
                    caught = await page.evaluate(LAG)
                    await check_soon(page, "() => document.getElementById('go-live').getClientRects().length === 0",
                                     "Go live hides at the live edge")
                    start = await page.evaluate("() => document.querySelector('video').currentTime")
                    await page.wait_for_function(
                        f"() => document.querySelector('video').currentTime > {start} + 1", timeout=5_000)
                    after = await page.evaluate(LAG)
                    check(after < 2, f"and the player follows the live edge again ({after:.2f} s behind)")

                    # A show without a title: the stream's name is the heading, and no description.
                    bare = await (await browser.new_context()).new_page()
                    bare.on("pageerror", lambda error: errors.append(str(error)))
                    await bare.goto(f"{HTTP}/watch/bare:mugs")
                    await bare.wait_for_function("() => document.getElementById('state').dataset.state !== "
                                                 "'connecting'", timeout=10_000)
                    check(await bare.locator("#title").text_content() == "bare:mugs"
                          and await bare.title() == "bare:mugs — Stream", "without a title, the stream's name")
                    check(await bare.locator("#description").is_hidden(), "without a description, none")
                    check(errors == [], f"no script errors: {errors}")
                    report = {"checks": len(checks), "behindAfterPause": round(behind, 2),
                              "lagAfterGoLive": round(caught, 2), "lagOneSecondLater": round(after, 2)}
                    await browser.close()
            finally:
                broadcast.kill()
                broadcast.wait()
            print(json.dumps(report))


        asyncio.run(main())
        """#
}
