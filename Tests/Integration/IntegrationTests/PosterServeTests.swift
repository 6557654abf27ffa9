import Foundation
import TestSupport
import Testing

/// `GET /v1/streams/{name}/poster.jpg` on a real `stream serve --shows`: ffmpeg publishes a red test picture with the
/// host's OBS key, Python (urllib, Pillow) fetches the poster and checks its size and colours, its ETag (304), that a
/// second request within ten seconds is the same poster (no second decode: `Age` and /metrics say so), the status's
/// poster URL, the watch page's link preview (`--public-url`: Python's `html.parser` reads `og:image` and fetches
/// it), and 404 before the show is live and after it ends.
@Suite(.serialized, .startsPeers) struct PosterServeTests {
    @Test func aLiveShowsPosterIsItsPictureAsAJPEG() throws {
        let served = try LiveShowServeTests.Served()
        // Again with /metrics on a port of its own, where the decodes are counted.
        let metricsPort = try FreePort.next()
        served.serveArguments = ["--metrics-listen", "127.0.0.1:\(metricsPort)",
                                 "--public-url", "http://127.0.0.1:\(served.httpPort)/"]
        served.process?.stop()
        try served.start()
        try Self.script.write(toFile: served.work.file("poster.py"), atomically: true, encoding: .utf8)
        let summary = try served.python("poster.py", [served.work.path, "http://127.0.0.1:\(metricsPort)"],
                                        timeout: 120)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any],
                                  "no summary: \(summary)")
        #expect(report["size"] as? [Int] == [640, 360], "\(report)")
        #expect(report["decodes"] as? Int == 1, "a cached request decoded again: \(report)")
        print("poster: first (decoding) request \(report["firstMs"] ?? "?") ms, cached \(report["cachedMs"] ?? "?") ms")
    }

    static let script = #"""
        """The poster's checks from a viewer's side; prints a JSON summary."""
        import asyncio, io, json, re, subprocess, sys, time, urllib.error, urllib.request
        from html.parser import HTMLParser
        from PIL import Image
        from liveclient import Client, mint

        BASE, SECRET, WORK, METRICS = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3], sys.argv[4]
        HTTP = BASE.replace("ws://", "http://", 1)
        POSTER = HTTP + "/v1/streams/show:mugs/poster.jpg"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


        def get(url, headers=None):
            try:
                with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=10) as reply:
                    return reply.status, dict(reply.headers), reply.read()
            except urllib.error.HTTPError as error:
                return error.code, dict(error.headers), error.read()


        async def main():
            status, _, body = get(POSTER)
            assert status == 404 and json.loads(body)["error"]["code"] == "not_found", (status, body)
            ann = await Client(BASE, "show:mugs", mint(SECRET, "ann"), label="ann").open()
            await ann.join()
            ingest = await ann.request("ingest")
            ffmpeg = subprocess.Popen(["ffmpeg", "-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                       "color=c=red:size=640x360:rate=15", "-t", "60", "-c:v", "libx264", "-preset",
                                       "ultrafast", "-tune", "zerolatency", "-g", "15", "-pix_fmt", "yuv420p", "-f",
                                       "flv", ingest["url"] + "/" + ingest["key"]],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(WORK + "/ffmpeg.log", "w"))
            try:
                await ann.wait(lambda c: {"event": "media", "media": "on", "main": "obs"} in c.events, timeout=20,
                               what="media on")
                deadline = time.monotonic() + 20
                while True:
                    started = time.perf_counter()
                    status, headers, body = get(POSTER)
                    first_ms = (time.perf_counter() - started) * 1000
                    if status == 200 or time.monotonic() > deadline:
                        break
                    assert status == 404, (status, body)
                    await asyncio.sleep(0.2)
                assert status == 200 and headers["Content-Type"] == "image/jpeg", (status, headers, body[:200])
                image = Image.open(io.BytesIO(body))
                assert image.format == "JPEG", image.format
                r, g, b = image.convert("RGB").resize((1, 1)).getpixel((0, 0))
                assert r > 200 and g < 50 and b < 50, ("not red", (r, g, b))
                etag = headers["ETag"]
                assert headers["Cache-Control"].startswith("public, max-age="), headers
                status, again, _ = get(POSTER, {"If-None-Match": etag})
                assert status == 304 and again["ETag"] == etag, (status, again)
                started = time.perf_counter()
                status, second, body2 = get(POSTER)
                cached_ms = (time.perf_counter() - started) * 1000
                assert status == 200 and second["ETag"] == etag and body2 == body, (status, second)
                assert int(second["Age"]) < 10, second
                card = json.loads(get(HTTP + "/v1/streams/show:mugs")[2])
                assert card["poster"] == "/v1/streams/show:mugs/poster.jpg", card

                class Preview(HTMLParser):
                    found = {}

                    def handle_starttag(self, tag, attributes):
                        attributes = dict(attributes)
                        if tag == "meta" and attributes.get("property", "").startswith("og:"):
                            self.found[attributes["property"]] = attributes.get("content")

                preview = Preview()
                preview.feed(get(HTTP + "/watch/show:mugs")[2].decode())
                assert preview.found.get("og:image") == POSTER, preview.found
                assert preview.found.get("og:title") == "show:mugs", preview.found
                status, linked, _ = get(preview.found["og:image"])
                assert status == 200 and linked["ETag"] == etag, (status, linked)
                text = get(METRICS + "/metrics")[2].decode()
                found = re.search(r"^stream_poster_decodes_total (\d+)", text, re.M)
                decodes = int(found.group(1)) if found else None
                assert (await ann.request("end"))["ok"]
                ffmpeg.wait(timeout=10)
                deadline = time.monotonic() + 10
                while get(POSTER)[0] != 404 and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                status, _, body = get(POSTER)
                assert status == 404, (status, body)
                print(json.dumps({"size": list(image.size), "colour": [r, g, b], "decodes": decodes,
                                  "firstMs": round(first_ms, 2), "cachedMs": round(cached_ms, 2)}))
            finally:
                ffmpeg.kill()


        asyncio.run(main())
        """#
}
