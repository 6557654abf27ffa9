"""Plays a Stream page (LL-HLS, or the watch page's WebRTC) in Debian's Chromium (Playwright) and reports what the page showed.

Usage: python3 hls_browser.py URL SECONDS GEOMETRY_JSON [SCREENSHOT]
GEOMETRY_JSON: {"timecode": {"x": [16 fractions], "y": fraction}, "frame": {"x": [...], "y": fraction}} — where the
test pattern's time code and frame counter blocks are, as fractions of the picture (or "null" to skip reading them).
Prints one JSON object: the video's currentTime samples, the player's stats and state, and for every frame the page
presented, its burnt-in frame number and its latency (the page's wall clock when shown minus the time code).
"""
import asyncio
import json
import sys

from playwright.async_api import async_playwright

READER = """
(geometry) => {
  window.__shown = [];
  const video = document.querySelector('video');
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const read = (row, width) => {
    let value = 0;
    for (const x of row.x) {
      const offset = Math.min(width - 1, Math.floor(x * width)) * 4;
      value = (value << 1) | ((row.data[offset] + row.data[offset + 1] + row.data[offset + 2]) / 3 > 128 ? 1 : 0);
    }
    return value;
  };
  const onFrame = (now, metadata) => {
    const width = video.videoWidth, height = video.videoHeight;
    if (width && height && geometry) {
      canvas.width = width;
      canvas.height = height;
      context.drawImage(video, 0, 0, width, height);
      const shownAt = Date.now() - (performance.now() - metadata.expectedDisplayTime);
      const rowOf = (place) => ({ x: place.x,
        data: context.getImageData(0, Math.floor(place.y * height), width, 1).data });
      const code = read(rowOf(geometry.timecode), width);
      const frame = read(rowOf(geometry.frame), width);
      let difference = ((Math.floor(shownAt / 10) & 0xFFFF) - code) & 0xFFFF;
      if (difference >= 32768) difference -= 65536;
      window.__shown.push({ frame: frame, latency: difference * 10, mediaTime: metadata.mediaTime, at: shownAt });
    }
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
}
"""

SAMPLE = """
() => {
  const video = document.querySelector('video');
  const player = window.streamPlayer;
  return { mode: window.streamPlayer ? 'hls' : (window.streamWHEP ? 'webrtc' : null), time: video.currentTime, paused: video.paused, state: player ? player.state : null,
           stats: player ? player.stats : null, error: player && player.lastError ? player.lastError : null,
           status: (document.getElementById('status') || {}).textContent || null };
}
"""


async def main(url, seconds, geometry, screenshot):
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(url)
        # The watch page plays over WebRTC when it can (window.streamWHEP), else LL-HLS (window.streamPlayer).
        await page.wait_for_function("() => window.streamPlayer !== undefined || window.streamWHEP !== undefined",
                                     timeout=10_000)
        await page.evaluate(READER, geometry)
        samples = []
        for _ in range(int(seconds * 4)):
            await asyncio.sleep(0.25)
            samples.append(await page.evaluate(SAMPLE))
        shown = await page.evaluate("() => window.__shown")
        if screenshot:
            await page.screenshot(path=screenshot)
        await browser.close()
    print(json.dumps({"samples": samples, "shown": shown, "errors": errors}))


if __name__ == "__main__":
    geometry = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), geometry, sys.argv[4] if len(sys.argv) > 4 else None))
