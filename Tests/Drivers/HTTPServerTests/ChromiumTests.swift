import Foundation
import HTTP
import HTTPServer
import TestSupport
import Testing

/// Debian's Chromium, driven by Playwright (PyPI), loads a page from the server and round-trips WebSocket messages
/// (text and binary) with it.
@Suite(.startsPeers) struct ChromiumTests {
    static let page = """
        <!doctype html>
        <meta charset="utf-8">
        <title>WebSocket round trip</title>
        <script>
        window.done = false;
        const results = [];
        const socket = new WebSocket(`ws://${location.host}/ws`, ["chat"]);
        socket.binaryType = "arraybuffer";
        socket.onopen = () => {
            results.push("protocol " + socket.protocol);
            socket.send("héllo from chromium");
            socket.send(new Uint8Array([1, 2, 3, 250]).buffer);
            socket.send("x".repeat(200000));
        };
        socket.onmessage = (event) => {
            if (typeof event.data === "string") {
                results.push(event.data.length > 1000 ? "long " + event.data.length : "text " + event.data);
            } else {
                results.push("binary " + Array.from(new Uint8Array(event.data)).join(","));
            }
            if (results.length === 4) socket.close(1000, "bye");
        };
        socket.onclose = (event) => {
            results.push("closed " + event.code + " " + event.wasClean);
            window.result = results.join("\\n");
            window.done = true;
        };
        </script>
        """

    static let script = """
        import sys
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(sys.argv[1])
            page.wait_for_function("window.done === true", timeout=20000)
            print(page.evaluate("window.result"))
            browser.close()
        """

    @Test func chromiumRoundTripsWebSocketMessages() async throws {
        let server = try await TestServer { router in
            router.add(.get, "/", .immediate { _ in
                HTTPResponse(headers: ["Content-Type": "text/html; charset=utf-8"],
                             body: .bytes(Array(ChromiumTests.page.utf8)))
            })
        }
        let output = try await runPython(Self.script, [server.url("/")], timeout: 90)
        await server.stop()
        #expect(output == """
            protocol chat
            text héllo from chromium
            binary 1,2,3,250
            long 200000
            closed 1000 true

            """)
    }
}
