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
}
