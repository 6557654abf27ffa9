import FLV
import Foundation
import IngestServer
import Publisher
import StreamCore
import TestSupport
import Testing

/// Our RTMP client pushing a pre-encoded stream in real time through a link slower than the stream, and through
/// a link that stalls: the send queue stays bounded and the client reports the trouble as a `.timeout` error.
@Suite(.serialized) struct FaultSlowLinkTests {
    /// How much faster than real time the fixture is pushed. The kernel's socket buffers on the way (up to 4 MB
    /// for the client's send buffer on loopback) must fill before the client's own queue grows; at 8× that takes
    /// a few seconds instead of half a minute. The link rates below are relative to this pushed rate.
    static let speed = 8

    /// A paced feeder: sends the fixture's tags at their timestamps (divided by ``speed``), looping with shifted
    /// timestamps, until a send throws or `limit` passes. Returns the error and the largest queue seen.
    static func feed(_ client: RTMPClient, tags: [FLVTag], for limit: Duration,
                     onTick: (_ queued: Int) async -> Void = { _ in },
                     until done: () -> Bool = { false }) async -> (PublishError?, maxQueued: Int) {
        let media = tags.filter { $0.type != .scriptData }
        let length = (media.last?.timestamp ?? 0) + 33
        let start = ContinuousClock.now
        var maxQueued = 0
        var loop: UInt32 = 0
        while start.duration(to: .now) < limit {
            for tag in media {
                if loop > 0 && tag.isSequenceHeader { continue }
                let timestamp = tag.timestamp &+ loop &* length
                let due = start + .milliseconds(Int(timestamp) / speed)
                if due > .now { try? await Task.sleep(until: due) }
                do {
                    try await client.send(FLVTag(type: tag.type, timestamp: timestamp, body: tag.body))
                } catch {
                    return (error, maxQueued)
                }
                let queued = await client.queuedBytes
                maxQueued = max(maxQueued, queued)
                await onTick(queued)
                if done() || start.duration(to: .now) >= limit { return (nil, maxQueued) }
            }
            loop += 1
        }
        return (nil, maxQueued)
    }

    @Test func aHalfRateLinkFillsTheQueueUpToItsLimitAndSendThenFailsWithATimeout() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 4, size: "640x360", fps: 30, gop: 30)
        let tags = try FLVPublishing.tags(of: fixture)
        let mediaBytes = tags.reduce(0) { $0 + $1.body.count }
        let streamRate = mediaBytes / 4 * Self.speed
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp), bytesPerSecond: streamRate / 2)
        defer { proxy.stop() }

        let limit = 256 * 1024
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5),
                                                   writeBufferLimit: limit))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(proxy.port)/live"))
        try await client.publish(streamKey: "slow-link")
        let start = ContinuousClock.now
        let (error, maxQueued) = await Self.feed(client, tags: tags, for: .seconds(40))
        let elapsed = start.duration(to: .now)
        await client.close(flushTimeout: .zero)

        print("slow link: pushed \(streamRate) B/s, link \(streamRate / 2) B/s, queue peaked at \(maxQueued) of "
              + "\(limit) bytes, send failed after \(elapsed): \(String(describing: error))")
        let failure = try #require(error, "the queue never overflowed (peak \(maxQueued) bytes)")
        #expect(failure.code == .timeout)
        #expect(failure.description.contains("not taking data"))
        #expect(maxQueued <= limit)
        #expect(maxQueued > limit / 2, "the queue should have grown toward its limit")
        #expect(await client.state == .failed(failure))
    }

    @Test func waitingForAStalledLinkToDrainEndsInATimeoutAndAClosedConnection() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 2, size: "640x360", fps: 30, gop: 30)
        let tags = try FLVPublishing.tags(of: fixture)
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp))
        defer { proxy.stop() }

        // The response timeout also bounds each answer during the publish: not too short for a loaded machine.
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(4),
                                                   writeBufferLimit: 8 << 20))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(proxy.port)/live"))
        try await client.publish(streamKey: "stalled-link")
        let stalled = FaultCounter()
        let start = ContinuousClock.now
        // Media flows for half a second, then the link stalls; feeding stops once the client's own queue holds
        // bytes (the kernel's buffers on the way are full).
        let (error, maxQueued) = await Self.feed(client, tags: tags, for: .seconds(30)) { queued in
            if stalled.value == 0 && start.duration(to: .now) > .milliseconds(500) {
                stalled.store(1)
                proxy.setStalled(true)
            }
            if stalled.value == 1 && queued > 64 * 1024 { stalled.store(2) }
        } until: { stalled.value == 2 }
        #expect(error == nil, "\(String(describing: error))")
        #expect(stalled.value == 2, "the queue never grew past 64 kB (peak \(maxQueued) bytes)")

        // The documented backpressure pattern: wait for the queue to drain. On a stalled link it must end.
        let waitStart = ContinuousClock.now
        let failure = await #expect(throws: PublishError.self) { try await client.waitForDrain(below: 1) }
        let waited = waitStart.duration(to: .now)
        #expect(failure?.code == .timeout, "\(String(describing: failure))")
        #expect(failure?.description.contains("stalled") == true, "\(String(describing: failure))")
        #expect(waited < .seconds(20), "waited \(waited)")
        #expect(await client.state == .failed(try #require(failure)))
        // Later sends report the same failure instead of queueing.
        let later = await #expect(throws: PublishError.self) {
            try await client.send(FLVTag(type: .audio, timestamp: 99_999, body: [0xAF, 0x01, 0x21]))
        }
        #expect(later == failure)
        await client.close(flushTimeout: .zero)
        print("stalled link: waitForDrain failed with \(failure?.code as Any) after \(waited) "
              + "(responseTimeout 4 s, queue \(maxQueued) bytes)")
    }

    @Test func aSlowButMovingLinkIsNotTakenForAStall() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 2, size: "640x360", fps: 30, gop: 30)
        let tags = try FLVPublishing.tags(of: fixture).filter { $0.type != .scriptData && !$0.isSequenceHeader }
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp), bytesPerSecond: 2 << 20)
        defer { proxy.stop() }
        // The kernel takes bytes from the queue in batches of a third of its send buffer (up to 4 MB on
        // loopback): at 2 MB/s that is one batch every ~0.7 s, well within the timeout, while the whole drain
        // takes longer than the timeout.
        let responseTimeout = Duration.seconds(3)
        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: responseTimeout,
                                                   writeBufferLimit: 32 << 20))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(proxy.port)/live"))
        try await client.publish(streamKey: "slow-link")
        // Megabytes at once (more than the kernel's buffers take), then wait: draining them takes longer than
        // the response timeout, but bytes keep moving, so it is no stall.
        for loop in UInt32(0)..<20 {
            for tag in tags {
                try await client.send(FLVTag(type: tag.type, timestamp: tag.timestamp &+ loop * 2000, body: tag.body))
            }
        }
        let queued = await client.queuedBytes
        let start = ContinuousClock.now
        try await client.waitForDrain(below: 1)
        let drained = start.duration(to: .now)
        print("slow link: drained \(queued) queued bytes at 2 MB/s in \(drained) (responseTimeout \(responseTimeout))")
        #expect(drained > responseTimeout, "the drain was too quick to tell a slow link from a stall")
        #expect(await client.state == .publishing)
        await client.close()
    }
}
