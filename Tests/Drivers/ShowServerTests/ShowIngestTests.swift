import Foundation
import IngestServer
import LiveProtocol
import LiveShows
import Locking
import ShowServer
import TestSupport
import Testing

/// The show server as the RTMP ingest's gate, with ffmpeg (an encoder we did not write) publishing as OBS would.
@Suite(.serialized, .startsPeers) struct ShowIngestTests {
    static func ffmpeg(_ url: String, seconds: Int = 60, log: String) throws -> BackgroundProcess {
        try BackgroundProcess("ffmpeg", ["-nostdin", "-loglevel", "warning", "-re", "-f", "lavfi", "-i",
                                         "testsrc2=size=320x240:rate=15", "-t", "\(seconds)", "-c:v", "libx264",
                                         "-preset", "ultrafast", "-tune", "zerolatency", "-g", "15", "-f", "flv", url],
                              errorLog: log)
    }

    @Test func obsKeyGoesLiveAndRenewCutsItWithinASecond() async throws {
        let directory = try TemporaryDirectory("show-ingest")
        let server = try await ShowServerTests.server(directory: directory.path)
        defer { server.stop() }
        let events = Locked<[ServerEvent]>([])
        var configuration = RTMPServer.Configuration(listen: ("127.0.0.1", 0), onEvent: { event in
            events.withLock { $0.append(event) }
        })
        configuration.publishGate = server.publishGate()
        let ingest = try RTMPServer(configuration: configuration)
        let port = try #require(try await ingest.start().rtmp)
        defer { ingest.stop() }
        server.setPublisherDisconnector { ingest.disconnectPublishers(admittedAs: $0) }

        let (ann, annSession) = ShowServerTests.joined(server, "ann")
        let (bob, _) = ShowServerTests.joined(server, "bob")
        ShowServerTests.send(server, annSession, 2, .ingest(renew: false))
        guard case .success(.ingest(let old))? = ann.reply(2) else { Issue.record("no key"); return }
        let url = "rtmp://127.0.0.1:\(port)/live"

        let publisher = try Self.ffmpeg("\(url)/\(old.key)", log: directory.file("ffmpeg-1.log"))
        defer { publisher.stop() }
        #expect(bob.wait(timeout: 15) { $0.events.contains(.tiles([.obs], main: .obs)) })
        #expect(bob.events.contains(.state(.live)))

        ShowServerTests.send(server, annSession, 3, .ingest(renew: true))
        guard case .success(.ingest(let renewed))? = ann.reply(3) else { Issue.record("no new key"); return }
        let renewedAt = Date()
        let status = publisher.waitForExit(timeout: 5)
        let cutAfter = Date().timeIntervalSince(renewedAt)
        #expect(status != nil, "ffmpeg was not cut")
        #expect(cutAfter < 1, "cut after \(cutAfter) s")
        #expect(bob.wait { $0.events.contains(.state(.idle)) })

        // The old key is refused; the new one goes live.
        let refused = try Self.ffmpeg("\(url)/\(old.key)", seconds: 3, log: directory.file("ffmpeg-2.log"))
        #expect(refused.waitForExit(timeout: 15).map { $0 != 0 } == true)
        #expect(events.withLock { $0 }.contains { event in
            guard case .publishRefused(_, _, _, let reason) = event else { return false }
            return reason == "unknown or renewed OBS key"
        })
        let again = try Self.ffmpeg("\(url)/\(renewed.key)", log: directory.file("ffmpeg-3.log"))
        defer { again.stop() }
        let liveCount = bob.events.filter { $0 == .state(.live) }.count
        #expect(bob.wait(timeout: 15) { $0.events.filter { $0 == .state(.live) }.count == liveCount + 1 })

        // The host ends the show: the publisher is cut and the OBS key refused until the host goes live again.
        ShowServerTests.send(server, annSession, 4, .end)
        #expect(ann.reply(4) == .success(.done))
        #expect(again.waitForExit(timeout: 5) != nil)
        #expect(bob.wait { $0.events.contains(.state(.ended)) })
        // Keys never reach the log.
        let log = events.withLock { $0 }.map(\.description).joined(separator: "\n")
        #expect(!log.contains(old.key) && !log.contains(renewed.key))
    }
}
