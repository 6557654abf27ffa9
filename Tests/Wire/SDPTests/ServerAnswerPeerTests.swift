import Foundation
@testable import SDP
import TestSupport
import Testing

/// Real offers from WebRTC stacks we did not write, answered by ``ServerAnswer`` and fed back to them: aiortc 1.16
/// and Chromium (through Playwright) each make a WHIP offer (video and audio sendonly, plus a data channel) and a
/// WHEP offer (recvonly), take our answer with `setRemoteDescription`, and report the directions and codecs they
/// negotiated. ICE and DTLS over UDP are the server driver's tests; here only the SDP is exchanged.
@Suite(.startsPeers) struct ServerAnswerPeerTests {
    enum Stack: String, CaseIterable {
        case aiortc, chromium
    }

    enum Mode: String, CaseIterable {
        case whip, whep

        var direction: ServerAnswer.Direction { self == .whip ? .receive : .send }
        /// What the client's transceivers end up as.
        var clientDirection: String { self == .whip ? "sendonly" : "recvonly" }
    }

    @Test(.timeLimit(.minutes(2)), arguments: Stack.allCases, Mode.allCases)
    func aRealClientAcceptsTheAnswer(stack: Stack, mode: Mode) throws {
        let directory = try TemporaryDirectory("server-answer-\(stack.rawValue)")
        let script = directory.file("peer.py")
        try Self.peer.write(toFile: script, atomically: true, encoding: .utf8)
        let process = try BackgroundProcess("python3", [script, stack.rawValue, mode.rawValue, directory.path],
                                            errorLog: directory.file("stderr.log"))
        defer { process.stop() }
        func log() -> String { (try? String(contentsOfFile: directory.file("stderr.log"), encoding: .utf8)) ?? "" }

        let first = try Self.json(try process.readLine(timeout: 60), log: log())
        let offer = try #require(first["offer"] as? String, "no offer from \(stack): \(first)")
        let answer = try ServerAnswer(offer: offer, configuration: ServerOffers.configuration(mode.direction))
        let video = try #require(answer.video, "no video taken from \(stack)'s offer:\n\(offer)")
        let audio = try #require(answer.audio, "no audio taken from \(stack)'s offer:\n\(offer)")
        // Both stacks add a data channel, which the answer rejects.
        #expect(answer.sessionDescription.media.map(\.port).filter { $0 == 0 }.count == 1)
        try answer.text.write(toFile: directory.file("answer.tmp"), atomically: false, encoding: .utf8)
        #expect(rename(directory.file("answer.tmp"), directory.file("answer.sdp")) == 0)

        let result = try Self.json(try process.readLine(timeout: 60), log: log())
        let refusal = "\(result["error"] ?? result)"
        #expect(result["ok"] as? Bool == true, "\(stack) refused the answer: \(refusal)\n\(answer.text)")
        #expect(result["signaling"] as? String == "stable")
        let transceivers = result["transceivers"] as? [[String: Any]] ?? []
        let byKind = Dictionary(transceivers.map { ($0["kind"] as? String ?? "", $0) }) { first, _ in first }
        // Chromium's receiver lists every codec it offered to receive, not the negotiated ones; its sender and
        // aiortc list what the answer left.
        let listsNegotiated = !(stack == .chromium && mode == .whep)
        for (kind, payloadType, mimeType) in [("video", video.payloadType, "video/h264"),
                                              ("audio", audio.payloadType, "audio/opus")] {
            let transceiver = try #require(byKind[kind], "\(stack) reports no \(kind) transceiver: \(result)")
            #expect(transceiver["currentDirection"] as? String == mode.clientDirection, "\(kind): \(transceiver)")
            let codecs = transceiver["codecs"] as? [[String: Any]] ?? []
            let names = codecs.map { "\($0["mimeType"] ?? "")/\($0["payloadType"] ?? "")" }
            let chosen = codecs.first { $0["payloadType"] as? Int == Int(payloadType) }
            #expect((chosen?["mimeType"] as? String)?.lowercased() == mimeType, "\(kind) codecs: \(names)")
            if listsNegotiated {
                #expect(codecs.count == 1, "\(kind) codecs: \(names)")
            }
            if kind == "video" {
                #expect((chosen?["parameters"] as? String)?.contains("profile-level-id=\(video.profileLevelID)")
                    == true, "\(chosen ?? [:])")
            }
        }
    }

    static func json(_ line: String, log: String) throws -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not JSON: \(line.prefix(200))\nstderr: \(log)")
    }

    /// The peer: prints `{"offer": ...}`, waits for `answer.sdp` in its directory, applies it, prints the result.
    static let peer = #"""
    import asyncio, json, os, sys, time

    STACK, MODE, DIR = sys.argv[1], sys.argv[2], sys.argv[3]
    DIRECTION = "sendonly" if MODE == "whip" else "recvonly"

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

    async def aiortc_peer():
        import aioice.ice
        # FIELD-NOTES: aioice offers only non-loopback addresses by default.
        aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]
        from aiortc import RTCPeerConnection, RTCSessionDescription
        pc = RTCPeerConnection()
        pc.addTransceiver("video", direction=DIRECTION)
        pc.addTransceiver("audio", direction=DIRECTION)
        pc.createDataChannel("chat")
        await pc.setLocalDescription(await pc.createOffer())
        say({"offer": pc.localDescription.sdp})
        answer = await wait_answer()
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        except Exception as error:
            say({"ok": False, "error": f"{type(error).__name__}: {error}"})
            await pc.close()
            return
        def fmtp(codec):
            return ";".join(f"{k}={v}" for k, v in codec.parameters.items())
        say({"ok": True, "signaling": pc.signalingState, "transceivers": [
            {"kind": t.kind, "mid": t.mid, "currentDirection": t.currentDirection,
             "codecs": [{"mimeType": c.mimeType, "payloadType": c.payloadType, "parameters": fmtp(c)}
                        for c in getattr(t, "_codecs", [])]}
            for t in pc.getTransceivers()]})
        await pc.close()

    async def chromium_peer():
        from playwright.async_api import async_playwright
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = await browser.new_page()
            offer = await page.evaluate("""async (direction) => {
                const pc = new RTCPeerConnection({bundlePolicy: "max-bundle"});
                window.pc = pc;
                pc.addTransceiver("video", {direction});
                pc.addTransceiver("audio", {direction});
                pc.createDataChannel("chat");
                await pc.setLocalDescription(await pc.createOffer());
                await new Promise(done => {
                    if (pc.iceGatheringState === "complete") done();
                    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") done(); };
                    setTimeout(done, 3000);
                });
                return pc.localDescription.sdp;
            }""", DIRECTION)
            say({"offer": offer})
            answer = await wait_answer()
            say(await page.evaluate("""async ([sdp, direction]) => {
                try {
                    await pc.setRemoteDescription({type: "answer", sdp});
                } catch (error) {
                    return {ok: false, error: error.name + ": " + error.message};
                }
                return {ok: true, signaling: pc.signalingState, transceivers: pc.getTransceivers().map(t => ({
                    kind: t.receiver.track.kind, mid: t.mid, currentDirection: t.currentDirection,
                    codecs: (direction === "sendonly" ? t.sender : t.receiver).getParameters().codecs.map(c => ({
                        mimeType: c.mimeType, payloadType: c.payloadType, parameters: c.sdpFmtpLine || ""}))}))};
            }""", [answer, DIRECTION]))
            await browser.close()

    asyncio.run(aiortc_peer() if STACK == "aiortc" else chromium_peer())
    """#
}
