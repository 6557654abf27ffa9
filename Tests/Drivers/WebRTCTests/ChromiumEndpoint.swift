/// Chromium (Debian's, driven by Playwright from PyPI) as a WHIP receiver: a page on the endpoint's own origin
/// answers the offer with an `RTCPeerConnection` (after ICE gathering completes: WHIP without trickle), plays the
/// tracks, and the endpoint samples `getStats()` once a second until DELETE.
enum ChromiumEndpoint {
    static func start() throws -> WHIPTestEndpoint {
        try WHIPTestEndpoint(name: "chromium", peer: peer, arguments: [])
    }

    static let peer = #"""
    from playwright.async_api import async_playwright

    results.update({"samples": [], "answered": False})
    state = {}

    ANSWER = """
    async (offer) => {
        const pc = new RTCPeerConnection();
        window.pc = pc;
        pc.ontrack = (event) => {
            const media = document.createElement(event.track.kind);
            media.muted = event.track.kind === "video";
            media.autoplay = true;
            media.srcObject = new MediaStream([event.track]);
            document.body.appendChild(media);
        };
        await pc.setRemoteDescription({type: "offer", sdp: offer});
        await pc.setLocalDescription(await pc.createAnswer());
        await new Promise((resolve) => {
            if (pc.iceGatheringState === "complete") resolve();
            pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") resolve(); };
            setTimeout(resolve, 5000);
        });
        return pc.localDescription.sdp;
    }
    """

    STATS = """
    async () => {
        const out = {connection: window.pc ? window.pc.connectionState : "none"};
        if (!window.pc) return out;
        (await window.pc.getStats()).forEach((report) => {
            if (report.type === "inbound-rtp" && report.kind === "video") {
                for (const key of ["framesDecoded", "freezeCount", "totalFreezesDuration", "frameWidth",
                                   "frameHeight", "keyFramesDecoded", "nackCount", "pliCount", "packetsLost"]) {
                    out[key] = report[key];
                }
            }
            if (report.type === "inbound-rtp" && report.kind === "audio") {
                out.audioSamples = report.totalSamplesReceived;
                out.audioEnergy = report.totalAudioEnergy;
            }
        });
        return out;
    }
    """

    async def sample():
        while True:
            await asyncio.sleep(1)
            try:
                results["samples"].append(await state["page"].evaluate(STATS))
            except Exception as error:
                results["samples"].append({"error": str(error)})

    async def on_offer(offer):
        answer = await state["page"].evaluate(ANSWER, offer)
        results["answered"] = True
        state["sampler"] = asyncio.ensure_future(sample())
        return answer

    async def setup():
        state["playwright"] = await async_playwright().start()
        state["browser"] = await state["playwright"].chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--allow-loopback-in-peer-connection",
                  "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required"])
        state["page"] = await state["browser"].new_page()
        await state["page"].goto("http://127.0.0.1:%d/" % PORT)

    async def teardown():
        if "sampler" in state:
            state["sampler"].cancel()
        await state["browser"].close()
        await state["playwright"].stop()
    """#
}
