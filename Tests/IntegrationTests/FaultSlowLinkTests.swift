import FLV
import Foundation
import IngestServer
import Publisher
import StreamCore
import Synchronization
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
                     onTick: (_ queued: Int) async -> Void = { _ in }) async -> (PublishError?, maxQueued: Int) {
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
                if start.duration(to: .now) >= limit { return (nil, maxQueued) }
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

    @Test func aStalledLinkNeverDrainsAndTheClientReportsATimeout() async throws {
        let running = try await IngestServerTests.start()
        defer { running.server.stop() }
        let fixture = try MediaFixture.makeFLV(in: running.work, seconds: 2, size: "640x360", fps: 30, gop: 30)
        let tags = try FLVPublishing.tags(of: fixture)
        let proxy = try ThrottlingProxy(targetPort: try #require(running.ports.rtmp))
        defer { proxy.stop() }

        let client = try RTMPClient(options: .init(connectTimeout: .seconds(5), responseTimeout: .seconds(5),
                                                   writeBufferLimit: 256 * 1024))
        try await client.connect(to: try IngestURL(parsing: "rtmp://127.0.0.1:\(proxy.port)/live"))
        try await client.publish(streamKey: "stalled-link")
        let drained = SharedCounter()  // 0 waiting, 1 returned, 2 threw
        let stalled = SharedCounter()
        let start = ContinuousClock.now
        let (error, maxQueued) = await Self.feed(client, tags: tags, for: .seconds(40)) { queued in
            if stalled.value == 0 && start.duration(to: .now) > .milliseconds(500) {
                stalled.store(1)
                proxy.setStalled(true)
            }
            // A waiter for the queue to drain, started once the stalled link has left bytes in the queue.
            guard stalled.value == 1, queued > 64 * 1024 else { return }
            stalled.store(2)
            Task.detached {
                do {
                    try await client.waitForDrain(below: 1)
                    drained.store(1)
                } catch {
                    drained.store(2)
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(stalled.value == 2, "the queue never grew past 64 kB")
        #expect(drained.value == 0, "waitForDrain returned although the link is stalled")
        let failure = try #require(error, "the stall was never reported (queue peaked at \(maxQueued) bytes)")
        #expect(failure.code == .timeout)
        #expect(await client.state == .failed(failure))

        // Closing ends the waiter (the queued bytes are lost, so it throws).
        await client.close(flushTimeout: .milliseconds(200))
        let deadline = ContinuousClock.now + .seconds(10)
        while drained.value == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(drained.value == 2)
        print("stalled link: send failed with \(failure.code) after \(start.duration(to: .now)) (queue peaked at "
              + "\(maxQueued) bytes)")
    }
}
