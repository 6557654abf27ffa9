import Foundation
import TestSupport
import Testing

/// The throttling proxy itself: it holds its rate and a stall really stops the flow.
@Suite struct FaultThrottlingProxyTests {
    /// A sink server that counts what it receives.
    final class Sink: Sendable {
        let listener: LoopbackListener
        let received = FaultCounter()
        let thread: PeerThread

        init() throws {
            let listener = try LoopbackListener()
            self.listener = listener
            let received = self.received
            thread = PeerThread("sink") {
                let socket = try listener.accept(timeout: 10)
                while let bytes = try socket.read(timeout: 30) {
                    received.add(bytes.count)
                }
            }
        }

        var count: Int { received.value }
    }

    /// A client that writes as fast as the link takes, until `stop` is set.
    static func flood(_ socket: RawSocket, until stop: FaultCounter) -> PeerThread {
        PeerThread("flood") {
            let block = [UInt8](repeating: 0x5A, count: 16 * 1024)
            while stop.value == 0 {
                if try socket.writeAvailable(block) == 0 { usleep(2_000) }
            }
        }
    }

    @Test func theClientToServerRateHoldsWithinAQuarter() async throws {
        let sink = try Sink()
        let rate = 256 * 1024
        let proxy = try ThrottlingProxy(targetPort: sink.listener.port, bytesPerSecond: rate)
        defer { proxy.stop() }
        let client = try RawSocket.connect(port: proxy.port)
        let stop = FaultCounter()
        let flood = Self.flood(client, until: stop)

        try await Task.sleep(for: .milliseconds(500))  // past the initial burst and buffer filling
        let start = (ContinuousClock.now, sink.count)
        try await Task.sleep(for: .seconds(2))
        let end = (ContinuousClock.now, sink.count)
        stop.add(1)
        try await flood.finish()
        client.close()

        let elapsed = start.0.duration(to: end.0)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let measured = Double(end.1 - start.1) / seconds
        print("throttling proxy: asked \(rate) B/s, measured \(Int(measured)) B/s over \(elapsed)")
        #expect(abs(measured - Double(rate)) <= 0.25 * Double(rate), "measured \(Int(measured)) B/s")
    }

    @Test func aStallStopsTheFlowUntilItIsLifted() async throws {
        let sink = try Sink()
        let proxy = try ThrottlingProxy(targetPort: sink.listener.port)
        defer { proxy.stop() }
        let client = try RawSocket.connect(port: proxy.port)
        let stop = FaultCounter()
        let flood = Self.flood(client, until: stop)
        try await Task.sleep(for: .milliseconds(300))
        #expect(sink.count > 0)

        proxy.setStalled(true)
        try await Task.sleep(for: .milliseconds(500))  // what was in flight lands
        let stalledAt = sink.count
        try await Task.sleep(for: .seconds(1))
        #expect(sink.count == stalledAt, "\(sink.count - stalledAt) bytes passed a stalled proxy")
        // The client's socket is full: the kernel takes nothing more.
        #expect(try client.writeAvailable([0x01]) == 0)

        proxy.setStalled(false)
        let deadline = ContinuousClock.now + .seconds(10)
        while sink.count == stalledAt && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sink.count > stalledAt)
        stop.add(1)
        try await flood.finish()
        client.close()
        print("throttling proxy: \(stalledAt) bytes before the stall, none during, \(sink.count) after")
    }
}
