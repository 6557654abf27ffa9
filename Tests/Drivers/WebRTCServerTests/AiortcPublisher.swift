import Foundation
import TestSupport

/// aiortc 1.16 (an independent Python WebRTC stack) as a WHIP publisher: it sends its own test video (H.264 through
/// PyAV's libx264) and audio (Opus) to our server. Driven through lines of JSON on its standard output and files in
/// its directory, so that a test can answer the offer in-process or let it POST to a WHIP URL itself.
struct AiortcPublisher {
    let process: BackgroundProcess
    let directory: TemporaryDirectory

    /// Starts aiortc. With `whipURL` it POSTs its offer there with `key` as the bearer token and prints
    /// `{"status": …, "location": …}` (then `{"state": "connected"}` once connected); without, it prints
    /// `{"offer": …}` and waits for `answer.sdp` in its directory. With `dropAfter` (the in-process mode only) its
    /// media goes through a UDP relay that drops one video packet that many seconds after the first, and every copy
    /// of it resent on a NACK, then prints `{"dropped": 1}`. With `loss` (a fraction; either mode) the relay drops that share of the datagrams each way,
    /// at random (seeded), and the last line (its state once disconnected) says how many it lost (`"lost"`).
    /// With `colour` (RGB) the video is that colour, whole, instead of aiortc's blank frames: a player's decoded
    /// picture can then be told from a blank one. With `tone` (hertz) the audio is that sine at half scale, 48 kHz,
    /// instead of aiortc's 8 kHz silence: a transcode's output can then be told from silence.
    init(whipURL: String? = nil, key: String? = nil, dropAfter: Double? = nil, loss: Double? = nil,
         colour: [Int]? = nil, tone: Double? = nil) throws {
        directory = try TemporaryDirectory("aiortc-whip")
        let script = directory.file("publisher.py")
        try Self.script.write(toFile: script, atomically: true, encoding: .utf8)
        var environment: [String: String] = [:]
        if let whipURL { environment["WHIP_URL"] = whipURL }
        if let key { environment["WHIP_KEY"] = key }
        if let dropAfter { environment["WHIP_DROP_AFTER"] = String(dropAfter) }
        if let loss { environment["WHIP_LOSS"] = String(loss) }
        if let tone { environment["WHIP_TONE"] = String(tone) }
        if let colour { environment["WHIP_COLOUR"] = colour.map(String.init).joined(separator: ",") }
        process = try BackgroundProcess("python3", [script, directory.path], environment: environment,
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

    /// Gives aiortc the answer (the in-process mode).
    func answer(_ sdp: String) throws {
        try sdp.write(toFile: directory.file("answer.tmp"), atomically: false, encoding: .utf8)
        guard rename(directory.file("answer.tmp"), directory.file("answer.sdp")) == 0 else {
            throw WaitTimeout(description: "cannot hand aiortc the answer")
        }
    }

    func stop() {
        process.stop()
    }

    static let script = #"""
    import asyncio, json, os, random, re, sys, time, urllib.request, urllib.error

    DIR = sys.argv[1]
    URL, KEY = os.environ.get("WHIP_URL"), os.environ.get("WHIP_KEY")
    DROP_AFTER = os.environ.get("WHIP_DROP_AFTER")
    LOSS = float(os.environ.get("WHIP_LOSS", "0"))
    chance = random.Random(7)

    class Side(asyncio.DatagramProtocol):
        def __init__(self, relay, name):
            self.relay, self.name = relay, name
        def datagram_received(self, data, addr):
            self.relay.forward(self.name, data, addr)

    class Relay:
        """aiortc <-> front [drops one video packet, or LOSS of all each way] back <-> the server."""
        def __init__(self, server_port, video_pt, drop_after):
            self.server_port, self.video_pt, self.drop_after = server_port, video_pt, drop_after
            self.client, self.first_media, self.dropped, self.lost = None, None, 0, 0
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
                self.lost += 1
                return
            if side == "back":
                if self.client:
                    self.front.sendto(data, self.client)
                return
            rtp = len(data) > 1 and 128 <= data[0] <= 191 and not 192 <= data[1] <= 223
            if rtp and self.first_media is None:
                self.first_media = time.time()
            video = rtp and (data[1] & 0x7F) == self.video_pt
            if (self.drop_after is not None and video and not self.dropped
                    and time.time() - self.first_media >= self.drop_after):
                self.dropped, self.dropped_sequence = 1, data[2:4]
                say({"dropped": 1})
                return
            if self.dropped and video and data[2:4] == self.dropped_sequence:
                return  # and every copy resent on a NACK: lost for good
            self.back.sendto(data, ("127.0.0.1", self.server_port))

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

    async def wait_answer():
        path = os.path.join(DIR, "answer.sdp")
        deadline = time.time() + 30
        while not os.path.exists(path):
            if time.time() > deadline:
                raise RuntimeError("no answer within 30 s")
            await asyncio.sleep(0.02)
        with open(path) as f:
            return f.read()

    def post(offer):
        request = urllib.request.Request(URL, data=offer.encode(), method="POST",
                                         headers={"Content-Type": "application/sdp"})
        if KEY is not None:
            request.add_header("Authorization", "Bearer " + KEY)
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
        from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack
        pc = RTCPeerConnection()
        video = VideoStreamTrack()
        if os.environ.get("WHIP_COLOUR"):
            import numpy
            from av import VideoFrame
            colour = [int(c) for c in os.environ["WHIP_COLOUR"].split(",")]
            picture = numpy.zeros((360, 640, 3), numpy.uint8)
            picture[:, :] = colour
            class Colour(VideoStreamTrack):
                async def recv(self):
                    pts, time_base = await self.next_timestamp()
                    frame = VideoFrame.from_ndarray(picture, format="rgb24")
                    frame.pts, frame.time_base = pts, time_base
                    return frame
            video = Colour()
        pc.addTransceiver(video, direction="sendonly")
        audio = AudioStreamTrack()
        if os.environ.get("WHIP_TONE"):
            import fractions, numpy
            from av import AudioFrame
            tone = float(os.environ["WHIP_TONE"])
            class Tone(AudioStreamTrack):
                # AudioStreamTrack's pacing (real time, 20 ms frames), at 48 kHz with a sine in them.
                async def recv(self):
                    rate, samples = 48000, 960
                    if hasattr(self, "_timestamp"):
                        self._timestamp += samples
                        await asyncio.sleep(self._start + self._timestamp / rate - time.time())
                    else:
                        self._start, self._timestamp = time.time(), 0
                    t = (self._timestamp + numpy.arange(samples)) / rate
                    pcm = (numpy.sin(2 * numpy.pi * tone * t) * 16384).astype(numpy.int16)
                    frame = AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
                    frame.pts, frame.sample_rate = self._timestamp, rate
                    frame.time_base = fractions.Fraction(1, rate)
                    return frame
            audio = Tone()
        pc.addTransceiver(audio, direction="sendonly")
        connected = asyncio.Event()
        @pc.on("connectionstatechange")
        def changed():
            if pc.connectionState == "connected":
                connected.set()
        await pc.setLocalDescription(await pc.createOffer())
        if URL:
            status, location, body = await asyncio.get_running_loop().run_in_executor(
                None, post, pc.localDescription.sdp)
            say({"status": status, "location": location, "body": body if status != 201 else ""})
            if status != 201:
                await pc.close()
                return
            answer = body
        else:
            say({"offer": pc.localDescription.sdp})
            answer = await wait_answer()
        relay = None
        if DROP_AFTER or LOSS:
            relay, answer = await through_relay(answer)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        try:
            await asyncio.wait_for(connected.wait(), 20)
        except asyncio.TimeoutError:
            say({"state": pc.connectionState})
            await pc.close()
            return
        say({"state": "connected"})
        # Media flows until the test removes the session (DTLS close_notify) or 60 s pass.
        deadline = time.time() + 60
        while pc.connectionState == "connected" and time.time() < deadline:
            await asyncio.sleep(0.05)
        say({"state": pc.connectionState, "lost": relay.lost if relay else 0})
        await pc.close()

    asyncio.run(main())
    """#
}
