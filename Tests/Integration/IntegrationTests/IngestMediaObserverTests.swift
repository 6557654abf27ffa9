import FLV
import Foundation
import IngestServer
import Locking
import TestSupport
import Testing

/// The ingest's media observer (what LL-HLS packages): ffmpeg publishes, the observer sees the publish start, every
/// tag of the file in order, and the end, named by the publish's keyed media tag.
@Suite(.serialized) struct IngestMediaObserverTests {
    @Test func theObserverSeesEveryTagOfAPublishBetweenItsStartAndItsEnd() async throws {
        let events = Locked<[IngestMediaEvent]>([])
        var configuration = RTMPServer.Configuration(listen: ("127.0.0.1", 0))
        configuration.onMedia = { event in events.withLock { $0.append(event) } }
        let mediaTagKey = Array("a media tag key of the server's own".utf8)
        configuration.mediaTagKey = mediaTagKey
        let server = try RTMPServer(configuration: configuration)
        let ports = try await server.start()
        defer { server.stop() }
        let work = try TemporaryDirectory("observer")
        let fixture = try MediaFixture.makeFLV(in: work, seconds: 2)
        let port = try #require(ports.rtmp)
        let push = try await offPool {
            try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", fixture, "-c", "copy", "-f", "flv",
                                          "rtmp://127.0.0.1:\(port)/live/observer-secret-key"], timeout: 30)
        }
        #expect(push.status == 0, "\(push.stderr)")
        // The publisher's close reaches the server's loop a moment after ffmpeg exits.
        let stopped = { events.withLock { $0.contains { if case .publishStopped = $0 { true } else { false } } } }
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, !stopped() {
            try await Task.sleep(for: .milliseconds(20))
        }

        let seen = events.withLock { $0 }
        let tag = StreamKeyTag.media("observer-secret-key", app: "live", key: mediaTagKey)
        guard case .publishStarted(let app, let startTag)? = seen.first,
              case .publishStopped(_, let stopTag)? = seen.last else {
            Issue.record("the publish must start first and stop last: \(seen.count) events")
            return
        }
        #expect(app == "live" && startTag == tag && stopTag == tag)
        // Issue 34 D: 128 bits keyed by the server, not the short unkeyed tag of the logs.
        let logTag = StreamKeyTag.tag("observer-secret-key").dropFirst()
        #expect(tag.count == 32 && tag.allSatisfy(\.isHexDigit) && !tag.contains(logTag))
        #expect(tag != StreamKeyTag.media("observer-secret-key", app: "live", key: Array("another key".utf8)))
        #expect(tag != StreamKeyTag.media("observer-secret-key", app: "other", key: mediaTagKey))
        #expect(tag != StreamKeyTag.media("observer-secret-kez", app: "live", key: mediaTagKey))
        let tags = seen.compactMap { event -> FLVTag? in
            if case .tag(_, _, let tag) = event { return tag }
            return nil
        }
        let media = try FLVTags.of(fixture).filter { $0.type != .scriptData }
        #expect(tags.filter { $0.type != .scriptData }.map(\.body) == media.map(\.body))
        #expect(tags.first { $0.type == .video }?.isSequenceHeader == true)
        let frames = tags.filter { (try? FLVVideoTagBody(parsing: $0.body))?.packetType == .nalu && $0.type == .video }
        #expect(frames.count == 60)
    }
}
