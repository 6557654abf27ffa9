import Foundation
import TestSupport

/// aiortc 1.16 (an independent Python WebRTC stack) as a WHEP player: it POSTs a recvonly offer (H.264, VP8, Opus)
/// to a WHEP URL, decodes what comes for `seconds` after its first video frame, reports what it decoded, then
/// DELETEs its session twice. One line of JSON per step on its standard output; the summary has the frames of each
/// kind, the picture's mean colour, `tone`: the strongest frequency of the first second of sound (nil without), and
/// `ptsJump` and `stall`: the largest step between two decoded frames of their RTP timestamps and of the wall clock,
/// in seconds.
struct AiortcPlayer {
    let process: BackgroundProcess
    let directory: TemporaryDirectory

    /// With `dropAfter`, the server's media comes through a UDP relay that drops one video packet that many seconds
    /// after the first (then prints `{"dropped": 1}` before the summary), for the player to NACK. With `loss` (a
    /// fraction) the relay drops that share of all datagrams each way, at random (seeded; the summary's `lost`).
    /// With `token` it is sent as `Authorization: Bearer`; with `ticks` a line `{"tick": frames, "rgb": …}` comes
    /// every half second while it plays.
    init(whepURL: String, seconds: Double = 3, dropAfter: Double? = nil, loss: Double? = nil, token: String? = nil,
         ticks: Bool = false) throws {
        directory = try TemporaryDirectory("aiortc-whep")
        let script = directory.file("player.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        var environment = ["WHEP_URL": whepURL, "WHEP_SECONDS": String(seconds)]
        if let dropAfter { environment["WHEP_DROP_AFTER"] = String(dropAfter) }
        if let loss { environment["WHEP_LOSS"] = String(loss) }
        if let token { environment["WHEP_TOKEN"] = token }
        if ticks { environment["WHEP_TICKS"] = "1" }
        process = try BackgroundProcess("python3", [script], environment: environment,
                                        errorLog: directory.file("stderr.log"))
    }

    /// aiortc's standard error, for failures.
    var log: String {
        (try? String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// The next line of JSON, within `timeout` seconds.
    func next(timeout: TimeInterval = 30) async throws -> [String: Any] {
        let process = self.process
        let line = try await offPool { try process.readLine(timeout: timeout) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw WaitTimeout(description: "aiortc printed no JSON: \(line.prefix(200))\nstderr: \(log.suffix(2000))")
        }
        return object
    }

    func stop() {
        process.stop()
    }

    static let script = #"""
    import asyncio, json, os, random, re, time, urllib.request, urllib.error, urllib.parse

    URL, SECONDS = os.environ["WHEP_URL"], float(os.environ["WHEP_SECONDS"])
    DROP_AFTER = os.environ.get("WHEP_DROP_AFTER")
    LOSS = float(os.environ.get("WHEP_LOSS", "0"))
    chance = random.Random(11)
    lost = []
    TOKEN, TICKS = os.environ.get("WHEP_TOKEN"), os.environ.get("WHEP_TICKS")
    dropped = []

    class Side(asyncio.DatagramProtocol):
        def __init__(self, relay, name):
            self.relay, self.name = relay, name
        def datagram_received(self, data, addr):
            self.relay.forward(self.name, data, addr)

    class Relay:
        """aiortc <-> front; back <-> the server [drops one video packet on its way to aiortc]."""
        def __init__(self, server_port, video_pt, drop_after):
            self.server_port, self.video_pt, self.drop_after = server_port, video_pt, drop_after
            self.client, self.first_media = None, None
        async def start(self):
            loop = asyncio.get_running_loop()
            self.front, _ = await loop.create_datagram_endpoint(lambda: Side(self, "front"),
                                                                local_addr=("127.0.0.1", 0))
            self.back, _ = await loop.create_datagram_endpoint(lambda: Side(self, "back"),
                                                               local_addr=("127.0.0.1", 0))
            return self.front.get_extra_info("sockname")[1]
        def forward(self, side, data, addr):
            if side == "front":
                self.client = addr
            if LOSS and chance.random() < LOSS:
                lost.append(1)
                return
            if side == "front":
                self.back.sendto(data, ("127.0.0.1", self.server_port))
                return
            rtp = len(data) > 1 and 128 <= data[0] <= 191 and not 192 <= data[1] <= 223
            if rtp and self.first_media is None:
                self.first_media = time.time()
            # SRTP keeps the RTP header in the clear: the payload type is readable.
            if (self.drop_after is not None and rtp and (data[1] & 0x7F) == self.video_pt and not dropped
                    and time.time() - self.first_media >= self.drop_after):
                dropped.append(1)
                return
            if self.client:
                self.front.sendto(data, self.client)

    async def through_relay(answer):
        port = int(re.search(r"^m=\w+ (\d+) ", answer, re.M).group(1))
        video_pt = int(re.search(r"^m=video \d+ \S+ (\d+)", answer, re.M).group(1))
        relay = Relay(port, video_pt, float(DROP_AFTER) if DROP_AFTER else None)
        relay_port = await relay.start()
        answer = re.sub(r"^(m=\w+ )%d " % port, r"\g<1>%d " % relay_port, answer, flags=re.M)
        answer = re.sub(r"^(a=candidate:.* )%d( typ )" % port, r"\g<1>%d\2" % relay_port, answer, flags=re.M)
        return relay, answer

    def say(value):
        print(json.dumps(value), flush=True)

    def request(method, url, body=None):
        request = urllib.request.Request(url, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/sdp")
            if TOKEN:
                request.add_header("Authorization", "Bearer " + TOKEN)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers.get("Location"), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, None, error.read().decode()

    async def main():
        import aioice.ice
        # FIELD-NOTES: aioice offers only non-loopback addresses by default.
        aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
        from aiortc import RTCPeerConnection, RTCSessionDescription
        pc = RTCPeerConnection()
        pc.addTransceiver("video", direction="recvonly")
        pc.addTransceiver("audio", direction="recvonly")
        seen = {"video": 0, "audio": 0, "rgb": None, "first": None, "tone": None}
        sound = {"samples": [], "rate": 48000}
        first_frame = asyncio.Event()
        connected = asyncio.Event()
        times = {}

        async def consume(track):
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                if track.kind == "video":
                    seen["video"] += 1
                    # The largest step of the picture's RTP clock between two frames, and of the wall clock: a
                    # switch of pictures that starts at an old keyframe jumps the first, a freeze the second.
                    at = time.time()
                    if "pts" in times and frame.pts is not None:
                        step = (frame.pts - times["pts"]) % 2**32
                        step = step - 2**32 if step >= 2**31 else step
                        seen["ptsJump"] = max(seen.get("ptsJump", 0), round(step / 90000, 3))
                        seen["stall"] = max(seen.get("stall", 0), round(at - times["at"], 3))
                    times["pts"], times["at"] = frame.pts, at
                    if seen["first"] is None:
                        seen["first"] = time.time() - times.get("connected", time.time())
                        first_frame.set()
                    if seen["video"] % 10 == 1:
                        picture = frame.to_ndarray(format="rgb24")
                        seen["rgb"] = [round(float(picture[..., c].mean()), 1) for c in range(3)]
                else:
                    seen["audio"] += 1
                    if sum(len(chunk) for chunk in sound["samples"]) < frame.sample_rate:
                        import numpy
                        data = frame.to_ndarray().astype(numpy.float64).reshape(-1)
                        if frame.format.is_packed and len(frame.layout.channels) == 2:
                            data = data[::2]  # the left channel of interleaved stereo
                        sound["samples"].append(data)
                        sound["rate"] = frame.sample_rate

        @pc.on("track")
        def on_track(track):
            asyncio.ensure_future(consume(track))

        @pc.on("connectionstatechange")
        def changed():
            if pc.connectionState == "connected":
                times["connected"] = time.time()
                connected.set()

        await pc.setLocalDescription(await pc.createOffer())
        loop = asyncio.get_running_loop()
        status, location, body = await loop.run_in_executor(
            None, request, "POST", URL, pc.localDescription.sdp.encode())
        say({"status": status, "location": location, "body": body if status != 201 else ""})
        if status != 201:
            await pc.close()
            return
        if DROP_AFTER or LOSS:
            relay, body = await through_relay(body)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
        try:
            await asyncio.wait_for(connected.wait(), 20)
            say({"state": "connected"})
            await asyncio.wait_for(first_frame.wait(), 10)
        except asyncio.TimeoutError:
            say({"state": pc.connectionState, "video": seen["video"]})
            await pc.close()
            return
        if TICKS:
            end = time.time() + SECONDS
            while time.time() < end:
                await asyncio.sleep(0.5)
                say({"tick": seen["video"], "rgb": seen["rgb"], "state": pc.connectionState})
        else:
            await asyncio.sleep(SECONDS)
        seen["dropped"] = len(dropped)
        seen["lost"] = len(lost)
        if sound["samples"]:
            import numpy
            samples = numpy.concatenate(sound["samples"])
            if len(samples) >= 4800 and numpy.abs(samples).max() > 0:
                spectrum = numpy.abs(numpy.fft.rfft(samples * numpy.hanning(len(samples))))
                spectrum[0] = 0
                seen["tone"] = round(float(numpy.argmax(spectrum)) * sound["rate"] / len(samples), 1)
        say(seen)
        session = urllib.parse.urljoin(URL, location)
        deleted = (await loop.run_in_executor(None, request, "DELETE", session))[0]
        again = (await loop.run_in_executor(None, request, "DELETE", session))[0]
        say({"deleted": deleted, "again": again})
        await pc.close()

    asyncio.run(main())
    """#
}
