import Foundation
import TestSupport

/// aiortc (PyPI, pinned in scripts/requirements-test.txt) as a WHIP endpoint: it receives the media and reports
/// frames decoded (some saved as RGB with their arrival times, and a count per second) and the audio's dominant
/// frequency. With a loss rate it puts a lossy UDP relay between the publisher and aiortc by rewriting the
/// candidates in the offer and the answer; halfway through the lossy time 0.3 s of the publisher's RTP vanishes for
/// good (resends too), which aiortc answers with a PLI.
enum AiortcEndpoint {
    /// Starts the endpoint.
    /// - Parameters:
    ///   - loss: the fraction of media datagrams (SRTP/SRTCP) the relay drops each way; 0 for no relay.
    ///   - delay: one-way delay the relay adds, in seconds.
    ///   - lossSeconds: how long after the first media datagram the loss lasts.
    ///   - closeAfter: seconds after which aiortc closes the first session (DTLS close_notify), 0 for never; the
    ///     endpoint then waits for a second session and ends when both are DELETEd.
    ///   - blackoutAfter: seconds after the first media datagram after which the relay silently drops everything
    ///     of the first session both ways (a path that dies without a word), 0 for never; the endpoint then waits
    ///     for a second session, which the relay carries.
    ///   - certificate: serve HTTPS with this certificate instead of HTTP.
    static func start(loss: Double = 0, delay: Double = 0, lossSeconds: Double = 0, closeAfter: Double = 0,
                      blackoutAfter: Double = 0, certificate: TestCertificate? = nil) throws -> WHIPTestEndpoint {
        var environment = closeAfter > 0 || blackoutAfter > 0 ? ["WHIP_SESSIONS": "2"] : [:]
        if let certificate {
            environment["WHIP_TLS_CERT"] = certificate.certificateFile
            environment["WHIP_TLS_KEY"] = certificate.keyFile
        }
        return try WHIPTestEndpoint(name: "aiortc", peer: peer,
                                    arguments: [String(loss), String(delay), String(lossSeconds), String(closeAfter),
                                                String(blackoutAfter)],
                                    environment: environment)
    }

    static let peer = #"""

    import numpy as np
    import aioice.ice
    # FIELD-NOTES: aioice offers only non-loopback addresses by default.
    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
    from aiortc import RTCPeerConnection, RTCSessionDescription

    LOSS, DELAY, LOSS_SECONDS, CLOSE_AFTER = float(ARGS[0]), float(ARGS[1]), float(ARGS[2]), float(ARGS[3])
    BLACKOUT_AFTER = float(ARGS[4])
    results.update({"frames": 0, "saved": [], "audio_rate": 0, "audio_hz": None, "per_second": [],
                    "relay_dropped": 0, "relay_forwarded": 0, "plis": 0})
    audio = []
    first_frame = [None]
    pcs = []

    class Side(asyncio.DatagramProtocol):
        def __init__(self, relay, name):
            self.relay, self.name = relay, name
        def connection_made(self, transport):
            self.transport = transport
        def datagram_received(self, data, addr):
            self.relay.forward(self.name, data)

