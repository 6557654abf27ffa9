import Foundation
import TestSupport
import Testing

/// The player page of a plain publish (`/hls/APP/TAG/index.html`), in Debian's Chromium driven by Playwright: it
/// plays the test broadcast under the same Content-Security-Policy as the watch page (no inline script or style).
@Suite(.serialized) struct PlainPlayerPageTests {
    @Test func thePlayerPagePlaysThePublishUnderItsPolicy() throws {
        let server = try ServeHLSTests.Server()
        defer { server.stop() }
        let broadcaster = try BroadcasterProcess(url: "rtmp://127.0.0.1:\(server.rtmpPort)/live",
                                                 key: "plain-player-page-secret-7",
                                                 arguments: ["--quality", "480", "--duration", "30", "--pip", "off"])
        defer { broadcaster.stop() }
        let page = try server.hlsAddress().replacingOccurrences(of: "index.m3u8", with: "index.html")
        let head = try ServeHLSTests.head(page)
        #expect(head.status == 200 && head.fields["cache-control"] == "no-cache", "\(head)")
        #expect(head.fields["content-security-policy"]?.hasPrefix("default-src 'self'; script-src 'self'; "
                                                                  + "style-src 'self';") == true, "\(head)")
        #expect(head.fields["referrer-policy"] == "no-referrer", "\(head)")

        let report = try HLSPeers.playInBrowser(url: page, seconds: 6, geometry: ServeHLSTests.geometry)
        let played = report.samples.map(\.time)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect((played.last ?? 0) > (played.first { $0 > 0 } ?? .infinity) + 1,
                "the page's video time did not advance: \(played)")
        #expect(report.samples.contains { $0.status == "Live" }, "\(report.samples.compactMap(\.status))")
        // The pictures shown are the publisher's: their burnt-in frame numbers go forward.
        let frames = report.shown.map(\.frame)
        #expect(frames.count > 30 && (frames.last ?? 0) > (frames.first ?? 0), "\(frames.prefix(20))")
    }

    /// Issue 34 item 12 on the plain page: its video's own controls set the volume (kept across a reload) and
    /// pause; past 3 s behind live "Go live" shows, and brings the player back within the live window.
    @Test func theVolumeIsKeptAndGoLiveCatchesUpAfterAPause() throws {
        let server = try ServeHLSTests.Server()
        defer { server.stop() }
        let broadcaster = try BroadcasterProcess(url: "rtmp://127.0.0.1:\(server.rtmpPort)/live",
                                                 key: "plain-player-live-secret-8",
                                                 arguments: ["--quality", "480", "--duration", "40", "--pip", "off"])
        defer { broadcaster.stop() }
        let page = try server.hlsAddress().replacingOccurrences(of: "index.m3u8", with: "index.html")
        let script = server.work.file("plain_live.py")
        try Self.liveScript.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Subprocess.run("python3", [script, page], timeout: 90)
        #expect(result.status == 0, "\(result.stdout.suffix(1000)) \(result.stderr.suffix(3000))")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(report?["volume"] as? Double == 0.4, "\(line)")
        #expect((report?["behind"] as? Double ?? 0) > 3, "\(line)")
        #expect((report?["caughtUp"] as? Double ?? 99) < 1.5, "\(line)")
        #expect(report?["status"] as? String == "Behind live", "\(line)")
        #expect((report?["errors"] as? [String])?.isEmpty == true, "\(line)")
    }

    /// The viewer's part: the volume set as the video's slider sets it, a reload, a pause as its pause button
    /// does (the page is not told), Go live. Prints one JSON object.
    static let liveScript = #"""
        import asyncio, json, sys
        from playwright.async_api import async_playwright
        LAG = """() => {
          const video = document.querySelector('video');
          const ranges = video.buffered;
          return ranges.length ? ranges.end(ranges.length - 1) - video.currentTime : null;
        }"""
        PLAYING = "() => document.querySelector('video').currentTime > 1 && !document.querySelector('video').paused"


        async def main(url):
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
                page = await browser.new_page()
                errors = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                await page.goto(url)
                await page.wait_for_function(PLAYING, timeout=30_000)
                await page.evaluate("() => { document.querySelector('video').volume = 0.4; }")
                await page.reload()
                await page.wait_for_function(PLAYING, timeout=30_000)
                volume = await page.evaluate("() => document.querySelector('video').volume")
                await page.evaluate("() => document.querySelector('video').pause()")
                await page.locator("#go-live").wait_for(state="visible", timeout=15_000)
                status = await page.locator("#status").text_content()
                # Play on only well past the 3 s threshold: resumed just past it, a live edge that comes in late
                # under load (parts arrive in bursts) brings the player back within 3 s, and it follows again.
                await page.wait_for_function(f"() => ({LAG})() > 5.5", timeout=15_000)
                await page.evaluate("() => document.querySelector('video').play()")
                start = await page.evaluate("() => document.querySelector('video').currentTime")
                await page.wait_for_function(f"() => document.querySelector('video').currentTime > {start} + 1",
                                             timeout=5_000)
                behind = await page.evaluate(LAG)
                await page.locator("#go-live").click()
                await page.wait_for_function(f"() => ({LAG})() !== null && ({LAG})() < 1.5", timeout=5_000)
                await page.locator("#go-live").wait_for(state="hidden", timeout=2_000)
                caught = await page.evaluate(LAG)
                await browser.close()
            print(json.dumps({"volume": volume, "behind": behind, "caughtUp": caught, "status": status,
                              "errors": errors}))


        asyncio.run(main(sys.argv[1]))
        """#
}
