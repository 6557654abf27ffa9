/// The browser peer of ``WatchPageWebRTCTests/aBrowserHostReachesViewersAndItsLatencyIsPrinted()``: a host's page
/// whose "camera" is a canvas drawing the time code and frame counter where the test pattern has them (so the
/// viewers' reader is the one every latency figure here uses), a viewer's page over WebRTC and one over LL-HLS.
enum WatchPageLatencyPeers {
    static let script = #"""
        """A browser host goes live (its camera a canvas with the time code burnt in, its microphone a tone); a
        WebRTC viewer and an LL-HLS viewer (?mode=hls) read the time code of every frame they present. Prints one
        JSON object: Go live to each viewer's first frame and the latencies' percentiles."""
        import asyncio, json, sys, time
        from playwright.async_api import async_playwright
        from liveclient import mint
        sys.path.insert(0, sys.argv[6])
        from hls_browser import READER  # reads the time code and frame number burnt into each presented frame

        HTTP, SECRET, WORK, GEOMETRY, SECONDS = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], \
            json.loads(sys.argv[4]), float(sys.argv[5])
        SHOW = "show:mugs"

        # getUserMedia, replaced before the page's own script runs: a 1280x720 canvas at 30 fps with the wall
        # clock (centiseconds, 16 bits) and a frame counter as white and black blocks where the test pattern has
        # them, and a 440 Hz tone.
        CANVAS_CAMERA = """
        (geometry) => {
          navigator.mediaDevices.getUserMedia = async () => {
            const canvas = document.createElement('canvas');
            canvas.width = 1280; canvas.height = 720;
            const context = canvas.getContext('2d');
            const block = geometry.block * 1280;
            let frame = 0;
            const draw = () => {
              context.fillStyle = '#204060'; context.fillRect(0, 0, 1280, 720);
              const rows = [[geometry.frame, frame & 0xFFFF],
                            [geometry.timecode, Math.floor(Date.now() / 10) & 0xFFFF]];
              for (const [row, value] of rows) {
                row.x.forEach((x, bit) => {
                  const on = (value >> (row.x.length - 1 - bit)) & 1;
                  context.fillStyle = on ? '#ffffff' : '#000000';
                  context.fillRect(x * 1280 - block / 2, row.y * 720 - block / 2, block, block);
                });
              }
              frame += 1;
            };
            draw();
            setInterval(draw, 1000 / 30);
            const stream = canvas.captureStream(30);
            const audio = new AudioContext();
            const tone = audio.createOscillator();
            tone.frequency.value = 440;
            const sink = audio.createMediaStreamDestination();
            tone.connect(sink);
            tone.start();
            stream.addTrack(sink.stream.getAudioTracks()[0]);
            return stream;
          };
        }
        """


        def percentile(values, fraction):
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else None


        async def main():
            report = {}
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required",
                          "--use-fake-ui-for-media-stream"])
                errors = []

                async def open_page(path):
                    page = await (await browser.new_context(viewport={"width": 1280, "height": 720})).new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    await page.goto(HTTP + path)
                    await page.wait_for_function("() => document.getElementById('state').textContent !== "
                                                 "'Connecting…'", timeout=15_000)
                    return page

                host_context = await browser.new_context(viewport={"width": 1280, "height": 720})
                await host_context.add_init_script(f"({CANVAS_CAMERA})({json.dumps(GEOMETRY)})")
                host = await host_context.new_page()
                host.on("pageerror", lambda error: errors.append(str(error)))
                await host.goto(HTTP + f"/watch/{SHOW}#token={mint(SECRET, 'ann', 'Ann')}")
                await host.locator("#publish").wait_for(state="visible", timeout=15_000)
                # The viewers wait on the page before the show is live, as an audience does.
                webrtc = await open_page(f"/watch/{SHOW}#token={mint(SECRET, 'bob', 'Bob')}")
                hls = await open_page(f"/watch/{SHOW}?mode=hls#token={mint(SECRET, 'cid', 'Cid')}")
                for page in (webrtc, hls):
                    await page.evaluate(READER, GEOMETRY)
                started = time.time()
                await host.locator("#publish").click()
                for name, page in (("webrtc", webrtc), ("hls", hls)):
                    await page.wait_for_function("() => window.__shown.length > 0", timeout=20_000)
                    first = await page.evaluate("() => window.__shown[0].at")
                    report[f"{name}FirstFrameSeconds"] = round(first / 1000 - started, 2)
                marks = [await page.evaluate("() => window.__shown.length") for page in (webrtc, hls)]
                # Where the LL-HLS viewer's latency goes: how far it plays behind the end of what it has buffered.
                await hls.evaluate("""() => { window.__lags = []; setInterval(() => {
                    const video = document.querySelector('video'); const ranges = video.buffered;
                    if (ranges.length) window.__lags.push(ranges.end(ranges.length - 1) - video.currentTime);
                  }, 50); }""")
                await asyncio.sleep(SECONDS)
                lags = await hls.evaluate("() => window.__lags")
                report["hlsBufferedAheadP50"] = round(percentile(lags, 0.5) or -1, 2)
                for (name, page), mark in zip((("webrtc", webrtc), ("hls", hls)), marks):
                    shown = (await page.evaluate("() => window.__shown"))[mark:]
                    latencies = [entry["latency"] for entry in shown if 0 <= entry["latency"] < 10_000]
                    report[f"{name}Frames"] = len(latencies)
                    report[f"{name}LatencyP50"] = percentile(latencies, 0.5)
                    report[f"{name}LatencyP95"] = percentile(latencies, 0.95)
                    report[f"{name}Mode"] = await page.locator("#mode").text_content()
                report["errors"] = errors
                await browser.close()
            print(json.dumps(report))


        asyncio.run(main())
        """#
}