    class Relay:
        """Publisher <-> A [loss, delay] B <-> aiortc."""
        def __init__(self):
            self.publisher = None
            self.aiortc = None
            self.started = None
            self.vanished = set()
            self.offers = 0
        async def start(self):
            loop = asyncio.get_running_loop()
            self.a, _ = await loop.create_datagram_endpoint(lambda: Side(self, "a"), local_addr=("127.0.0.1", 0))
            self.b, _ = await loop.create_datagram_endpoint(lambda: Side(self, "b"), local_addr=("127.0.0.1", 0))
        def port(self, side):
            return (self.a if side == "a" else self.b).get_extra_info("sockname")[1]
        def forward(self, side, data):
            media = 128 <= data[0] <= 191
            now = time.time()
            if media and self.started is None:
                self.started = now
            elapsed = now - self.started if self.started is not None else -1
            if BLACKOUT_AFTER > 0 and self.offers == 1 and elapsed >= BLACKOUT_AFTER:
                results["relay_dropped"] += 1
                return
            lossy = media and 0 <= elapsed < LOSS_SECONDS
            # Halfway through the loss, 0.3 s of the publisher's RTP vanishes for good (its resends too): aiortc's
            # jitter buffer waits for the gap until 512 packets later, then gives up and asks for a keyframe (PLI).
            rtp = media and side == "a" and not (192 <= data[1] <= 223)
            key = (data[8:12], data[2:4]) if rtp else None
            if rtp and LOSS_SECONDS / 2 <= elapsed < LOSS_SECONDS / 2 + 0.3:
                self.vanished.add(key)
            # aiortc asks for a keyframe once per gap and never again (a browser repeats its PLI until a keyframe
            # comes): the random loss spares that one datagram, so whether the publisher answers a picture loss is
            # what the lossy tests see, not whether the relay happened to drop the only request (SRTCP leaves the
            # header clear: payload type 206 = PSFB, format 1 = PLI).
            pli = media and side == "b" and data[1] == 206 and data[0] & 0x1F == 1
            if pli:
                results["plis"] += 1
            if (rtp and key in self.vanished) or (lossy and not pli and random.random() < LOSS):
                results["relay_dropped"] += 1
                return
            results["relay_forwarded"] += 1
            if side == "a":
                transport, target = self.b, self.aiortc
            else:
                transport, target = self.a, self.publisher
            if target is None:
                return
            asyncio.get_running_loop().call_later(DELAY, transport.sendto, data, target)
        def rewrite(self, sdp, side):
            if side == "offer":
                self.offers += 1
            lines = []
            for line in sdp.split("\r\n"):
                if line.startswith("a=candidate:"):
                    fields = line.split(" ")
                    if fields[2].lower() != "udp":
                        continue
                    address = (fields[4], int(fields[5]))
                    # One IPv4 candidate per side goes through the relay (its sockets are IPv4): the first.
                    if ":" in address[0] or any(l.startswith("a=candidate:") for l in lines):
                        continue
                    if side == "offer":
                        self.publisher = address
                        fields[4], fields[5] = "127.0.0.1", str(self.port("b"))
                    else:
                        self.aiortc = address
                        fields[4], fields[5] = "127.0.0.1", str(self.port("a"))
                    line = " ".join(fields[:8])
                lines.append(line)
            return "\r\n".join(lines)

    relay = Relay() if LOSS > 0 or DELAY > 0 or BLACKOUT_AFTER > 0 else None

    async def consume_video(track):
        while True:
            try:
                frame = await track.recv()
            except Exception:
                return
            arrival = time.time()
            if first_frame[0] is None:
                first_frame[0] = arrival
            results["frames"] += 1
            second = int(arrival - first_frame[0])
            while len(results["per_second"]) <= second:
                results["per_second"].append(0)
            results["per_second"][second] += 1
            if results["frames"] % 7 == 1 and len(results["saved"]) < 40:
                rgb = frame.to_ndarray(format="rgb24")
                name = "frame-%d.rgb" % results["frames"]
                with open(os.path.join(OUT, name), "wb") as f:
                    f.write(rgb.tobytes())
                results["saved"].append({"file": name, "arrival": arrival, "width": int(rgb.shape[1]),
                                         "height": int(rgb.shape[0])})

    async def consume_audio(track):
        while True:
            try:
                frame = await track.recv()
            except Exception:
                return
            results["audio_rate"] = frame.sample_rate
            channels = len(frame.layout.channels)
            samples = frame.to_ndarray().reshape(-1, channels)[:, 0]
            audio.append(samples.astype(np.float32) / 32768.0)

    async def on_offer(offer):
        if relay is not None:
            offer = relay.rewrite(offer, "offer")
        pc = RTCPeerConnection()
        pcs.append(pc)

        @pc.on("track")
        def on_track(track):
            asyncio.ensure_future(consume_video(track) if track.kind == "video" else consume_audio(track))

        if CLOSE_AFTER > 0 and len(pcs) == 1:
            # The first session ends from this side: close_notify, as an endpoint going away sends it.
            asyncio.get_running_loop().call_later(CLOSE_AFTER, lambda: asyncio.ensure_future(pc.close()))
        await pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        answer = pc.localDescription.sdp
        if relay is not None:
            answer = relay.rewrite(answer, "answer")
        return answer


    async def setup():
        if relay is not None:
            await relay.start()


    async def teardown():
        await asyncio.sleep(0.2)
        if audio:
            samples = np.concatenate(audio)
            rate = results["audio_rate"] or 48000
            samples = samples[rate // 2:]
            if len(samples) > rate // 2:
                spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
                results["audio_hz"] = float(np.argmax(spectrum) * rate / len(samples))
                results["audio_seconds"] = len(samples) / rate
        for pc in pcs:
            await pc.close()
    """#
}
